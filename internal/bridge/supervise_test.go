//go:build linux

package bridge

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRestartAfterExit crashes the shared child in a call: the call fails
// saying so, the bridge is unhealthy until the child is started again on
// its own (no request needed), in a new process, and then calls work.
func TestRestartAfterExit(t *testing.T) {
	s := start(t, Options{}, "serve")
	before, _ := s.pid(t, modern)
	if got := s.call(t, modern, "crash", `{}`); !strings.HasPrefix(got, "error: the server command exited during the request: it exited: exit status 2; it is started again in ") {
		t.Errorf("the call that crashed: %q", got)
	}
	// The restart needs no request: wait for it without calling.
	waitFor(t, "the child is up again", func() bool {
		why, _ := s.b.Health()
		return why == ""
	})
	after, got := s.pid(t, modern)
	if after == 0 || after == before {
		t.Errorf("whoami after the restart: %q; the child before was %d", got, before)
	}
	if alive(before) {
		t.Errorf("the child that exited, %d, still runs", before)
	}
	if !strings.Contains(s.log.String(), "the server command is down; it is started again after a backoff") {
		t.Errorf("the exit is not logged:\n%s", s.log)
	}
}

// TestCrashLoop serves a child that starts once and then exits 3 at every
// start: after five exits in a row the bridge logs a crash loop, its
// health says so, and calls fail at once with the reason.
func TestCrashLoop(t *testing.T) {
	s := start(t, Options{supervision: fast()}, "serve", filepath.Join(t.TempDir(), "started"))
	s.call(t, modern, "crash", `{}`)
	waitFor(t, "the crash loop is logged", func() bool { return strings.Contains(s.log.String(), "the server command keeps failing") })
	why, retry := s.b.Health()
	if !strings.HasPrefix(why, "the server command keeps failing (5 times in a row soon after it started); it is started again every 30s, next in ") || retry <= 0 || retry > maxBackoff {
		t.Errorf("Health() in the crash loop = %q, %v", why, retry)
	}
	if strings.Contains(why, "exit status") || strings.Contains(why, "refusing") {
		t.Errorf("Health() shows the exit status or stderr, which /healthz shows without a token: %q", why)
	}
	got := s.call(t, modern, "echo", `{"text":"x"}`)
	if !strings.HasPrefix(got, "error: the server command is down (") || !strings.Contains(got, "exit status 3") || !strings.Contains(got, "try again then") {
		t.Errorf("a call in the crash loop: %q", got)
	}
	if n := strings.Count(s.log.String(), "keeps failing"); n != 1 {
		t.Errorf("the crash loop is logged %d times, want once:\n%s", n, s.log)
	}
	if !strings.Contains(s.stderr.String(), "child: refusing to start again") {
		t.Errorf("the child's stderr is not passed on: %q", s.stderr)
	}
}

// TestBackoff checks the backoff after each exit of a child: it doubles
// from 250ms, five exits in a row soon after their start are a crash
// loop (logged once) that waits 30s, and a run of 30s starts the count
// again.
func TestBackoff(t *testing.T) {
	log := &buffer{}
	b := &Bridge{log: slog.New(slog.NewTextHandler(log, nil)), sup: defaultSupervision}
	c := b.newChild("k", nil) // not the first: nothing starts it again on its own
	exit := func(ranFor time.Duration) time.Duration {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.startedAt = time.Now().Add(-ranFor)
		c.failed("it exited")
		return time.Until(c.retryAt)
	}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		// Each run but the first start lasted a second, less than
		// stableAfter.
		if got := exit(time.Second); got > w || got < w-time.Second {
			t.Errorf("backoff after exit %d: %v, want %v", i+1, got, w)
		}
	}
	if n := strings.Count(log.String(), "keeps failing"); n != 1 || c.crashes != 6 {
		t.Errorf("after 6 exits: crashes %d, crash loop logged %d times, want 6 and once:\n%s", c.crashes, n, log)
	}
	if got := exit(stableAfter); got > firstBackoff || c.crashes != 1 {
		t.Errorf("after a run of %v: backoff %v and %d crashes, want %v and 1", stableAfter, got, c.crashes, firstBackoff)
	}
	c.shutdown()
	if _, err := c.get(context.Background()); err == nil || !strings.Contains(err.Error(), "was stopped") {
		t.Errorf("get of a child shut down: %v", err)
	}
}

