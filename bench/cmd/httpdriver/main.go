// Command httpdriver runs the Streamable HTTP benchmarks of issue 24 side
// by side: the same driver, every server started fresh each round in a
// rotated order, medians over rounds, and ratios to the faster peer.
//
//	httpdriver -bindir DIR [-rounds 3] [-duration 2s] [-json out.json] [-md out.md]
//
// DIR holds mcpship-echo, gosdk, mcpgo (each run with -http) and mcpship
// (run as `mcpship serve --transport http` with a manifest whose echo tool
// runs -program). bench/http.sh builds them and runs this.
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
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

type serverSpec struct {
	Name string   `json:"name"`
	Peer bool     `json:"peer"` // one of the SDKs compared against
	Args []string `json:"args"` // after the binary directory's program
}

type cell struct {
	Server  string  `json:"server"`
	Era     string  `json:"era"`
	Clients int     `json:"clients"`
	Round   int     `json:"round"`
	Calls   int     `json:"calls"`
	Errors  int     `json:"errors"`
	FirstEr string  `json:"first_error,omitempty"`
	PerSec  float64 `json:"calls_per_sec"`
	P50us   float64 `json:"p50_us"`
	P99us   float64 `json:"p99_us"`
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
	rounds := flag.Int("rounds", 3, "rounds; each starts every server afresh, in a rotated order")
	duration := flag.Duration("duration", 2*time.Second, "how long each (server, era, clients) cell runs")
	sessions := flag.Int("sessions", 2000, "legacy sessions opened for the memory figure")
	program := flag.String("program", "/bin/echo", "the program the manifest tool runs, and the fork/exec floor")
	commit := flag.String("commit", "", "commit of mcpship under test, for the report")
	jsonOut := flag.String("json", "", "write the raw results here")
	mdOut := flag.String("md", "", "write the report here")
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
	res := &results{Started: time.Now().UTC(), Commit: *commit, Program: *program, Duration: duration.String(), Servers: specs}
	res.Load[0] = loadavg()
	for r := range *rounds {
		order := append(slices.Clone(specs[r%len(specs):]), specs[:r%len(specs)]...)
		for _, sp := range order {
			fmt.Fprintf(os.Stderr, "round %d: %s\n", r+1, sp.Name)
			runServer(res, sp, r+1, *bindir, *duration, *sessions)
		}
		for _, n := range clientCounts {
			res.Cells = append(res.Cells, floorCell(*program, n, r+1, *duration))
		}
	}
	res.Load[1] = loadavg()
	res.Ended = time.Now().UTC()
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fatal(err)
		}
	}
	report := markdown(res)
	if *mdOut != "" {
		if err := os.WriteFile(*mdOut, []byte(report), 0o644); err != nil {
			fatal(err)
		}
	}
	fmt.Print(report)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "httpdriver:", err)
	os.Exit(1)
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

// proc is a running server.
type proc struct {
	cmd *exec.Cmd
	url string
}

func start(bindir string, sp serverSpec) (*proc, error) {
	cmd := exec.Command(filepath.Join(bindir, sp.Args[0]), sp.Args[1:]...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "serving MCP on "); ok {
				urls <- u
			}
		}
	}()
	select {
	case u := <-urls:
		return &proc{cmd: cmd, url: u}, nil
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("%s did not start", sp.Name)
	}
}

func (p *proc) stop() {
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

// rss returns the resident set size of the process, in bytes.
func (p *proc) rss() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func runServer(res *results, sp serverSpec, round int, bindir string, d time.Duration, sessions int) {
	p, err := start(bindir, sp)
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpdriver:", err)
		return
	}
	defer p.stop()
	// Warm up: the first calls of a process pay for its lazy set-up.
	for _, era := range []string{"legacy", "modern"} {
		runCell(p.url, sp.Name, era, 4, round, 300*time.Millisecond)
	}
	res.Sessions = append(res.Sessions, measureSessions(p, sp.Name, round, sessions))
	res.TTFB = append(res.TTFB, measureTTFB(p.url, sp.Name, round))
	for _, era := range []string{"legacy", "modern"} {
		for _, n := range clientCounts {
			res.Cells = append(res.Cells, runCell(p.url, sp.Name, era, n, round, d))
		}
	}
}

