package tests

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// newShellPATH is the PATH of a shell started afresh: the system's
// directories, without the directory of the mcpship under test.
const newShellPATH = "/usr/local/bin:/usr/bin:/bin"

// TestQuickStartLastsInANewShell follows the README's quick start: mcpship
// on PATH for one shell only, registered, then checked from a shell that
// lacks that PATH, as an assistant started later would be.
func TestQuickStartLastsInANewShell(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the PATH of a new shell is a Unix one here")
	}
	s := newSandbox(t)
	newShell := func(args ...string) *exec.Cmd {
		c := s.cmd(args...)
		for i, kv := range c.Env {
			if strings.HasPrefix(kv, "PATH=") {
				c.Env[i] = "PATH=" + newShellPATH
			}
		}
		return c
	}
	// A bare --command that is not on this PATH gets a warning that says
	// how to make it last: the client would not find it either.
	out, err := newShell("init", "--command", "mcpship", "--manifest", "", "--dry-run").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "warning: --command mcpship is not found on this PATH") ||
		!strings.Contains(string(out), "leave --command out to register the absolute path of this binary") {
		t.Fatalf("init --command mcpship without it on PATH: %v, want a warning that says what to do:\n%s", err, out)
	}

	// The quick start's: this binary, by its absolute path, in a file of
	// the user's alone.
	withPATH := s.cmd("init", "--scope", "local")
	withPATH.Env = append(withPATH.Env, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := withPATH.CombinedOutput(); err != nil || strings.Contains(string(out), "warning") {
		t.Fatalf("init --scope local: %v\n%s", err, out)
	}
	out, err = newShell("doctor", "--name", "mcpship").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "  ok      mcpship: mcpship ") {
		t.Fatalf("doctor from a new shell: %v\n%s", err, out)
	}
}

// TestInitRefusesGoRun runs init through "go run" twice: the first binary
// is in go's work directory, deleted when it exits; the second, since Go
// 1.24, is run from the build cache, trimmed when unused. Neither can be
// registered.
func TestInitRefusesGoRun(t *testing.T) {
	if testing.Short() {
		t.Skip("links mcpship with go run")
	}
	proj := t.TempDir()
	for i := range 2 {
		// The tags of the binary TestMain built, so that only the link is new.
		c := exec.Command("go", "run", "-tags=urfave_cli_no_docs", "github.com/mcpship/mcpship/cmd/mcpship",
			"init", "--dry-run", "--project", proj, "--name", "gorun", "--manifest", "")
		out, err := c.CombinedOutput()
		if exitCode(err) == 0 || !strings.Contains(string(out), "binary of 'go run'") {
			t.Fatalf("go run ... init, run %d: %v, want it refused:\n%s", i+1, err, out)
		}
		t.Logf("run %d: %s", i+1, strings.TrimSpace(string(out)))
	}
}

// exitCode is the exit status of a command that err came from: 0 for
// none, -1 when it did not run.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}
