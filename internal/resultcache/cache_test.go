package resultcache

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// counter runs calls and counts them; each result says which run it was.
type counter struct{ n atomic.Int64 }

func (c *counter) run(keep bool) func() Outcome {
	return func() Outcome {
		n := c.n.Add(1)
		return Outcome{Result: mcp.TextResult("run " + string(rune('0'+n))), Keep: keep}
	}
}

func newCall(t *testing.T, dir string) Call {
	return Call{Tool: "t", Key: MakeKey([]string{"t", dir}), Dir: dir, Inputs: []string{"a.rb"}}
}

func do(t *testing.T, c *Cache, call Call, run func() Outcome) *mcp.CallToolResult {
	t.Helper()
	res, err := c.Do(context.Background(), call, run)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func hit(res *mcp.CallToolResult) bool {
	m, _ := res.Meta[MetaKey].(map[string]any)
	return m["hit"] == true
}

func TestHitThenMissOnChange(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.rb", "aaaa")
	c := New(Options{})
	var n counter
	call := newCall(t, dir)
	if res := do(t, c, call, n.run(true)); hit(res) || res.Content[0].Text != "run 1" {
		t.Fatalf("first call: %+v", res)
	}
	res := do(t, c, call, n.run(true))
	if !hit(res) || res.Content[0].Text != "run 1" || n.n.Load() != 1 {
		t.Fatalf("second call, nothing changed: %+v after %d runs", res, n.n.Load())
	}
	write(t, dir, "a.rb", "bbbb")
	if res := do(t, c, call, n.run(true)); hit(res) || res.Content[0].Text != "run 2" {
		t.Fatalf("after an edit: %+v", res)
	}
	s := c.Stats()
	if s.Hits != 1 || s.Misses != 2 || s.Changed != 1 || s.Stored != 2 || s.Entries != 1 {
		t.Errorf("stats %+v", s)
	}
}

func TestOtherKeyMisses(t *testing.T) {
	dir := t.TempDir()
	c := New(Options{})
	var n counter
	do(t, c, Call{Key: MakeKey([]string{"check", "a.rb"}), Dir: dir}, n.run(true))
	do(t, c, Call{Key: MakeKey([]string{"check", "b.rb"}), Dir: dir}, n.run(true))
	do(t, c, Call{Key: MakeKey([]string{"check", "a.rb"}), Dir: dir}, n.run(true))
	if n.n.Load() != 2 {
		t.Errorf("%d runs, want 2: one per key", n.n.Load())
	}
	if MakeKey([]string{"ab", "c"}) == MakeKey([]string{"a", "bc"}) || MakeKey([]string{"a"}, nil) == MakeKey(nil, []string{"a"}) {
		t.Error("MakeKey gives two different lists the same key")
	}
}

func TestNotKept(t *testing.T) {
	dir := t.TempDir()
	c := New(Options{})
	var n counter
	call := newCall(t, dir)
	do(t, c, call, n.run(false))
	do(t, c, call, n.run(false))
	link := func() Outcome {
		n.n.Add(1)
		return Outcome{Result: &mcp.CallToolResult{Content: []mcp.Content{{Type: "resource_link", URI: "mcpship://out/1"}}}, Keep: true}
	}
	do(t, c, call, link)
	do(t, c, call, link)
	if n.n.Load() != 4 || c.Stats().Stored != 0 {
		t.Errorf("%d runs and %d stored, want 4 and none: nothing was to be kept", n.n.Load(), c.Stats().Stored)
	}
	_, err := c.Do(context.Background(), call, func() Outcome { return Outcome{Err: context.Canceled} })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run gave %v", err)
	}
}

// TestConcurrentCallsRunOnce: 50 identical calls at once run the command
// once. Calls that come after the run ended are hits, so the count holds
// however the goroutines are scheduled.
func TestConcurrentCallsRunOnce(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.rb", "x")
	c := New(Options{})
	call := newCall(t, dir)
	var runs atomic.Int64
	release := make(chan struct{})
	run := func() Outcome {
		runs.Add(1)
		<-release
		return Outcome{Result: mcp.TextResult("once"), Keep: true}
	}
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, 50)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = c.Do(context.Background(), call, run)
		}()
	}
	time.Sleep(50 * time.Millisecond) // let most of them wait; not needed for the count
	close(release)
	wg.Wait()
	if runs.Load() != 1 {
		t.Errorf("50 identical calls ran %d times, want 1", runs.Load())
	}
	for i, res := range results {
		if res == nil || res.Content[0].Text != "once" {
			t.Fatalf("call %d got %+v", i, res)
		}
	}
}

