package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps what the helper reported instead
// of failing the test that runs it.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// Fatalf records and ends the helper's goroutine, as testing's does.
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}

// run calls f with a recorder on its own goroutine, so that Fatalf's
// Goexit ends only f.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestWaitFor(t *testing.T) {
	n := 0
	r := run(t, func(tb testing.TB) {
		WaitFor(tb, time.Minute, "the third try", func() bool { n++; return n == 3 })
	})
	if r.fatal || n != 3 {
		t.Errorf("WaitFor on a condition true at the third try: tried %d times, failed %v %q", n, r.fatal, r.errors)
	}
	r = run(t, func(tb testing.TB) {
		WaitFor(tb, 0, "a condition never true", func() bool { return false })
	})
	if !r.fatal || len(r.errors) != 1 || !strings.Contains(r.errors[0], "a condition never true") {
		t.Errorf("WaitFor past its timeout: fatal %v, %q; want one failure naming what it waited for", r.fatal, r.errors)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := WriteFile(t, dir, "a/b/c.txt", "hello\n")
	if p != filepath.Join(dir, "a", "b", "c.txt") {
		t.Errorf("WriteFile returned %s", p)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "hello\n" {
		t.Errorf("WriteFile wrote %q, %v", b, err)
	}
}

func TestGolden(t *testing.T) {
	if *update {
		t.Skip("-update rewrites golden files; this test checks comparing them")
	}
	file := WriteFile(t, t.TempDir(), "x.golden", "one\ntwo\nthree\n")
	if r := run(t, func(tb testing.TB) { Golden(tb, file, []byte("one\ntwo\nthree\n")) }); len(r.errors) != 0 {
		t.Errorf("Golden on equal content reported %q", r.errors)
	}
	r := run(t, func(tb testing.TB) { Golden(tb, file, []byte("one\n2\nthree\n")) })
	if len(r.errors) != 1 || r.fatal {
		t.Fatalf("Golden on different content: %q (fatal %v), want one error", r.errors, r.fatal)
	}
	for _, want := range []string{file, "- two\n", "+ 2\n", "-run '^TestGolden$' -update", "go test ./internal/testutil "} {
		if !strings.Contains(r.errors[0], want) {
			t.Errorf("Golden's report lacks %q:\n%s", want, r.errors[0])
		}
	}
	r = run(t, func(tb testing.TB) { Golden(tb, filepath.Join(t.TempDir(), "missing.golden"), nil) })
	if !r.fatal || !strings.Contains(r.errors[0], "-update") {
		t.Errorf("Golden on a missing file: %q (fatal %v), want a failure saying how to write it", r.errors, r.fatal)
	}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"a\nb\nc\n", "a\nb\nc\n", ""},
		{"a\nb\nc\n", "a\nx\nc\n", "  a\n- b\n+ x\n  c\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "  7\n  8\n+ 9\n"},
		{"", "new\n", "+ new\n"},
	} {
		if got := Diff(tc.a, tc.b); got != tc.want {
			t.Errorf("Diff(%q, %q) =\n%s\nwant\n%s", tc.a, tc.b, got, tc.want)
		}
	}
}
