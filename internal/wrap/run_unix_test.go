//go:build !windows

package wrap

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
)

// A program that prints its help and exits, leaving a child that holds
// its output open, gives its help, and the child is stopped. The help
// names the child's pid: a help run may not write a file (the read-only
// sandbox).
func TestRunHelpStopsWhatTheProgramLeftRunning(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "forks")
	body := "#!/bin/sh\nsleep 300 &\necho \"child=$!\"\necho 'Usage: forks [OPTIONS]'\necho 'Options:'\necho '  -v, --verbose  be loud'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	text, err := runHelp(context.Background(), []string{script, "--help"}, time.Minute)
	if err != nil || !strings.Contains(text, "--verbose") {
		t.Fatalf("runHelp: %v, %q: want the help", err, text)
	}
	_, rest, _ := strings.Cut(text, "child=")
	pid, _, _ := strings.Cut(rest, "\n")
	if pid == "" {
		t.Fatalf("the help names no child: %q", text)
	}
	// Gone, or a zombie waiting for a parent that does not reap, once
	// the signal has been delivered.
	testutil.WaitFor(t, 10*time.Second, "the child "+strings.TrimSpace(string(pid))+" to end", func() bool {
		stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/stat")
		return err != nil || strings.Contains(string(stat), ") Z ")
	})
}

// Help that never ends is stopped once it passes the limit, not left to
// run until the timeout.
func TestRunHelpStopsEndlessOutput(t *testing.T) {
	script := filepath.Join(t.TempDir(), "endless")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'Usage: endless [OPTIONS]'\nexec yes '  --foo BAR   a flag'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := runHelp(context.Background(), []string{script, "--help"}, 10*time.Minute)
	if !errors.Is(err, errTooLong) {
		t.Errorf("runHelp: %v, want %v", err, errTooLong)
	}
}
