package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// realPath returns the file that p names, as the kernel finds it: the
// directories leading to it with every symbolic link resolved
// (filepath.EvalSymlinks), then the chain of links from the file itself,
// each relative target read from the directory holding its link. The file
// need not exist yet: a link to a missing file resolves to that file, so
// that the link itself is kept. Directories that do not exist yet are
// kept as spelled.
//
// Locks, backups and the ledger are keyed by the real path, so that every
// spelling of one file shares them.
func realPath(p string) (string, error) {
	if !filepath.IsAbs(p) {
		// Not filepath.Abs, which cleans p.
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		p = wd + string(filepath.Separator) + p
	}
	for range 40 {
		dir, base := splitLast(p)
		if base == "." || base == ".." {
			return evalDir(p)
		}
		dir, err := evalDir(dir)
		if err != nil {
			return "", err
		}
		p = filepath.Join(dir, base)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		dst, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dst) {
			// Not filepath.Join: ".." after a link in dst is the kernel's
			// business, so dst is not cleaned.
			dst = dir + string(filepath.Separator) + dst
		}
		p = dst
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", p)
}

// evalDir resolves the links in dir. The part of dir that does not exist
// yet is kept as spelled, below its real existing ancestor.
func evalDir(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return real, err
	}
	parent, base := splitLast(dir)
	if parent == dir {
		return dir, nil
	}
	if parent, err = evalDir(parent); err != nil {
		return "", err
	}
	return filepath.Join(parent, base), nil
}

// splitLast splits p before its last element without cleaning it, since
// cleaning "link/.." is not what the kernel does.
func splitLast(p string) (dir, base string) {
	for len(p) > 0 && os.IsPathSeparator(p[len(p)-1]) {
		p = p[:len(p)-1]
	}
	vol := filepath.VolumeName(p)
	i := len(p) - 1
	for i >= len(vol) && !os.IsPathSeparator(p[i]) {
		i--
	}
	if i < len(vol) {
		return p, ""
	}
	dir = p[:i]
	if len(dir) == len(vol) {
		dir += string(filepath.Separator)
	}
	return dir, p[i+1:]
}
