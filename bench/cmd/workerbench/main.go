// Command workerbench measures a manifest tool served by a warm worker
// against the same tool run cold, side by side in one mcpship serve: the
// program is tests/workerstandin, which sleeps -boot when it starts (a
// slow boot) and then runs one command. Rounds alternate which of the
// two calls goes first. It reports the median and 90th percentile of
// each, end to end over stdio as a client sees it, the first warm call
// (the worker's boot), and memory: the resident set of one worker
// process and what mcpship itself grows by per worker, with -workers of
// them running.
//
//	go run ./cmd/workerbench -mcpship PATH -worker PATH [-rounds 40] [-boot 300ms] [-workers 8]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpship/mcpship/bench/internal/load"
)

func main() {
	bin := flag.String("mcpship", "mcpship", "the mcpship binary")
	worker := flag.String("worker", "workerstandin", "the tests/workerstandin binary")
	rounds := flag.Int("rounds", 40, "calls of each kind")
	boot := flag.Duration("boot", 300*time.Millisecond, "how long the program takes to boot")
	workers := flag.Int("workers", 8, "workers running for the memory figures")
	flag.Parse()
	log.SetFlags(0)

	dir, err := os.MkdirTemp("", "workerbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	prog, err := filepath.Abs(*worker)
	if err != nil {
		log.Fatal(err)
	}
	manifest := filepath.Join(dir, "mcpship.json")
	common := fmt.Sprintf(`"command": [%q, "{words}"], "inputs": {"words": {"type": "array", "required": true}}`, prog)
	m := fmt.Sprintf(`{"defaults": {"env": {"STANDIN_BOOT": %q}}, "tools": [
	  {"name": "cold", "description": "cold", %s},
	  {"name": "warm", "description": "warm", %s, "worker": {"command": [%q, "--persistent_worker"], "maxInstances": %d}}]}`,
		boot.String(), common, common, prog, *workers)
	if err := os.WriteFile(manifest, []byte(m), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("load average before: %s\n\n", load.Loadavg())

	c, srv, err := load.ServeManifest(*bin, manifest)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	call := func(tool string, words ...string) time.Duration {
		t0 := time.Now()
		res, err := c.CallTool(context.Background(), tool, map[string]any{"words": words})
		d := time.Since(t0)
		if err != nil || res.IsError {
			log.Fatalf("%s %v: %v %+v", tool, words, err, res)
		}
		return d
	}
	first := call("warm", "echo", "hi")
	var cold, warm []time.Duration
	for i := range *rounds {
		if i%2 == 0 {
			cold = append(cold, call("cold", "echo", "hi"))
			warm = append(warm, call("warm", "echo", "hi"))
		} else {
			warm = append(warm, call("warm", "echo", "hi"))
			cold = append(cold, call("cold", "echo", "hi"))
		}
	}
	fmt.Printf("A tool whose program boots in %v, `echo hi`, %d calls of each, alternating; end to end over stdio:\n\n", *boot, *rounds)
	fmt.Printf("| run | median | p90 | min |\n|---|---:|---:|---:|\n")
	row := func(name string, d []time.Duration) {
		slices.Sort(d)
		fmt.Printf("| %s | %s | %s | %s |\n", name, ms(d[len(d)/2]), ms(d[len(d)*9/10]), ms(d[0]))
	}
	row("cold (a process per call)", cold)
	row("warm (a worker)", warm)
	fmt.Printf("| first warm call (starts the worker) | %s | | |\n\n", ms(first))
	fmt.Printf("warm is **%.0f×** faster than cold at the median\n\n", float64(cold[len(cold)/2])/float64(warm[len(warm)/2]))

	// Memory: mcpship's resident set with one worker, then with -workers
	// of them (that many calls in flight at once start them).
	one := load.RSS(srv)
	barrier := filepath.Join(dir, "barrier")
	if err := os.Mkdir(barrier, 0o755); err != nil {
		log.Fatal(err)
	}
	pids := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range *workers {
		wg.Go(func() {
			res, err := c.CallTool(context.Background(), "warm", map[string]any{"words": []string{"barrier", barrier, strconv.Itoa(*workers)}})
			if err != nil || res.IsError {
				log.Fatalf("barrier: %v %+v", err, res)
			}
			mu.Lock()
			pids[strings.TrimSpace(res.Content[0].Text)] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	many := load.RSS(srv)
	var workerRSS []int64
	for p := range pids {
		pid, _ := strconv.Atoi(strings.TrimPrefix(p, "pid="))
		workerRSS = append(workerRSS, load.RSS(pid))
	}
	slices.Sort(workerRSS)
	fmt.Printf("Memory, with %d workers running (%d distinct):\n\n", *workers, len(pids))
	fmt.Printf("| what | KiB |\n|---|---:|\n")
	fmt.Printf("| one worker process (workerstandin), median VmRSS | %d |\n", workerRSS[len(workerRSS)/2]/1024)
	fmt.Printf("| mcpship VmRSS with 1 worker | %d |\n", one/1024)
	fmt.Printf("| mcpship VmRSS with %d workers | %d |\n", len(pids), many/1024)
	fmt.Printf("| mcpship's growth per added worker | %.0f |\n\n", float64(many-one)/float64(max(len(pids)-1, 1))/1024)
	fmt.Printf("load average after: %s\n", load.Loadavg())
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
