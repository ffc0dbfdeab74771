// Command driver runs the stdio MCP benchmarks of issue 6 side by side:
// the same driver, servers alternating round by round, medians over rounds
// and ratios to the standard-library reference server.
//
//	driver -bindir DIR [-rounds 3] [-json out.json] [-md out.md]
//
// DIR holds the binaries ref, refgoroutine, mcpship-echo, gosdk, mcpgo and
// mcpship (run as `mcpship serve`). bench/run.sh builds them and runs this.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpship/mcpship/bench/internal/load"
)

type results struct {
	Started  time.Time       `json:"started"`
	Ended    time.Time       `json:"ended"`
	Host     hostInfo        `json:"host"`
	Params   params          `json:"params"`
	Servers  []*server       `json:"servers"`
	Sizes    map[string]int  `json:"sizes_bytes"`
	Runs     []*run          `json:"runs"`
	Init     *initResult     `json:"init,omitempty"`
	Manifest *manifestResult `json:"manifest,omitempty"`
}

type hostInfo struct {
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go_version"`
	LoadStart string `json:"loadavg_start"`
	LoadEnd   string `json:"loadavg_end"`
	Kernel    string `json:"kernel"`
}

type params struct {
	Rounds   int    `json:"rounds"`
	Cold     int    `json:"cold_spawns"`
	Warm     int    `json:"warm_calls"`
	Seq      int    `json:"seq_calls"`
	Pipe     int    `json:"pipe_calls"`
	Chunks   int    `json:"chunks"`
	InitRuns int    `json:"init_runs"`
	Manifest int    `json:"manifest_calls"`
	Program  string `json:"manifest_program"`
	Commit   string `json:"commit,omitempty"`
}

type run struct {
	Server  string        `json:"server"`
	Round   int           `json:"round"`
	Load    string        `json:"loadavg"`
	Cold    coldResult    `json:"cold"`
	Session sessionResult `json:"session"`
	Big     []bigResult   `json:"big"`
}

