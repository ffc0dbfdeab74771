package wrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpship/mcpship/internal/sandbox"
)

// helpEnv asks programs for plain, wide, uncoloured help that does not
// wait in a pager.
var helpEnv = []string{"COLUMNS=100", "NO_COLOR=1", "TERM=dumb", "CLICOLOR=0", "PAGER=cat", "GIT_PAGER=cat"}

// errTimeout is returned by runHelp when the program did not finish in
// time, errTooLong when it printed more than helpLimit bytes.
var (
	errTimeout = errors.New("timed out")
	errTooLong = errors.New("printed more than 1 MiB, which is not help")
)

// runHelp runs argv directly (no shell) with stdin on the null device and
// returns what it printed: standard output, or standard error when that
// holds the help (Go's flag package prints there). The whole process
// group is stopped at the timeout. Where it can (package sandbox), the
// program runs in the read-only sandbox, with a private TMPDIR and no
// network: reading help must change nothing.
func runHelp(ctx context.Context, argv []string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), helpEnv...)
	stdout, stderr := &limitedBuffer{full: cancel}, &limitedBuffer{full: cancel}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	var policy *sandbox.Policy
	if sandbox.Confines() {
		tmp, err := sandbox.TempDir()
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		cmd.Env = sandbox.Env(cmd.Env, tmp)
		policy = &sandbox.Policy{Writable: []string{tmp}}
	}
	err := sandbox.Do(policy, cmd.Run)
	if cmd.Process != nil {
		// What the program started and left running (a child holding
		// its output open, a pager) goes with it.
		killGroup(cmd.Process.Pid)
	}
	switch {
	case stdout.over.Load() || stderr.over.Load():
		return "", errTooLong
	case ctx.Err() == context.DeadlineExceeded:
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

// helpLimit is the most a help run may print: more is not help.
const helpLimit = 1 << 20

// limitedBuffer keeps the first helpLimit bytes written to it, and calls
// full (stopping the program) when more come. It is only an io.Writer:
// an embedded bytes.Buffer's ReadFrom would let io.Copy past the limit.
type limitedBuffer struct {
	buf  bytes.Buffer
	full func()
	over atomic.Bool
}

func (b *limitedBuffer) String() string { return b.buf.String() }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	room := helpLimit - b.buf.Len()
	b.buf.Write(p[:max(0, min(len(p), room))])
	if len(p) > room && !b.over.Swap(true) {
		b.full()
	}
	return len(p), nil
}

// describeRun says what a help run was, for messages: "fd --help".
func describeRun(argv []string) string {
	return fmt.Sprintf("%q", strings.Join(argv, " "))
}
