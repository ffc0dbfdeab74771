// Package atomicfile writes whole files so that a reader finds either the
// old content or the new, never a part: the data goes to a temporary file
// beside the target, which is synced and then renamed (or linked) into
// place.
package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Options say how [WriteWith] writes a file.
type Options struct {
	// Perm is the new file's mode. The temporary file is created with
	// it, less the umask, so that the data is never readable under a
	// wider mode; Prepare may change it.
	Perm fs.FileMode
	// Prepare, if set, runs on the temporary file before the data is
	// written: to give it the mode, or the owner, of the file it
	// replaces.
	Prepare func(tmp *os.File) error
	// Check, if set, runs once the temporary file is synced and closed,
	// just before it is put in place: to see that the file it replaces
	// is still the one the data was made from. An error from it leaves
	// the file as it is, and is returned.
	Check func() error
	// New refuses to replace a file: if one exists, or appears while
	// the data is written, it is left as it is and the error wraps
	// [fs.ErrExist].
	New bool
}

// Write replaces file, or creates it, with data and mode perm (the umask
// does not apply). The directory must exist.
func Write(file string, data []byte, perm fs.FileMode) error {
	return WriteWith(file, data, Options{Perm: perm, Prepare: chmod(perm)})
}

// WriteNew is [Write] for a file that must not exist yet. If file exists,
// or appears while data is written, it is left as it is and the error
// wraps [fs.ErrExist].
func WriteNew(file string, data []byte, perm fs.FileMode) error {
	return WriteWith(file, data, Options{Perm: perm, Prepare: chmod(perm), New: true})
}

func chmod(perm fs.FileMode) func(*os.File) error {
	return func(f *os.File) error { return f.Chmod(perm) }
}

// WriteWith writes data to file as o says: to a temporary file in the
// same directory (which must exist), which is synced, checked and then
// renamed over file, or linked to it for a new file. The directory is
// synced after, where the system allows it.
func WriteWith(file string, data []byte, o Options) (err error) {
	dir, base := filepath.Split(file)
	if dir == "" {
		dir = "."
	}
	if o.New {
		if _, err := os.Lstat(file); err == nil {
			return &fs.PathError{Op: "create", Path: file, Err: fs.ErrExist}
		}
	}
	f, err := createTemp(dir, base, o.Perm)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone after a rename; the spare name after a link
	if o.Prepare != nil {
		err = o.Prepare(f)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && o.Check != nil {
		err = o.Check()
	}
	if err != nil {
		return err
	}
	place := os.Rename
	if o.New {
		place = os.Link // a link, unlike a rename, fails if the name is taken
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

// Temporary files are named .<name>.mcpship-<digits>.tmp, beside the file
// they will replace.
const tempMark, tempExt = ".mcpship-", ".tmp"

// createTemp creates a new temporary file for name in dir with perm, less
// the umask, from the start.
func createTemp(dir, name string, perm fs.FileMode) (*os.File, error) {
	for {
		p := filepath.Join(dir, "."+name+tempMark+strconv.FormatUint(uint64(rand.Uint32()), 10)+tempExt)
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// RemoveTemps removes the temporary files of name in dir (of any name if
// name is ""), left behind by a writer that was killed. Call it only
// where no other writer can be writing the file, as under its lock.
func RemoveTemps(dir, name string) {
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

// syncDir makes a new name in dir durable where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // not supported everywhere; best effort
		d.Close()
	}
}
