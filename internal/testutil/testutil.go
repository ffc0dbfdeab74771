// Package testutil holds the helpers the module's tests share: waiting
// for a condition, golden files with one -update flag, and writing test
// files.
package testutil

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// maxPoll is the longest [WaitFor] sleeps between two tries.
const maxPoll = 50 * time.Millisecond

// WaitFor calls cond until it returns true, and fails the test, naming
// what it waited for, if timeout passes first. It sleeps a millisecond
// after the first try, and twice as long after each next one up to 50ms,
// so that a quick condition is seen at once and a slow one is not asked
// too often. cond may fail the test itself on a state that must not
// happen while waiting. The timeout is a bound on a broken run, not a
// figure the test measures: give it room for a loaded machine.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for wait := time.Millisecond; !cond(); wait = min(2*wait, maxPoll) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", timeout, what)
		}
		time.Sleep(wait)
	}
}

// WriteFile writes data to name, a path inside dir (made, with its
// parents, if missing), with mode 0o644, and returns the path. It fails
// the test if it cannot.
func WriteFile(t testing.TB, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
