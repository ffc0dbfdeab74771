package installed

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// An add marks a version it is about to unpack with a file
// ROOT/NAME/.pending-VERSION, and removes the mark once the install is
// recorded (or undone). A mark that is still there under the lock is what
// an add that was stopped (killed while unpacking or checking) left.
const pendingPrefix = ".pending-"

// unpackPrefix starts the name of a folder that mcpb's Unpack fills
// before it renames it to the version's folder.
const unpackPrefix = ".unpack-"

// MarkPending marks version of the server name as being installed; call
// it, holding [Lock], before the version's folder is unpacked.
func MarkPending(root, name, version string) error {
	if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, name, pendingPrefix+version), nil, 0o644)
}

// Unmark removes the mark of [MarkPending]: the install of version is
// recorded, or undone.
func Unmark(root, name, version string) {
	os.Remove(filepath.Join(root, name, pendingPrefix+version))
}

// Sweep removes what adds that were stopped left under root, for the
// server name, or for every server when name is "": folders that an
// unpacking cut short (NAME/.unpack-*), the version folders that a mark of
// [MarkPending] names, and every version folder of a server with no
// record. A version folder for which inUse reports true (an assistant's
// entry runs it) is kept. The caller holds [Lock]. Sweep returns the
// folders it removed.
func Sweep(root, name string, inUse func(dir string) bool) ([]string, error) {
	names := []string{name}
	if name == "" {
		entries, err := os.ReadDir(root)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		names = names[:0]
		for _, e := range entries {
			if e.IsDir() && CheckName("server name", e.Name()) == nil {
				names = append(names, e.Name())
			}
		}
	}
	var removed []string
	var errs []error
	for _, n := range names {
		r, errs1 := sweepOne(root, n, inUse)
		removed = append(removed, r...)
		errs = append(errs, errs1...)
	}
	return removed, errors.Join(errs...)
}

func sweepOne(root, name string, inUse func(dir string) bool) (removed []string, errs []error) {
	if CheckName("server name", name) != nil {
		return nil, nil
	}
	dir := filepath.Join(root, name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		return nil, errs
	}
	rec, err := Load(root, name)
	if err != nil {
		return nil, []error{err} // an unreadable record: leave it all as it is
	}
	remove := func(path string) {
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
			return
		}
		removed = append(removed, path)
	}
	var stale []string // version folders
	for _, e := range entries {
		switch n := e.Name(); {
		case strings.HasPrefix(n, unpackPrefix):
			remove(filepath.Join(dir, n))
		case strings.HasPrefix(n, pendingPrefix):
			v := strings.TrimPrefix(n, pendingPrefix)
			switch {
			case CheckName("version", v) != nil:
			case rec != nil && rec.Dir == Dir(root, name, v):
				Unmark(root, name, v) // stopped once the install was recorded
			default:
				stale = append(stale, Dir(root, name, v))
			}
		case rec == nil && e.IsDir() && isFile(filepath.Join(dir, n, "manifest.json")):
			// An unpacked bundle, not any folder that happens to be here.
			stale = append(stale, filepath.Join(dir, n))
		}
	}
	slices.Sort(stale)
	for _, d := range slices.Compact(stale) {
		if inUse != nil && inUse(d) {
			continue
		}
		if _, err := os.Lstat(d); err == nil {
			remove(d)
		}
		Unmark(root, name, filepath.Base(d))
	}
	if rec == nil && len(removed) > 0 {
		if left, err := os.ReadDir(dir); err == nil && len(left) == 0 && os.Remove(dir) == nil {
			removed = append(removed[:0:0], dir) // the server's whole folder
		}
	}
	return removed, errs
}

func isFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}
