//go:build !windows

package wrap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A program that prints its help and exits, leaving a child that holds
// its output open, gives its help, and the child is stopped.
func TestRunHelpStopsWhatTheProgramLeftRunning(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	script := filepath.Join(dir, "forks")
	body := "#!/bin/sh\nsleep 300 &\necho $! > " + pidFile + "\necho 'Usage: forks [OPTIONS]'\necho 'Options:'\necho '  -v, --verbose  be loud'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	text, err := runHelp(context.Background(), []string{script, "--help"}, time.Minute)
	if err != nil || !strings.Contains(text, "--verbose") {
		t.Fatalf("runHelp: %v, %q: want the help", err, text)
	}
	pid, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	// Gone, or a zombie waiting for a parent that does not reap, once
	// the signal has been delivered.
	var stat []byte
	for range 100 {
		stat, err = os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("the child %s is still running: %s", strings.TrimSpace(string(pid)), stat)
}
