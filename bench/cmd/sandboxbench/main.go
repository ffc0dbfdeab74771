// Command sandboxbench measures what the read-only sandbox (Landlock,
// docs/manifest.md "The read-only sandbox") adds to a call of a short
// read-only tool: two tools with the same command side by side in one
// mcpship serve, one declared "readOnly": true (confined, with a private
// TMPDIR made and removed per call) and one not (unconfined). Rounds
// alternate which goes first. It reports the median, 90th percentile and
// minimum of each, end to end over stdio as a client sees it, and the
// median of the per-round ratio confined/unconfined.
//
//	go run ./cmd/sandboxbench -mcpship PATH [-rounds 200] [-program /bin/true]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcpship/mcpship/bench/internal/load"
)

func main() {
	bin := flag.String("mcpship", "mcpship", "the mcpship binary")
	rounds := flag.Int("rounds", 200, "calls of each kind")
	prog := flag.String("program", "/bin/true", "the tools' program, run with no arguments")
	flag.Parse()
	log.SetFlags(0)

	dir, err := os.MkdirTemp("", "sandboxbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	manifest := filepath.Join(dir, "mcpship.json")
	m := fmt.Sprintf(`{"tools": [
	  {"name": "confined", "description": "d", "command": [%q], "readOnly": true},
	  {"name": "unconfined", "description": "d", "command": [%q], "readOnly": false}]}`, *prog, *prog)
	if err := os.WriteFile(manifest, []byte(m), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("load average before: %s\n\n", load.Loadavg())
	c, _, err := load.ServeManifest(*bin, manifest)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	call := func(tool string) time.Duration {
		t0 := time.Now()
		res, err := c.CallTool(context.Background(), tool, map[string]any{})
		d := time.Since(t0)
		if err != nil || res.IsError {
			log.Fatalf("%s: %v %+v", tool, err, res)
		}
		return d
	}
	for range 10 { // warm up both paths
		call("confined")
		call("unconfined")
	}
	var on, off []time.Duration
	var ratio []float64
	for i := range *rounds {
		var a, b time.Duration
		if i%2 == 0 {
			a, b = call("confined"), call("unconfined")
		} else {
			b, a = call("unconfined"), call("confined")
		}
		on, off = append(on, a), append(off, b)
		ratio = append(ratio, float64(a)/float64(b))
	}
	fmt.Printf("A read-only tool running `%s`, confined or not, %d calls of each, alternating; end to end over stdio:\n\n", *prog, *rounds)
	fmt.Printf("| run | median | p90 | min |\n|---|---:|---:|---:|\n")
	row := func(name string, d []time.Duration) time.Duration {
		slices.Sort(d)
		fmt.Printf("| %s | %s | %s | %s |\n", name, ms(d[len(d)/2]), ms(d[len(d)*9/10]), ms(d[0]))
		return d[len(d)/2]
	}
	a := row("confined (Landlock, private TMPDIR)", on)
	b := row("unconfined", off)
	slices.Sort(ratio)
	fmt.Printf("\nconfined minus unconfined at the median: **%s**; median of the paired ratios: **%.3f×**\n\n", ms(a-b), ratio[len(ratio)/2])
	fmt.Printf("load average after: %s\n", load.Loadavg())
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000) }