func main() {
	bindir := flag.String("bindir", "", "directory of the server binaries")
	var p params
	flag.IntVar(&p.Rounds, "rounds", 5, "rounds; each runs every server once, in a rotated order")
	flag.IntVar(&p.Cold, "cold", 30, "cold spawns per server per round")
	flag.IntVar(&p.Warm, "warm", 500, "untimed warm-up calls before the sequential phase")
	flag.IntVar(&p.Seq, "seq", 20000, "sequential calls per server per round")
	flag.IntVar(&p.Pipe, "pipe", 20000, "pipelined calls per server per round")
	flag.IntVar(&p.Chunks, "chunks", 10, "the call phases are cut into this many chunks, which take turns across servers")
	flag.IntVar(&p.InitRuns, "init", 20, "runs of mcpship init into the 1 MiB config (0: skip)")
	flag.IntVar(&p.Manifest, "manifest", 200, "manifest calls and bare execs (0: skip)")
	flag.StringVar(&p.Program, "program", "/bin/echo", "the program the manifest tool and the bare exec run")
	flag.StringVar(&p.Commit, "commit", "", "commit of mcpship under test, for the report")
	var extra []string
	flag.Func("extra", "also run `name=path`, an echo server like mcpship-echo (repeatable; for before/after comparisons)", func(v string) error {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("want name=path")
		}
		extra = append(extra, v)
		return nil
	})
	var extraServe []string
	flag.Func("extra-serve", "also run `name=path` as `path serve` with its mcpship_version tool (repeatable)", func(v string) error {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("want name=path")
		}
		extraServe = append(extraServe, v)
		return nil
	})
	noBig := flag.Bool("nobig", false, "skip the large messages")
	only := flag.String("only", "", "comma-separated server names to run (default: all)")
	jsonOut := flag.String("json", "", "write raw results here")
	mdOut := flag.String("md", "", "write the markdown report here (default: stdout)")
	flag.Parse()
	if *bindir == "" {
		fmt.Fprintln(os.Stderr, "usage: driver -bindir DIR [flags]")
		os.Exit(2)
	}
	bin := func(n string) string { return filepath.Join(*bindir, n) }
	servers := []*server{
		{Name: "ref", Path: bin("ref"), Tool: "echo", Echo: true, Big: []int{8, 20}},
		{Name: "ref-goroutine", Path: bin("refgoroutine"), Tool: "echo", Echo: true},
		{Name: "mcpship", Path: bin("mcpship-echo"), Tool: "echo", Echo: true, Big: []int{8, 20}},
		{Name: "go-sdk", Path: bin("gosdk"), Tool: "echo", Echo: true, Big: []int{8, 20}},
		{Name: "mcp-go", Path: bin("mcpgo"), Tool: "echo", Echo: true, Big: []int{8, 20}},
		{Name: "mcpship-serve", Path: bin("mcpship"), Args: []string{"serve"}, Tool: "mcpship_version", Big: []int{20}},
	}
	for _, e := range extra {
		n, path, _ := strings.Cut(e, "=")
		servers = append(servers, &server{Name: n, Path: path, Tool: "echo", Echo: true, Big: []int{8, 20}})
	}
	for _, e := range extraServe {
		n, path, _ := strings.Cut(e, "=")
		servers = append(servers, &server{Name: n, Path: path, Args: []string{"serve"}, Tool: "mcpship_version", Big: []int{20}})
	}
	if *only != "" {
		var keep []*server
		for _, s := range servers {
			if strings.Contains(","+*only+",", ","+s.Name+",") {
				keep = append(keep, s)
			}
		}
		servers = keep
	}
	res := &results{Started: time.Now().UTC(), Params: p, Servers: servers, Sizes: map[string]int{}}
	res.Host = hostInfo{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), LoadStart: load.Loadavg(), Kernel: kernel()}
	for _, s := range servers {
		fi, err := os.Stat(s.Path)
		if err != nil {
			fatal(err)
		}
		res.Sizes[s.Name] = int(fi.Size())
	}
	logf("load %s; %d rounds × %d servers", res.Host.LoadStart, p.Rounds, len(servers))
	for round := range p.Rounds {
		order := make([]*server, len(servers))
		for k := range servers {
			order[k] = servers[(k+round)%len(servers)]
		}
		load := load.Loadavg()
		colds := cold(order, p.Cold)
		sess := sessions(order, p.Warm, p.Seq, p.Pipe, p.Chunks)
		for _, s := range order {
			r := &run{Server: s.Name, Round: round + 1, Load: load}
			r.Cold = colds[s.Name]
			r.Session = *sess[s.Name]
			for _, mib := range s.Big {
				if *noBig {
					break
				}
				r.Big = append(r.Big, big(s, mib))
			}
			res.Runs = append(res.Runs, r)
			logf("round %d %-13s init %.2f ms, seq %.0f/s, pipe %.0f/s, HWM %.1f MiB %s%s", r.Round, s.Name,
				r.Cold.InitMed, r.Session.Seq.CallsPerSec, r.Session.Pipe.CallsPerSec, mib(r.Session.HWM), r.Cold.Err, r.Session.Err)
		}
	}
	if mcpship := bin("mcpship"); *only == "" || strings.Contains(*only, "mcpship-serve") {
		if p.InitRuns > 0 {
			r := measureInit(mcpship, p.InitRuns)
			res.Init = &r
			logf("init: %.2f ms median (version %.2f ms) %s", r.Med, r.VersionMed, r.Err)
		}
		if p.Manifest > 0 {
			r := measureManifest(mcpship, p.Program, p.Manifest)
			res.Manifest = &r
			logf("manifest: call %.3f ms, exec %.3f ms %s%s", r.CallMed, r.ExecMed, r.Pending, r.Err)
		}
	}
	res.Ended = time.Now().UTC()
	res.Host.LoadEnd = load.Loadavg()
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			fatal(err)
		}
	}
	md := report(res)
	if *mdOut != "" {
		if err := os.WriteFile(*mdOut, []byte(md), 0o644); err != nil {
			fatal(err)
		}
	} else {
		fmt.Print(md)
	}
}

func kernel() string {
	b, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return strings.TrimSpace(string(b))
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().UTC().Format("15:04:05 ")+format+"\n", args...)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "driver:", err)
	os.Exit(1)
}