// TestCancelledLeaderRetries: a call waiting for an identical one that
// is cancelled runs itself instead of failing.
func TestCancelledLeaderRetries(t *testing.T) {
	dir := t.TempDir()
	c := New(Options{})
	call := newCall(t, dir)
	started := make(chan struct{})
	cancel := make(chan struct{})
	go c.Do(context.Background(), call, func() Outcome {
		close(started)
		<-cancel
		return Outcome{Err: context.Canceled}
	})
	<-started
	done := make(chan *mcp.CallToolResult)
	go func() {
		res, _ := c.Do(context.Background(), call, func() Outcome { return Outcome{Result: mcp.TextResult("mine"), Keep: true} })
		done <- res
	}()
	close(cancel)
	if res := <-done; res == nil || res.Content[0].Text != "mine" {
		t.Errorf("the waiting call got %+v", res)
	}
}

func TestBounds(t *testing.T) {
	dir := t.TempDir()
	c := New(Options{MaxEntries: 2})
	var n counter
	calls := []Call{{Key: MakeKey([]string{"1"}), Dir: dir}, {Key: MakeKey([]string{"2"}), Dir: dir}, {Key: MakeKey([]string{"3"}), Dir: dir}}
	do(t, c, calls[0], n.run(true))
	do(t, c, calls[1], n.run(true))
	do(t, c, calls[0], n.run(true)) // 0 is used again: 1 is now the oldest
	do(t, c, calls[2], n.run(true))
	if s := c.Stats(); s.Entries != 2 || s.Evicted != 1 {
		t.Errorf("stats %+v, want 2 entries and 1 evicted", s)
	}
	if !hit(do(t, c, calls[0], n.run(true))) || hit(do(t, c, calls[1], n.run(true))) {
		t.Error("the least recently used entry was not the one evicted")
	}

	big := func() Outcome { return Outcome{Result: mcp.TextResult(strings.Repeat("x", 3000)), Keep: true} }
	c = New(Options{MaxBytes: 8000})
	for _, call := range calls {
		do(t, c, call, big)
	}
	if s := c.Stats(); s.Entries != 2 || s.Bytes > 8000 {
		t.Errorf("stats %+v, want 2 entries within 8000 bytes", s)
	}
}

func TestDiskTier(t *testing.T) {
	dir, store := t.TempDir(), filepath.Join(t.TempDir(), "results")
	write(t, dir, "a.rb", "aaaa")
	call := newCall(t, dir)
	call.Disk = true
	var n counter
	structured := func() Outcome {
		n.n.Add(1)
		return Outcome{Result: &mcp.CallToolResult{StructuredContent: map[string]any{"n": 100000000000000000000.0}}, Keep: true}
	}
	do(t, New(Options{Dir: store}), call, structured)
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(store)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("disk folder: %v, mode %v; want 0700", err, fi.Mode())
		}
		files, _ := filepath.Glob(filepath.Join(store, "*.json"))
		if len(files) != 1 {
			t.Fatalf("disk entries %v, want 1", files)
		}
		if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
			t.Errorf("disk entry mode %v, want 0600", fi.Mode())
		}
	}
	c := New(Options{Dir: store}) // a new session
	if res := do(t, c, call, structured); !hit(res) || n.n.Load() != 1 || c.Stats().DiskHits != 1 {
		t.Fatalf("a new cache did not serve the disk entry: %+v, %d runs", res, n.n.Load())
	}

	files, _ := filepath.Glob(filepath.Join(store, "*.json"))
	for _, corrupt := range []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { b[len(b)-5] ^= 1; return b },
		func(b []byte) []byte { return []byte("{}") },
	} {
		data, _ := os.ReadFile(files[0])
		os.WriteFile(files[0], corrupt(data), 0o600)
		c := New(Options{Dir: store})
		before := n.n.Load()
		if res := do(t, c, call, structured); hit(res) || n.n.Load() != before+1 || c.Stats().Corrupt != 1 {
			t.Errorf("a corrupt disk entry was served or not counted: %+v, stats %+v", res, c.Stats())
		}
	}

	c = New(Options{Dir: store, MaxEntries: 2})
	for i := range 5 {
		do(t, c, Call{Key: MakeKey([]string{"k", string(rune('a' + i))}), Dir: dir, Disk: true}, n.run(true))
	}
	if files, _ := filepath.Glob(filepath.Join(store, "*.json")); len(files) != 2 {
		t.Errorf("%d disk entries, want at most 2", len(files))
	}
}
