//go:build linux

package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
	"github.com/mcpship/mcpship/mcp"
)

// alive reports whether pid is a live process: it exists and is not a
// zombie waiting to be collected.
func alive(pid int) (bool, string) {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false, "gone"
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, "gone"
	}
	s := string(b)
	state := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0]
	return state != "Z" && state != "X", "state " + state
}

// wantReaped checks that each pid is gone from /proc within 2s, not left
// a zombie: mcpship, as subreaper, must wait for the orphans it stops.
func wantReaped(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		testutil.WaitFor(t, 2*time.Second, fmt.Sprintf("process %d to be collected", pid), func() bool {
			_, err := os.Stat("/proc/" + strconv.Itoa(pid))
			return err != nil
		})
	}
}

func wantAllDead(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if ok, state := alive(pid); ok {
			t.Errorf("process %d is still running (%s)", pid, state)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func TestTimeoutStopsTheWholeGroup(t *testing.T) {
	t.Parallel() // slow: it waits out timeouts
	c := serve(t, "--manifest", standinManifest)
	for _, stubborn := range []bool{false, true} {
		pidfile := filepath.Join(t.TempDir(), "pids")
		words := []string{"sleep", pidfile}
		if stubborn {
			words = append(words, "stubborn") // the grandchild ignores SIGTERM
		}
		start := time.Now()
		res := callTool(t, c, "fast", map[string]any{"words": words})
		elapsed := time.Since(start)
		isError(t, res, "timed out after 1s")
		pids := readPids(t, pidfile, 3) // leader, child, grandchild
		wantAllDead(t, pids)
		wantReaped(t, pids)
		min := time.Second
		if stubborn {
			min += 2 * time.Second // SIGKILL comes KillGrace after SIGTERM
		}
		if elapsed < min || elapsed > min+5*time.Second {
			t.Errorf("stubborn=%v: the call took %v, want about %v", stubborn, elapsed, min)
		}
	}
}

func TestCancelStopsTheWholeGroup(t *testing.T) {
	c := serve(t, "--manifest", standinManifest)
	pidfile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "slow", map[string]any{"words": []string{"sleep", pidfile}})
		errc <- err
	}()
	pids := readPids(t, pidfile, 3)
	for _, pid := range pids {
		if ok, state := alive(pid); !ok {
			t.Fatalf("process %d is not running before the cancel (%s)", pid, state)
		}
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool after cancel: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			wantAllDead(t, pids)
		}
	})
	testutil.WaitFor(t, 5*time.Second, "the call's processes to end after the cancel", func() bool {
		for _, pid := range pids {
			if ok, _ := alive(pid); ok {
				return false
			}
		}
		return true
	})
	wantReaped(t, pids)
	// The server goes on serving.
	wantArgv(t, callTool(t, c, "slow", map[string]any{"words": []string{"after"}}), "after")
}

// serveRunningCall starts mcpship serve on the stand-in manifest with
// opts, and in the background a call of its slow tool with the words
// mode, a pid file and more; it returns once want of the call's
// processes have written their pids there. The caller closes the client.
func serveRunningCall(t *testing.T, opts *mcp.ClientOptions, want int, mode string, more ...string) (*exec.Cmd, *mcp.Client, []int) {
	t.Helper()
	cmd, c := startCommand(t, opts, binPath, "serve", "--manifest", standinManifest)
	pidfile := filepath.Join(t.TempDir(), "pids")
	words := append([]string{mode, pidfile}, more...)
	go func() {
		_, _ = c.CallTool(context.Background(), "slow", map[string]any{"words": words})
	}()
	return cmd, c, readPids(t, pidfile, want)
}

func TestNoOrphansAfterNormalExit(t *testing.T) {
	c := serve(t, "--manifest", standinManifest)
	pidfile := filepath.Join(t.TempDir(), "pids")
	start := time.Now()
	res := callTool(t, c, "slow", map[string]any{"words": []string{"background", pidfile}})
	ok(t, res)
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("the call took %v; a leftover process should be stopped at once", d)
	}
	pids := readPids(t, pidfile, 2)
	wantAllDead(t, pids)
	wantReaped(t, pids)
}

