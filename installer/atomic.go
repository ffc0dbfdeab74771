package installer

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// replace puts data in place of the snapshot's file: it writes a
// temporary file in the same directory, with the owner, group and mode of
// the file it replaces (mode and missing parent directories dirMode for a
// new file, less the umask), syncs it, checks that the file is still as
// read (unchanged) and renames the temporary file over it.
func (s *snapshot) replace(data []byte, mode, dirMode fs.FileMode) (err error) {
	dir, base := filepath.Split(s.path)
	if s.exists {
		mode = s.info.Mode().Perm()
	} else if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	f, err := createTemp(dir, base, mode)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if s.exists {
		if err = keepOwner(f, s.path, s.info); err != nil {
			return err
		}
		// The umask may have taken bits the file had.
		if fi, err := f.Stat(); err != nil || fi.Mode().Perm() != mode {
			if err = f.Chmod(mode); err != nil {
				return err
			}
		}
	}
	return commit(f, data, s.path, func() error {
		if testHookReplace != nil {
			testHookReplace(s.path)
		}
		return s.unchanged()
	})
}

// testHookReplace, if set, runs just before the final check of replace.
var testHookReplace func(path string)

// writeNew writes data to the new file path, through a temporary file
// that is synced and renamed, so that path never holds part of data.
func writeNew(path string, data []byte, mode fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	f, err := createTemp(dir, base, mode)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	return commit(f, data, path, nil)
}

// commit writes data to the temporary file f, syncs and closes it, runs
// check (if not nil) and renames f to path, then syncs path's directory.
// The caller removes f if commit fails.
func commit(f *os.File, data []byte, path string, check func() error) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// Temporary files are named .<name>.mcpship-<digits>.tmp, beside the file
// they will replace.
const tempMark, tempExt = ".mcpship-", ".tmp"

// createTemp creates a new temporary file for name in dir with mode, less
// the umask, from the start: it never holds data under a wider mode.
func createTemp(dir, name string, mode fs.FileMode) (*os.File, error) {
	for {
		p := filepath.Join(dir, "."+name+tempMark+strconv.FormatUint(uint64(rand.Uint32()), 10)+tempExt)
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// removeTemps removes the temporary files for name in dir (for any name
// if name is ""), left behind by runs of mcpship that were killed. The
// caller holds the lock of the file, so no other run is writing one.
func removeTemps(dir, name string) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range des {
		n, ok := strings.CutSuffix(de.Name(), tempExt)
		i := strings.LastIndex(n, tempMark)
		if !ok || i < 1 || n[0] != '.' || !allDigits(n[i+len(tempMark):]) || !de.Type().IsRegular() {
			continue
		}
		if name == "" || n[1:i] == name {
			os.Remove(filepath.Join(dir, de.Name()))
		}
	}
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

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

// syncDir makes a rename in dir durable where the OS allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // not supported everywhere; best effort
		d.Close()
	}
}
