// Command httpdriver runs the Streamable HTTP benchmarks of issue 24 side
// by side: the same driver, every server started fresh each round in a
// rotated order, medians over rounds, and ratios to the faster peer.
//
//	httpdriver -bindir DIR [-rounds 3] [-duration 2s] [-json out.json] [-md out.md]
//
// DIR holds mcpship-echo, gosdk, mcpgo (each run with -http) and mcpship
// (run as `mcpship serve --transport http` with a manifest whose echo tool
// runs -program). bench/http.sh builds them and runs this. Each -also
// NAME=PROGRAM runs another build of mcpship-echo beside them (an earlier
// commit, to compare a change in the same run).
//
// For each server and era (legacy: initialize, then calls with the
// session id; modern: stateless 2026-07-28 calls with their headers) it
// runs 1, 16 and 64 clients, each making one tools/call at a time over
// its own keep-alive connections, for -duration, and reports calls per
// second and the p50 and p99 latency. Then it opens -sessions legacy
// sessions and reports the server's resident memory per session, and
// times the first byte of a session's GET stream. The floor of a manifest
// tool is -program run by the driver itself, at the same concurrency.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpship/mcpship/bench/internal/load"
)

type serverSpec struct {
	Name string   `json:"name"`
	Peer bool     `json:"peer"`           // one of the SDKs compared against
	Also bool     `json:"also,omitempty"` // another build of mcpship's echo server (-also)
	Args []string `json:"args"`           // after the binary directory's program
}

type cell struct {
	Server  string `json:"server"`
	Era     string `json:"era"`
	Clients int    `json:"clients"`
	Round   int    `json:"round"`
	load.Result
}

type sessionMem struct {
	Server     string  `json:"server"`
	Round      int     `json:"round"`
	Opened     int     `json:"opened"`
	Kept       bool    `json:"kept"` // the server minted ids
	BytesPer   float64 `json:"rss_bytes_per_session"`
	RSSBefore  int64   `json:"rss_before"`
	RSSAfter   int64   `json:"rss_after"`
	FirstError string  `json:"first_error,omitempty"`
}

type ttfb struct {
	Server     string  `json:"server"`
	Round      int     `json:"round"`
	Status     int     `json:"status"`
	HeaderUS   float64 `json:"first_response_byte_us"`
	BodyUS     float64 `json:"first_body_byte_us"` // -1: none within a second
	FirstError string  `json:"first_error,omitempty"`
}

type results struct {
	Started  time.Time    `json:"started"`
	Ended    time.Time    `json:"ended"`
	Commit   string       `json:"commit,omitempty"`
	Load     [2]string    `json:"loadavg"`
	Program  string       `json:"program"`
	Duration string       `json:"duration_per_cell"`
	Servers  []serverSpec `json:"servers"`
	Cells    []cell       `json:"cells"`
	Sessions []sessionMem `json:"sessions"`
	TTFB     []ttfb       `json:"ttfb"`
}

var clientCounts = []int{1, 16, 64}

func main() {
	bindir := flag.String("bindir", "", "directory of the server binaries")
	run := load.RegisterFlags("server", "server, era, clients")
	sessions := flag.Int("sessions", 2000, "legacy sessions opened for the memory figure")
	program := flag.String("program", "/bin/echo", "the program the manifest tool runs, and the fork/exec floor")
	var also []serverSpec
	flag.Func("also", "`NAME=PROGRAM`: also run PROGRAM, another build of mcpship's echo server (an earlier commit), as NAME; repeatable", func(v string) error {
		name, prog, ok := strings.Cut(v, "=")
		if !ok || name == "" || !filepath.IsAbs(prog) {
			return fmt.Errorf("want NAME=/absolute/path/to/program, got %q", v)
		}
		also = append(also, serverSpec{Name: name, Also: true, Args: []string{prog, "-http", "127.0.0.1:0", "-max-sessions", "100000"}})
		return nil
	})
	flag.Parse()
	if *bindir == "" {
		fmt.Fprintln(os.Stderr, "httpdriver: -bindir is required")
		os.Exit(64)
	}
	dir, err := os.MkdirTemp("", "httpdriver-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	manifest := filepath.Join(dir, "echo.json")
	m := fmt.Sprintf(`{"tools":[{"name":"echo","description":"Echo the text back.","command":[%q,"{text}"],"inputs":{"text":{"required":true}}}]}`, *program)
	if err := os.WriteFile(manifest, []byte(m), 0o644); err != nil {
		fatal(err)
	}
	specs := []serverSpec{
		// Room for the sessions of the memory figure (the default keeps 1024).
		{Name: "mcpship", Args: []string{"mcpship-echo", "-http", "127.0.0.1:0", "-max-sessions", "100000"}},
		{Name: "gosdk-stateful", Peer: true, Args: []string{"gosdk", "-http", "127.0.0.1:0"}},
		{Name: "gosdk-stateless", Peer: true, Args: []string{"gosdk", "-http", "127.0.0.1:0", "-stateless"}},
		{Name: "mcpgo", Peer: true, Args: []string{"mcpgo", "-http", "127.0.0.1:0"}},
		{Name: "mcpgo-stateful", Peer: true, Args: []string{"mcpgo", "-http", "127.0.0.1:0", "-stateful"}},
		{Name: "mcpship-manifest", Args: []string{"mcpship", "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--max-sessions", "100000", "--manifest", manifest}},
	}
	specs = append(specs, also...)
	res := &results{Started: time.Now().UTC(), Commit: run.Commit, Program: *program, Duration: run.Duration.String(), Servers: specs}
	res.Load[0] = load.Loadavg()
	for r := range run.Rounds {
		order := append(slices.Clone(specs[r%len(specs):]), specs[:r%len(specs)]...)
		for _, sp := range order {
			fmt.Fprintf(os.Stderr, "round %d: %s\n", r+1, sp.Name)
			runServer(res, sp, r+1, *bindir, run.Duration, *sessions)
		}
		for _, n := range clientCounts {
			res.Cells = append(res.Cells, floorCell(*program, n, r+1, run.Duration))
		}
	}
	res.Load[1] = load.Loadavg()
	res.Ended = time.Now().UTC()
	if err := run.Write(res, markdown(res)); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "httpdriver:", err)
	os.Exit(1)
}