// TestShutdownStopsRunningCalls stops mcpship with SIGTERM while a call
// runs whose grandchild ignores SIGTERM: mcpship must stop the group,
// SIGKILL included, before it exits.
func TestShutdownStopsRunningCalls(t *testing.T) {
	t.Parallel() // slow: it waits out the shutdown grace periods
	cmd, c, pids := serveRunningCall(t, &mcp.ClientOptions{TerminateTimeout: 15 * time.Second}, 3, "sleep", "stubborn")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	defer func() { t.Logf("close took %v", time.Since(t0)) }()
	if err := c.Close(); err != nil {
		t.Errorf("mcpship exited with %v; stderr:\n%s", err, c.Stderr())
	}
	wantAllDead(t, pids)
}

// TestNoOrphansOutsideTheGroup runs a command that leaves a child in a
// session of its own (setsid), out of reach of its process group: the
// child is stopped all the same when the call ends.
func TestNoOrphansOutsideTheGroup(t *testing.T) {
	c := serve(t, "--manifest", standinManifest)
	pidfile := filepath.Join(t.TempDir(), "pids")
	ok(t, callTool(t, c, "slow", map[string]any{"words": []string{"escape", pidfile}}))
	pids := readPids(t, pidfile, 2)
	wantAllDead(t, pids)
	wantReaped(t, pids)
}

// TestKilledServerKillsItsCommands kills mcpship with SIGKILL while a call
// runs: the kernel then SIGKILLs the command (its parent-death signal).
// What the command started itself is not covered (docs/manifest.md says
// so); the test stops it.
func TestKilledServerKillsItsCommands(t *testing.T) {
	cmd, c, pids := serveRunningCall(t, nil, 3, "sleep")
	defer func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	testutil.WaitFor(t, 5*time.Second, fmt.Sprintf("the command %d to end after mcpship was killed", pids[0]), func() bool {
		ok, _ := alive(pids[0])
		return !ok
	})
}

// TestNoOrphanCaughtInExec runs, many times, a command that leaves behind
// a child in a session of its own that execs itself over and over. While
// a process is in execve its environment reads empty, so the marker that
// the sweep looks for does not show for a moment: the sweep must look
// again rather than take it for a process of no call's.
func TestNoOrphanCaughtInExec(t *testing.T) {
	c := serve(t, "--manifest", standinManifest)
	for i := range 30 {
		pidfile := filepath.Join(t.TempDir(), "pids")
		ok(t, callTool(t, c, "slow", map[string]any{"words": []string{"reexec", pidfile}}))
		pids := readPids(t, pidfile, 2)
		if alive, state := alive(pids[1]); alive {
			_ = syscall.Kill(pids[1], syscall.SIGKILL)
			t.Fatalf("call %d: the child that execs itself, %d, still runs after the call (%s)", i+1, pids[1], state)
		}
		wantReaped(t, pids)
	}
}

// TestSecondSignalWhileStoppingCalls sends SIGTERM to mcpship while a
// call runs whose grandchild ignores SIGTERM, and once the call's leader
// has been stopped and mcpship waits to SIGKILL the grandchild, SIGTERM
// again (a second Ctrl-C): mcpship must still stop the grandchild before
// it exits, not die of the second signal and leave it running.
func TestSecondSignalWhileStoppingCalls(t *testing.T) {
	t.Parallel() // slow: it waits out the shutdown grace periods
	// The call's leader, its child and the grandchild that ignores SIGTERM.
	cmd, c, pids := serveRunningCall(t, &mcp.ClientOptions{TerminateTimeout: 15 * time.Second}, 3, "sleep", "stubborn")
	defer func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the call's leader and child to end after SIGTERM", func() bool {
		leader, _ := alive(pids[0])
		child, _ := alive(pids[1])
		return !leader && !child
	})
	if ok, state := alive(pids[2]); !ok {
		t.Fatalf("the stubborn grandchild is gone (%s) before mcpship's grace period ended", state)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	if ok, state := alive(pids[2]); ok {
		t.Errorf("the stubborn grandchild %d still runs (%s) after mcpship exited on a second SIGTERM", pids[2], state)
	}
}
