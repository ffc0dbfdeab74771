package worker

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxStampEntries bounds what a folder in RestartOn adds to a stamp: the
// files under it past that many are not looked at.
const maxStampEntries = 10000

// takeStamp describes the files a worker depends on, its executable and
// its RestartOn paths, by what stat says of each (or that it is
// missing): two stamps differ when any of them was changed, replaced,
// created or deleted. A pattern (with *, ? or [) stands for the paths it
// matches, and a folder for itself and everything under it.
func takeStamp(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		if !hasMeta(p) {
			stampPath(&b, p)
			continue
		}
		matches, _ := filepath.Glob(p) // checked when the manifest was loaded
		fmt.Fprintf(&b, "%s\x00%d\x00", p, len(matches))
		for _, m := range matches {
			stampPath(&b, m)
		}
	}
	return b.String()
}

// stampPath adds p to a stamp, and when p is a folder, what is under it.
func stampPath(b *strings.Builder, p string) {
	fi, err := os.Stat(p)
	if err != nil {
		fmt.Fprintf(b, "%s\x00-\x00", p)
		return
	}
	stampInfo(b, p, fi)
	if !fi.IsDir() {
		return
	}
	n := 0
	_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == p {
			return nil
		}
		if n++; n > maxStampEntries {
			return filepath.SkipAll
		}
		if info, err := d.Info(); err == nil {
			stampInfo(b, path, info)
		}
		return nil
	})
}

func stampInfo(b *strings.Builder, p string, fi os.FileInfo) {
	fmt.Fprintf(b, "%s\x00%d %o %d %s\x00", p, fi.Size(), fi.Mode(), fi.ModTime().UnixNano(), sysStat(fi))
}

// hasMeta reports whether p is a pattern of filepath.Match.
func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[`) }

// CheckPattern reports what is wrong with a RestartOn path that is a
// pattern, or nil.
func CheckPattern(p string) error {
	if !hasMeta(p) {
		return nil
	}
	_, err := filepath.Match(p, "")
	return err
}