// TestHungChild serves a child that answers initialize and then nothing:
// a request fails after CallTimeout, and the child, which answers no ping
// either, is stopped, its process ended, and started again.
func TestHungChild(t *testing.T) {
	s := start(t, Options{CallTimeout: 300 * time.Millisecond, StartTimeout: time.Second, supervision: fast()}, "hang")
	h := s.legacy(t, nil)
	msgs, _ := s.post(t, h, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if len(msgs) != 1 || msgs[0].Error == nil || string(msgs[0].ID) != "5" ||
		msgs[0].Error.Message != "the server command did not answer tools/list within 300ms (mcpship serve --call-timeout); the request was cancelled" {
		t.Errorf("tools/list of a hung child: %+v", msgs)
	}
	waitFor(t, "the hung child is stopped", func() bool {
		return strings.Contains(s.log.String(), "does not answer ping either; it is stopped and started again")
	})
	m := regexp.MustCompile(`hang: pid (\d+)`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("the hung child wrote no pid: %q", s.stderr)
	}
	pid, _ := strconv.Atoi(m[1])
	waitFor(t, "the hung child's process has ended", func() bool { return !alive(pid) })
	// It is started again (and hangs again): a second child wrote its pid.
	waitFor(t, "the hung child is started again", func() bool { return strings.Count(s.stderr.String(), "hang: pid ") >= 2 })
}

// TestCallTimeout fails a call that the child does not answer within
// CallTimeout, though it answers ping: the child is kept.
func TestCallTimeout(t *testing.T) {
	s := start(t, Options{CallTimeout: 300 * time.Millisecond}, "serve")
	before, _ := s.pid(t, modern)
	if got := s.call(t, modern, "slow", `{}`); got != "error: the server command did not answer tools/call within 300ms (mcpship serve --call-timeout); the request was cancelled" {
		t.Errorf("a slow call: %q", got)
	}
	// The bridge pings the child after the timeout; it answers, so the
	// same child answers the next call.
	if after, got := s.pid(t, modern); after != before {
		t.Errorf("whoami after the timeout: %q, want the child %d", got, before)
	}
	if strings.Contains(s.log.String(), "does not answer ping") {
		t.Errorf("a child that answers ping was stopped:\n%s", s.log)
	}
}

// TestGarbage serves a child that writes lines that are not JSON-RPC on
// stdout, before its messages and during a call: they are logged and
// skipped, and the calls work.
func TestGarbage(t *testing.T) {
	s := start(t, Options{}, "garbage")
	for range 3 {
		if got := s.call(t, modern, "noise", `{}`); got != "quiet again" {
			t.Errorf("a call of a noisy child: %q", got)
		}
	}
	for _, want := range []string{"not a JSON-RPC message; it was skipped", "starting up (this is not JSON)", "debug: about to answer"} {
		if !strings.Contains(s.log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, s.log)
		}
	}
}

// TestStartErrors checks Start's errors: a command that is not there, one
// that exits before initialize (with its stderr), one that never answers
// initialize.
func TestStartErrors(t *testing.T) {
	_, err := startErr(t, Options{Command: []string{filepath.Join(t.TempDir(), "missing")}})
	var se *StartError
	if !errors.As(err, &se) || !se.NotFound || !strings.Contains(err.Error(), "give a program on PATH, or its path, after --") {
		t.Errorf("a missing command: %v", err)
	}
	_, err = startErr(t, Options{Command: childCommand(t, "exit")})
	if !errors.As(err, &se) || se.NotFound || !strings.Contains(err.Error(), "does not speak MCP over stdio: it exited (exit status 1) before it answered initialize; its stderr ended with: child: no luck today") {
		t.Errorf("a command that exits: %v", err)
	}
	_, err = startErr(t, Options{Command: childCommand(t, "silent"), StartTimeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "it did not answer initialize within 300ms (mcpship serve --start-timeout)") {
		t.Errorf("a command that never answers: %v", err)
	}
	if _, err := Start(Options{}); err == nil {
		t.Error("Start without a command succeeded")
	}
}

// fast returns the default supervision with short waits: the first
// backoff, the grace of a stopped child and the wait for a ping. The
// crash loop's backoff, which messages name, stays.
func fast() *supervision {
	s := defaultSupervision
	s.firstBackoff, s.stopGrace, s.pingTimeout = 10*time.Millisecond, 100*time.Millisecond, 200*time.Millisecond
	return &s
}
