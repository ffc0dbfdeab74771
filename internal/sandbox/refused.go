package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// Refused returns the first line of a confined program's stderr that
// reports an access the sandbox refused, "" when none does. A refusal
// reads as "Permission denied" (EACCES) or "Operation not permitted"
// (EPERM); the line counts unless every path it names is in one of the
// writable folders or is one mcpship could not write either, so that
// the file permissions explain it. dir is the program's working folder,
// for the relative paths a line names.
func Refused(stderr, dir string, writable []string) string {
	for line := range strings.Lines(stderr) {
		line = strings.TrimSpace(line)
		lower := strings.ToLower(line)
		if !strings.Contains(lower, "permission denied") && !strings.Contains(lower, "operation not permitted") &&
			!strings.Contains(line, "EACCES") && !strings.Contains(line, "EPERM") {
			continue
		}
		if sandboxed(line, dir, writable) {
			return line
		}
	}
	return ""
}

// sandboxed reports whether the sandbox may have refused what line
// reports: it names no path, or one mcpship may write outside the
// writable folders.
func sandboxed(line, dir string, writable []string) bool {
	named := false
	for _, word := range strings.FieldsFunc(line, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\'' || r == '"' || r == '`' || r == ',' || r == '(' || r == ')' || r == '‘' || r == '’' || r == '“' || r == '”'
	}) {
		word = strings.TrimRight(word, ":.;")
		p := word
		if !filepath.IsAbs(p) {
			if dir == "" || word == "" {
				continue
			}
			p = filepath.Join(dir, word)
			if _, err := os.Lstat(p); err != nil {
				continue // a word, or a file the program could not make: nothing to tell
			}
		}
		named = true
		if within(p, writable) {
			continue
		}
		if canWrite(p) {
			return true
		}
	}
	return !named
}

func within(p string, dirs []string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// canWrite reports whether mcpship may write p, or the nearest folder
// above it that exists when p does not.
func canWrite(p string) bool {
	for {
		if _, err := os.Lstat(p); err == nil {
			return writeAccess(p)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}
