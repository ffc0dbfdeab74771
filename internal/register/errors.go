package register

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcpship/mcpship/installer"
)

// explain gives err, from changing t's file, the style of every error of
// these commands: which client and scope, what happened to what file, and
// what to do next. An error of the operating system about a path gets
// the next step its cause calls for.
func explain(t *installer.Target, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if hint := pathHint(t, pe); hint != "" {
			if err == error(pe) {
				err = fmt.Errorf("cannot %s %s: %v; %s", verb(pe.Op), subject(pe.Path), pe.Err, hint)
			} else {
				err = fmt.Errorf("%w; %s", err, hint)
			}
		}
	}
	return fmt.Errorf("%s %s: %w", t.Assistant.Name, t.Scope, err)
}

// subject names path for people: a temporary file of mcpship's own by the
// directory it is in.
func subject(path string) string {
	base := filepath.Base(path)
	if strings.Contains(base, ".mcpship-") && strings.HasSuffix(base, ".tmp") {
		return "a temporary file in " + filepath.Dir(path)
	}
	return path
}

func verb(op string) string {
	switch op {
	case "open":
		return "open"
	case "lstat", "stat":
		return "look up"
	case "rename":
		return "replace"
	case "mkdir":
		return "create the directory"
	}
	return op
}

// pathHint is the next step for the cause of pe, or "".
func pathHint(t *installer.Target, pe *fs.PathError) string {
	dir := filepath.Dir(pe.Path)
	other := "choose another --scope"
	if t.Scope != installer.ScopeUser {
		other = "choose another --project or --scope"
	}
	switch {
	case errors.Is(pe.Err, fs.ErrPermission):
		return fmt.Sprintf("check that you may write to %s and its directory (ls -ld %s), or %s", t.File, dir, other)
	case errors.Is(pe.Err, syscall.ENOTDIR):
		return fmt.Sprintf("%s is a file, not a directory: move it away, or %s", notDir(pe.Path), other)
	case errors.Is(pe.Err, syscall.ENOSPC):
		return "free some disk space and run the command again"
	case errors.Is(pe.Err, syscall.EROFS):
		return "the file system is read-only: " + other
	case errors.Is(pe.Err, syscall.ELOOP):
		return fmt.Sprintf("a symbolic link on the path %s loops; fix or remove it", pe.Path)
	}
	return ""
}

// notDir returns the first directory on path that is a file instead.
func notDir(path string) string {
	var dirs []string
	for d := filepath.Dir(path); d != filepath.Dir(d); d = filepath.Dir(d) {
		dirs = append(dirs, d)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if fi, err := os.Stat(dirs[i]); err == nil && !fi.IsDir() {
			return dirs[i]
		}
	}
	return "part of the path " + path
}