// proc is a running server.
type proc struct {
	cmd *exec.Cmd
	url string
}

func start(bindir string, sp serverSpec) (*proc, error) {
	prog := sp.Args[0]
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(bindir, prog)
	}
	cmd := exec.Command(prog, sp.Args[1:]...)
	u, err := load.StartServing(cmd, 20*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sp.Name, err)
	}
	return &proc{cmd: cmd, url: u}, nil
}

func (p *proc) stop() {
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

// rss returns the resident set size of the process, in bytes.
func (p *proc) rss() int64 { return max(load.StatusBytes(p.cmd.Process.Pid, "VmRSS:")[0], 0) }

func runServer(res *results, sp serverSpec, round int, bindir string, d time.Duration, sessions int) {
	p, err := start(bindir, sp)
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpdriver:", err)
		return
	}
	defer p.stop()
	// Warm up: the first calls of a process pay for its lazy set-up.
	for _, era := range []string{"legacy", "modern"} {
		load.Run(p.url, "httpdriver", era, 4, 300*time.Millisecond)
	}
	res.Sessions = append(res.Sessions, measureSessions(p, sp.Name, round, sessions))
	res.TTFB = append(res.TTFB, measureTTFB(p.url, sp.Name, round))
	for _, era := range []string{"legacy", "modern"} {
		for _, n := range clientCounts {
			res.Cells = append(res.Cells, cell{Server: sp.Name, Era: era, Clients: n, Round: round, Result: load.Run(p.url, "httpdriver", era, n, d)})
		}
	}
}

// floorCell runs program n at a time for d: what a manifest tool's call
// costs at the least.
func floorCell(program string, n, round int, d time.Duration) cell {
	c := cell{Server: "fork/exec floor", Era: "-", Clients: n, Round: round}
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	startAt := time.Now()
	for range n {
		wg.Go(func() {
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if err := exec.Command(program, "hi").Run(); err != nil {
					mu.Lock()
					c.Errors++
					mu.Unlock()
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	c.Calls = len(lat)
	c.PerSec = float64(len(lat)) / time.Since(startAt).Seconds()
	c.P50us, c.P99us = load.Percentiles(lat)
	return c
}

// measureSessions opens n legacy sessions and keeps them open, and reports
// how much the server's resident memory grew per session.
func measureSessions(p *proc, name string, round, n int) sessionMem {
	m := sessionMem{Server: name, Round: round}
	time.Sleep(200 * time.Millisecond)
	m.RSSBefore = p.rss()
	cl := load.NewClient(p.url, "httpdriver")
	defer cl.HC.CloseIdleConnections()
	for range n {
		cl.Session = ""
		if err := cl.Initialize(); err != nil {
			m.FirstError = err.Error()
			break
		}
		if cl.Session != "" {
			m.Kept = true
		}
		m.Opened++
	}
	time.Sleep(200 * time.Millisecond)
	m.RSSAfter = p.rss()
	if m.Opened > 0 {
		m.BytesPer = float64(m.RSSAfter-m.RSSBefore) / float64(m.Opened)
	}
	return m
}

// measureTTFB opens a session's GET stream 30 times and reports the median
// time to the first byte of the response and of its body.
func measureTTFB(url, name string, round int) ttfb {
	t := ttfb{Server: name, Round: round}
	var heads, bodies []time.Duration
	for range 30 {
		cl := load.NewClient(url, "httpdriver")
		if err := cl.Initialize(); err != nil {
			t.FirstError = err.Error()
			return t
		}
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if cl.Session != "" {
			req.Header.Set("Mcp-Session-Id", cl.Session)
		}
		var first time.Time
		trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { first = time.Now() }}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
		t0 := time.Now()
		resp, err := cl.HC.Do(req)
		if err != nil {
			t.FirstError = err.Error()
			return t
		}
		t.Status = resp.StatusCode
		heads = append(heads, first.Sub(t0))
		got := make(chan time.Time, 1)
		go func() {
			b := make([]byte, 1)
			if n, _ := resp.Body.Read(b); n == 1 {
				got <- time.Now()
			}
			close(got)
		}()
		select {
		case at, ok := <-got:
			if ok {
				bodies = append(bodies, at.Sub(t0))
			}
		case <-time.After(time.Second):
		}
		resp.Body.Close()
		cl.HC.CloseIdleConnections()
	}
	h, _ := load.Percentiles(heads)
	t.HeaderUS = h
	t.BodyUS = -1
	if len(bodies) == len(heads) {
		t.BodyUS, _ = load.Percentiles(bodies)
	}
	return t
}
