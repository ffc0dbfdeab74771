package wrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// helpEnv asks programs for plain, wide, uncoloured help that does not
// wait in a pager.
var helpEnv = []string{"COLUMNS=100", "NO_COLOR=1", "TERM=dumb", "CLICOLOR=0", "PAGER=cat", "GIT_PAGER=cat"}

// errTimeout is returned by runHelp when the program did not finish in time.
var errTimeout = errors.New("timed out")

// runHelp runs argv directly (no shell) with stdin on the null device and
// returns what it printed: standard output, or standard error when that
// holds the help (Go's flag package prints there). The whole process
// group is stopped at the timeout.
func runHelp(ctx context.Context, argv []string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), helpEnv...)
	var stdout, stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	err := cmd.Run()
	if cmd.Process != nil {
		// What the program started and left running (a child holding
		// its output open, a pager) goes with it.
		killGroup(cmd.Process.Pid)
	}
	if ctx.Err() == context.DeadlineExceeded {
		return "", errTimeout
	}
	var exit *exec.ExitError
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // the program exited; a child of it kept its output open
	}
	if err != nil && !errors.As(err, &exit) {
		return "", err
	}
	out, errOut := stdout.String(), stderr.String()
	if strings.Count(strings.TrimSpace(out), "\n") < 1 && strings.Count(errOut, "\n") > strings.Count(out, "\n") {
		return errOut, nil
	}
	return out, nil
}

// limitedBuffer keeps the first 1 MiB written to it: more is not help.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 1<<20 - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// describeRun says what a help run was, for messages: "fd --help".
func describeRun(argv []string) string {
	return fmt.Sprintf("%q", strings.Join(argv, " "))
}
