package installer

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpship/mcpship/internal/atomicfile"
)

// maxFileSize is the largest config file mcpship reads, 64 MiB, as
// docs/register.md says; a bigger one is refused. The largest real configs
// (Claude Code's ~/.claude.json, which keeps history) are a few megabytes.
const maxFileSize = 64 << 20

// errChanged reports a file that changed while mcpship read or edited it.
// Edits that meet it start again (see retry).
var errChanged = errors.New("changed by another program while mcpship was editing it")

// A snapshot is a config file as mcpship read it: its contents and what
// the file was, so that it is replaced only if it is still that file with
// those contents.
type snapshot struct {
	path   string      // links resolved (realPath)
	data   []byte      // contents; nil if the file did not exist
	exists bool        // the file existed
	info   fs.FileInfo // of the file read, if it existed
}

// readConfig reads the regular file at path, which need not exist, and
// which the user calls name (path is name with links resolved). It refuses
// anything else (a FIFO is opened without blocking, so it does not wait
// for a writer) and files over maxFileSize, and returns errChanged if the
// file changed size or time while it was read.
func readConfig(name, path string) (*snapshot, error) {
	s := &snapshot{path: path}
	f, err := openNonblock(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := regular(name, path, fi); err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxFileSize+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if len(data) > maxFileSize {
		return nil, errChanged // it grew while it was read
	}
	after, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != after.Size() || after.Size() != fi.Size() || !after.ModTime().Equal(fi.ModTime()) {
		return nil, errChanged
	}
	s.data, s.exists, s.info = data, true, after
	return s, nil
}

// regular refuses a file that is not a regular file, or is larger than
// maxFileSize.
func regular(name, path string, fi fs.FileInfo) error {
	if name != path {
		name += " links to " + path + ", which"
	}
	if !fi.Mode().IsRegular() {
		what := "not a regular file"
		switch t := fi.Mode().Type(); {
		case t&fs.ModeDir != 0:
			what = "a directory"
		case t&fs.ModeNamedPipe != 0:
			what = "a named pipe (FIFO)"
		case t&fs.ModeDevice != 0:
			what = "a device"
		case t&fs.ModeSocket != 0:
			what = "a socket"
		}
		return fmt.Errorf("%s is %s, not a config file; nothing was read or written: replace it with a regular file", name, what)
	}
	if fi.Size() > maxFileSize {
		return fmt.Errorf("%s is %d MiB, over the %d MiB mcpship reads; nothing was read or written: is it really the client's config file?", name, fi.Size()>>20, maxFileSize>>20)
	}
	return nil
}

// unchanged returns errChanged unless the path is still the file that was
// read, with the same size, modification time and contents.
func (s *snapshot) unchanged() error {
	fi, err := os.Lstat(s.path)
	if errors.Is(err, fs.ErrNotExist) && !s.exists {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err != nil || !s.exists || !os.SameFile(fi, s.info) || fi.Size() != s.info.Size() || !fi.ModTime().Equal(s.info.ModTime()) {
		return errChanged
	}
	if same, err := holds(s.path, s.data); err != nil || !same {
		return cmp.Or(err, errChanged)
	}
	return nil
}

// replace puts data in place of the snapshot's file, through
// [atomicfile.WriteWith]: the temporary file gets the owner, group and
// mode of the file it replaces (mode and missing parent directories
// dirMode for a new file, less the umask), and is renamed over the file
// only if that is still as read (unchanged).
func (s *snapshot) replace(data []byte, mode, dirMode fs.FileMode) error {
	if s.exists {
		mode = s.info.Mode().Perm()
	} else if err := os.MkdirAll(filepath.Dir(s.path), dirMode); err != nil {
		return err
	}
	return atomicfile.WriteWith(s.path, data, atomicfile.Options{
		Perm: mode,
		Prepare: func(f *os.File) error {
			if !s.exists {
				return nil
			}
			if err := keepOwner(f, s.path, s.info); err != nil {
				return err
			}
			// The umask may have taken bits the file had.
			if fi, err := f.Stat(); err != nil || fi.Mode().Perm() != mode {
				return f.Chmod(mode)
			}
			return nil
		},
		Check: func() error {
			if testHookReplace != nil {
				testHookReplace(s.path)
			}
			return s.unchanged()
		},
	})
}

// testHookReplace, if set, runs just before the final check of replace.
var testHookReplace func(path string)

// holds reports whether path holds exactly data, reading it a block at a
// time.
func holds(path string, data []byte) (bool, error) {
	f, err := openNonblock(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := io.ReadFull(f, buf)
		if n > len(data) || !bytes.Equal(buf[:n], data[:n]) {
			return false, nil
		}
		data = data[n:]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return len(data) == 0, nil
		}
		if err != nil {
			return false, err
		}
	}
}
