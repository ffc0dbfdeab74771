package resultcache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// project makes a folder of n files older than the racy window, so that
// they are checked by stat, as the files of a project mostly are: their
// mtimes are set back an hour, and the wait lets their ctimes age.
func project(b *testing.B, n int) string {
	dir := b.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range n {
		p := filepath.Join(dir, "src", fmt.Sprintf("f%04d.rb", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("puts 1\n"), 0o644)
		os.Chtimes(p, old, old)
	}
	time.Sleep(RacyWindow + 100*time.Millisecond)
	return dir
}

// BenchmarkCheck is the hit check alone: a stat per file and a listing
// per folder.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := project(b, n)
			in, err := Record(dir, []string{"src/"})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if why := in.Check(); why != "" {
					b.Fatal(why)
				}
			}
		})
	}
}

// BenchmarkRecord is what a miss adds before the run: recording the
// inputs.
func BenchmarkRecord(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := project(b, n)
			for b.Loop() {
				if _, err := Record(dir, []string{"src/"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEntryMemory stores entries of a small text result with 10
// recorded files and reports the heap each one holds.
func BenchmarkEntryMemory(b *testing.B) {
	dir := project(b, 10)
	const n = 1000
	for b.Loop() {
		c := New(Options{MaxEntries: n})
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range n {
			call := Call{Key: MakeKey([]string{fmt.Sprint(i)}), Dir: dir, Inputs: []string{"src/"}}
			c.Do(context.Background(), call, func() Outcome {
				return Outcome{Result: mcp.TextResult("src/f0001.rb:1: ok\n"), Keep: true}
			})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heapB/entry")
		runtime.KeepAlive(c)
	}
}

// BenchmarkRecordFloor is the system calls alone that recording a folder
// of 10 files makes (an lstat of the folder and of each file, and a
// listing), the floor under BenchmarkRecord/files=10.
func BenchmarkRecordFloor(b *testing.B) {
	dir := filepath.Join(project(b, 10), "src")
	for b.Loop() {
		os.Lstat(dir)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			os.Lstat(filepath.Join(dir, e.Name()))
		}
	}
}
