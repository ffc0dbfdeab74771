package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// resolveLinks follows symbolic links from p to the file they name, which
// need not exist yet, so that the link itself is kept.
func resolveLinks(p string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		dst, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dst) {
			dst = filepath.Join(filepath.Dir(p), dst)
		}
		p = dst
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", p)
}

// readFile returns the contents of path, and whether it exists.
func readFile(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// writeAtomic replaces path with data: it writes a temporary file in the
// same directory, syncs it, checks that path still holds old (or still does
// not exist), and renames the temporary file over path. An existing file
// keeps its permissions; a new one gets mode, and its missing parent
// directories are created with dirMode.
func writeAtomic(path string, data, old []byte, existed bool, mode, dirMode fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	} else if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".mcpship-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	same, exists, err := holds(path, old)
	if err != nil {
		return err
	}
	if exists != existed || !same {
		return fmt.Errorf("%s: changed by another program while mcpship was editing it; nothing was written, run the command again", path)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// holds reports whether path exists and whether it holds exactly data,
// reading it a block at a time.
func holds(path string, data []byte) (same, exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return len(data) == 0, false, nil
	}
	if err != nil {
		return false, false, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := io.ReadFull(f, buf)
		if n > len(data) || !bytes.Equal(buf[:n], data[:n]) {
			return false, true, nil
		}
		data = data[n:]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return len(data) == 0, true, nil
		}
		if err != nil {
			return false, true, err
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
