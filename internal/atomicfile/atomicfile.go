// Package atomicfile writes whole files so that a reader finds either the
// old content or the new, never a part: the data goes to a temporary file
// beside the target, which is synced and then renamed (or linked) into
// place.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces file, or creates it, with data and mode perm. The
// directory must exist.
func Write(file string, data []byte, perm fs.FileMode) error {
	return write(file, data, perm, os.Rename)
}

// WriteNew is [Write] for a file that must not exist yet. If file exists,
// or appears while data is written, it is left as it is and the error
// wraps [fs.ErrExist].
func WriteNew(file string, data []byte, perm fs.FileMode) error {
	if _, err := os.Lstat(file); err == nil {
		return &fs.PathError{Op: "create", Path: file, Err: fs.ErrExist}
	}
	// A link, unlike a rename, fails if the name is taken.
	return write(file, data, perm, os.Link)
}

func write(file string, data []byte, perm fs.FileMode, place func(tmp, file string) error) (err error) {
	dir, base := filepath.Split(file)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone after a rename; the spare name after a link
	if _, err = f.Write(data); err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := place(f.Name(), file); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			// Name the file the caller asked for, not the temporary one.
			return &fs.PathError{Op: "write", Path: file, Err: le.Err}
		}
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a new name in dir durable where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // not supported everywhere; best effort
		d.Close()
	}
}
