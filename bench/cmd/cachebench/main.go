// Command cachebench measures the result cache of manifest tools end to
// end over stdio, side by side in one mcpship serve: a tool without a
// cache (the peer: every call runs cat) and the same tool with one,
// whose inputs are the file the call names and a folder of 9 files (10
// files in all), or of 999 (1,000). Rounds alternate which tool goes
// first. It reports the median and 90th percentile of a hit and of a
// miss (every miss call names a file of its own, so its key is new)
// against the uncached run, and mcpship's memory per stored entry.
//
//	go run ./cmd/cachebench -mcpship PATH [-rounds 200] [-entries 2000]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/mcpship/mcpship/bench/internal/load"
)

func main() {
	bin := flag.String("mcpship", "mcpship", "the mcpship binary")
	rounds := flag.Int("rounds", 200, "calls of each kind")
	entries := flag.Int("entries", 2000, "entries stored for the memory figure")
	flag.Parse()
	log.SetFlags(0)

	dir, err := os.MkdirTemp("", "cachebench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	write := func(name, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	for i := range 9 {
		write(fmt.Sprintf("few/f%d.rb", i), "puts 1\n")
	}
	for i := range 999 {
		write(fmt.Sprintf("many/f%03d.rb", i), "puts 1\n")
	}
	files := 4**rounds + *entries + 1 // two pairs of misses, the hits' file, the memory
	for i := range files {
		write(fmt.Sprintf("calls/%d.rb", i), "puts "+strconv.Itoa(i)+"\n")
	}
	// Older than the racy window, as files are that a project has not
	// just written: they are compared by stat.
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, _ error) error { return os.Chtimes(p, old, old) })
	time.Sleep(2100 * time.Millisecond) // and their ctimes too

	cat, err := exec.LookPath("cat")
	if err != nil {
		log.Fatal(err)
	}
	common := fmt.Sprintf(`"command": [%q, "--", "{file}"], "inputs": {"file": {"required": true}}, "readOnly": true`, cat)
	m := fmt.Sprintf(`{"defaults": {"dir": %q}, "tools": [
	  {"name": "plain", "description": "no cache", %s},
	  {"name": "c10", "description": "10 inputs", %s, "cache": {"inputs": ["{file}", "few/"]}},
	  {"name": "c1000", "description": "1000 inputs", %s, "cache": {"inputs": ["{file}", "many/"]}}]}`,
		dir, common, common, common)
	manifest := filepath.Join(dir, "mcpship.json")
	if err := os.WriteFile(manifest, []byte(m), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d cores; load average before: %s\n\n", runtime.NumCPU(), load.Loadavg())

	c, _, err := load.ServeManifest(*bin, manifest)
	if err != nil {
		log.Fatal(err)
	}
	defer func() { c.Close() }()
	call := func(tool, file string) (time.Duration, bool) {
		t0 := time.Now()
		res, err := c.CallTool(context.Background(), tool, map[string]any{"file": file})
		d := time.Since(t0)
		if err != nil || res.IsError {
			log.Fatalf("%s %s: %v %+v", tool, file, err, res)
		}
		_, hit := res.Meta["io.github.mcpship/cache"]
		return d, hit
	}
	next := 0
	fresh := func() string { next++; return fmt.Sprintf("calls/%d.rb", next-1) }
	// pair times a against b, alternating which goes first.
	pair := func(a, b func() time.Duration) (da, db []time.Duration) {
		for i := range *rounds {
			if i%2 == 0 {
				da, db = append(da, a()), append(db, b())
			} else {
				db, da = append(db, b()), append(da, a())
			}
		}
		return da, db
	}
	timed := func(tool string, file func() string, wantHit bool) func() time.Duration {
		return func() time.Duration {
			d, hit := call(tool, file())
			if hit != wantHit {
				log.Fatalf("%s: hit=%v, want %v", tool, hit, wantHit)
			}
			return d
		}
	}
	same := func() string { return "calls/0.rb" }
	fresh() // calls/0.rb is the file of the hits
	call("c10", same())
	call("c1000", same())

	fmt.Printf("`cat` of a small file, %d calls of each, alternating; end to end over stdio:\n\n", *rounds)
	fmt.Printf("| call | median | p90 | min |\n|---|---:|---:|---:|\n")
	row := func(name string, d []time.Duration) time.Duration {
		slices.Sort(d)
		fmt.Printf("| %s | %s | %s | %s |\n", name, ms(d[len(d)/2]), ms(d[len(d)*9/10]), ms(d[0]))
		return d[len(d)/2]
	}
	plain, hit10 := pair(timed("plain", same, false), timed("c10", same, true))
	_, hit1000 := pair(timed("plain", same, false), timed("c1000", same, true))
	plainM, miss10 := pair(timed("plain", fresh, false), timed("c10", fresh, false))
	plainM2, miss1000 := pair(timed("plain", fresh, false), timed("c1000", fresh, false))
	p := row("no cache (runs cat)", plain)
	h10 := row("hit, 10 inputs", hit10)
	h1000 := row("hit, 1,000 inputs", hit1000)
	pm := row("no cache, beside the 10-input misses", plainM)
	m10 := row("miss, 10 inputs (recorded, run, stored)", miss10)
	pm2 := row("no cache, beside the 1,000-input misses", plainM2)
	m1000 := row("miss, 1,000 inputs", miss1000)
	fmt.Printf("\na hit with 10 inputs is %.0f× faster than the run; a miss adds %+.1f%% with 10 inputs, %+.1f%% with 1,000 (medians)\n\n",
		float64(p)/float64(h10), 100*(float64(m10)/float64(pm)-1), 100*(float64(m1000)/float64(pm2)-1))
	_ = h1000

	// Memory: the resident set of a new mcpship serve after one call of
	// each tool, and after -entries more results of 10 inputs each.
	c.Close()
	c, srv, err := load.ServeManifest(*bin, manifest)
	if err != nil {
		log.Fatal(err)
	}
	call("plain", same())
	call("c10", same())
	before := load.RSS(srv)
	for range *entries {
		call("c10", fresh())
	}
	after := load.RSS(srv)
	fmt.Printf("| memory of a new serve | KiB |\n|---|---:|\n")
	fmt.Printf("| VmRSS after one call | %d |\n| after %d more entries of 10 inputs | %d |\n| per entry | %.1f |\n\n",
		before/1024, *entries, after/1024, float64(after-before)/float64(*entries)/1024)
	fmt.Printf("load average after: %s\n", load.Loadavg())
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000) }
