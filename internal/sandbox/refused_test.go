package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("paths are Unix ones")
	}
	dir, tmp := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0o500)
	defer os.Chmod(locked, 0o700)
	for _, tc := range []struct{ stderr, want string }{
		{"sh: 1: cannot create new.txt: Permission denied\n", "sh: 1: cannot create new.txt: Permission denied"},
		{"mv: cannot move 'keep.txt' to 'moved.txt': Permission denied\n", "mv: cannot move 'keep.txt' to 'moved.txt': Permission denied"},
		{"PermissionError: [Errno 13] Permission denied\n", "PermissionError: [Errno 13] Permission denied"},
		{"open " + filepath.Join(dir, "x") + ": permission denied\n", "open " + filepath.Join(dir, "x") + ": permission denied"},
		{"warning: all fine\n", ""},
		{"open " + filepath.Join(tmp, "x") + ": permission denied\n", ""},
	} {
		if got := Refused(tc.stderr, dir, []string{tmp}); got != tc.want {
			t.Errorf("Refused(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
	// A path mcpship cannot write either: the file permissions explain
	// the refusal (for a user other than root).
	if os.Geteuid() != 0 {
		if got := Refused("touch: cannot touch '"+filepath.Join(locked, "f")+"': Permission denied\n", dir, nil); got != "" {
			t.Errorf("a refusal the permissions explain counted: %q", got)
		}
	}
}