const (
	initBody   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"httpdriver","version":"1"}}}`
	inited     = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	legacyCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	modernCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
)

// client is one MCP client: its own connections, and its session if the
// server minted one.
type client struct {
	hc      *http.Client
	url     string
	session string
}

func newClient(url string) *client {
	tr := &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}
	return &client{hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}, url: url}
}

func (c *client) post(body string, hdr map[string]string) (int, http.Header, []byte, error) {
	req, err := http.NewRequest("POST", c.url, strings.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header, b, err
}

// initialize opens a legacy session.
func (c *client) initialize() error {
	status, hdr, b, err := c.post(initBody, nil)
	if err != nil {
		return err
	}
	if status != 200 {
		return fmt.Errorf("initialize: %d %s", status, b)
	}
	c.session = hdr.Get("Mcp-Session-Id")
	_, _, _, err = c.post(inited, map[string]string{"MCP-Protocol-Version": "2025-11-25"})
	return err
}

func (c *client) call(era string, id int) error {
	var status int
	var b []byte
	var err error
	if era == "legacy" {
		status, _, b, err = c.post(fmt.Sprintf(legacyCall, id), map[string]string{"MCP-Protocol-Version": "2025-11-25"})
	} else {
		status, _, b, err = c.post(fmt.Sprintf(modernCall, id), map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"})
	}
	switch {
	case err != nil:
		return err
	case status != 200 || !bytes.Contains(b, []byte(`"text":"hi`)):
		return fmt.Errorf("%d %.200s", status, b)
	}
	return nil
}

// runCell runs n clients for d and measures their calls.
func runCell(url, name, era string, n, round int, d time.Duration) cell {
	c := cell{Server: name, Era: era, Clients: n, Round: round}
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	startAt := time.Now()
	for i := range n {
		wg.Go(func() {
			cl := newClient(url)
			defer cl.hc.CloseIdleConnections()
			if era == "legacy" {
				if err := cl.initialize(); err != nil {
					mu.Lock()
					c.Errors++
					c.FirstEr = cmp(c.FirstEr, err.Error())
					mu.Unlock()
					return
				}
			}
			var mine []time.Duration
			errs, first := 0, ""
			for id := i * 10_000_000; time.Now().Before(deadline); id++ {
				t0 := time.Now()
				err := cl.call(era, id)
				if err != nil {
					errs++
					first = cmp(first, err.Error())
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			c.Errors += errs
			c.FirstEr = cmp(c.FirstEr, first)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(startAt)
	c.Calls = len(lat)
	c.PerSec = float64(len(lat)) / elapsed.Seconds()
	c.P50us, c.P99us = percentiles(lat)
	return c
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func percentiles(lat []time.Duration) (p50, p99 float64) {
	if len(lat) == 0 {
		return 0, 0
	}
	slices.Sort(lat)
	at := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Nanoseconds()) / 1e3
	}
	return at(0.50), at(0.99)
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
	c.P50us, c.P99us = percentiles(lat)
	return c
}

// measureSessions opens n legacy sessions and keeps them open, and reports
// how much the server's resident memory grew per session.
func measureSessions(p *proc, name string, round, n int) sessionMem {
	m := sessionMem{Server: name, Round: round}
	time.Sleep(200 * time.Millisecond)
	m.RSSBefore = p.rss()
	cl := newClient(p.url)
	defer cl.hc.CloseIdleConnections()
	for range n {
		cl.session = ""
		if err := cl.initialize(); err != nil {
			m.FirstError = err.Error()
			break
		}
		if cl.session != "" {
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
		cl := newClient(url)
		if err := cl.initialize(); err != nil {
			t.FirstError = err.Error()
			return t
		}
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if cl.session != "" {
			req.Header.Set("Mcp-Session-Id", cl.session)
		}
		var first time.Time
		trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { first = time.Now() }}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
		t0 := time.Now()
		resp, err := cl.hc.Do(req)
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
		cl.hc.CloseIdleConnections()
	}
	h, _ := percentiles(heads)
	t.HeaderUS = h
	t.BodyUS = -1
	if len(bodies) == len(heads) {
		t.BodyUS, _ = percentiles(bodies)
	}
	return t
}
