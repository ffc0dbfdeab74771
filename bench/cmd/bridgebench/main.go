// Command bridgebench measures what serving a stdio MCP server over HTTP
// adds to a call: the same driver calls a child's echo tool directly over
// stdio, through mcpship serve --transport http -- CHILD (legacy sessions
// and 2026-07-28 stateless requests) and through supergateway (stateful:
// a child per session; stateless: a child per request; and its
// 2026-07-28 path), in one run, every setup started afresh each round in
// a rotated order, medians over rounds.
//
//	bridgebench -mcpship BIN -supergateway JS -child NAME=CMD... [-rounds 3] [-duration 2s] [-json out.json] [-md out.md]
//
// bench/bridge.sh builds mcpship and the Go echo child, finds
// supergateway and server-everything (scripts/install-clients.sh), and
// runs this.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpship/mcpship/bench/internal/load"
	"github.com/mcpship/mcpship/mcp"
)

type cell struct {
	Child   string `json:"child"`
	Setup   string `json:"setup"`
	Clients int    `json:"clients"`
	Round   int    `json:"round"`
	load.Result
}

type results struct {
	Started  time.Time         `json:"started"`
	Ended    time.Time         `json:"ended"`
	Commit   string            `json:"commit,omitempty"`
	Load     [2]string         `json:"loadavg"`
	Cores    int               `json:"cores"`
	Duration string            `json:"duration_per_cell"`
	Children map[string]string `json:"children"`
	Cells    []cell            `json:"cells"`
}

// setup is one way of reaching the child: a driver of calls.
type setup struct {
	name  string
	start func(child string) (caller, func(), error)
}

// caller makes calls; newClient returns one client's call function.
type caller interface {
	newClient(ctx context.Context) (func(ctx context.Context, text string) error, error)
}

var clientCounts = []int{1, 16}

func main() {
	mcpshipBin := flag.String("mcpship", "", "the mcpship binary")
	sg := flag.String("supergateway", "", "supergateway's dist/index.js (run with node); empty: left out")
	run := load.RegisterFlags("setup", "child, setup, clients")
	var childSpecs []string
	flag.Func("child", "NAME=COMMAND of a stdio server with an echo tool (repeatable); COMMAND is split on spaces", func(s string) error {
		childSpecs = append(childSpecs, s)
		return nil
	})
	flag.Parse()
	if *mcpshipBin == "" || len(childSpecs) == 0 {
		fmt.Fprintln(os.Stderr, "bridgebench: -mcpship and -child are required")
		os.Exit(64)
	}
	children := map[string]string{}
	var childNames []string
	for _, s := range childSpecs {
		name, cmd, ok := strings.Cut(s, "=")
		if !ok {
			fatal(fmt.Errorf("-child %q: want NAME=COMMAND", s))
		}
		children[name] = cmd
		childNames = append(childNames, name)
	}
	setups := []setup{
		{"stdio direct", startDirect},
		{"mcpship legacy", func(c string) (caller, func(), error) { return startMcpship(*mcpshipBin, c, false) }},
		{"mcpship 2026-07-28", func(c string) (caller, func(), error) { return startMcpship(*mcpshipBin, c, true) }},
	}
	if *sg != "" {
		setups = append(setups,
			setup{"supergateway stateful", func(c string) (caller, func(), error) { return startSupergateway(*sg, c, true, false) }},
			setup{"supergateway stateless", func(c string) (caller, func(), error) { return startSupergateway(*sg, c, false, false) }},
			setup{"supergateway 2026-07-28", func(c string) (caller, func(), error) { return startSupergateway(*sg, c, false, true) }},
		)
	}
	res := results{Started: time.Now().UTC(), Commit: run.Commit, Duration: run.Duration.String(), Children: children, Cores: cores()}
	res.Load[0] = load.Loadavg()
	for round := 0; round < run.Rounds; round++ {
		for _, child := range childNames {
			order := slices.Clone(setups)
			for i := 0; i < round%len(order); i++ {
				order = append(order[1:], order[0])
			}
			for _, s := range order {
				c, stop, err := s.start(children[child])
				if err != nil {
					fmt.Fprintf(os.Stderr, "bridgebench: %s with %s: %v\n", s.name, child, err)
					continue
				}
				for _, n := range clientCounts {
					r := measure(c, n, run.Duration)
					r.Child, r.Setup, r.Round = child, s.name, round
					fmt.Fprintf(os.Stderr, "round %d %-8s %-24s %2d clients: %7.0f calls/s p50 %8.0f µs p99 %8.0f µs errors %d %s\n",
						round, child, s.name, n, r.PerSec, r.P50us, r.P99us, r.Errors, r.FirstError)
					res.Cells = append(res.Cells, r)
				}
				stop()
			}
		}
	}
	res.Load[1] = load.Loadavg()
	res.Ended = time.Now().UTC()
	if err := run.Write(res, report(&res, setups, childNames)); err != nil {
		fatal(err)
	}
}

// measure runs n clients, each making one call at a time, for d, after one
// warm-up call each.
func measure(c caller, n int, d time.Duration) cell {
	r := cell{Clients: n}
	ctx, cancel := context.WithTimeout(context.Background(), d+2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	calls := make([]func(context.Context, string) error, n)
	for i := range calls {
		call, err := c.newClient(ctx)
		if err == nil {
			err = call(ctx, "warm-up")
		}
		if err != nil {
			r.Errors++
			r.FirstError = err.Error()
			return r
		}
		calls[i] = call
	}
	start := time.Now()
	end := start.Add(d)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for k := 0; time.Now().Before(end); k++ {
				t := time.Now()
				err := calls[i](ctx, fmt.Sprintf("client %d call %d", i, k))
				mine = append(mine, time.Since(t))
				if err != nil {
					mu.Lock()
					r.Errors++
					r.FirstError = load.First(r.FirstError, err.Error())
					mu.Unlock()
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(lat)
	r.Calls = len(lat)
	r.PerSec = float64(len(lat)) / elapsed.Seconds()
	if len(lat) > 0 {
		r.P50us = float64(lat[len(lat)/2].Microseconds())
		r.P99us = float64(lat[len(lat)*99/100].Microseconds())
	}
	return r
}

// direct is the child over stdio, one connection that every client
// shares (the mcp package's client multiplexes the calls by id).
type direct struct{ cl *mcp.Client }

func startDirect(child string) (caller, func(), error) {
	f := strings.Fields(child)
	cmd := exec.Command(f[0], f[1:]...)
	cmd.Stderr = io.Discard
	cl, err := mcp.StartCommand(cmd, nil)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := cl.Initialize(ctx, ""); err != nil {
		cl.Close()
		return nil, nil, err
	}
	return &direct{cl}, func() { cl.Close() }, nil
}

func (d *direct) newClient(context.Context) (func(context.Context, string) error, error) {
	return func(ctx context.Context, text string) error {
		res, err := d.cl.CallTool(ctx, "echo", echoArgs(text))
		if err == nil && !strings.Contains(resultText(res), text) {
			err = fmt.Errorf("echo answered %q", resultText(res))
		}
		return err
	}, nil
}

func resultText(r *mcp.CallToolResult) string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// echoArgs are the arguments of both children's echo tools (mcpship-echo
// takes text, server-everything message).
func echoArgs(text string) map[string]string { return map[string]string{"text": text, "message": text} }

// overHTTP is a server on url; modern makes stateless 2026-07-28 calls,
// else each client initializes a session of 2025-06-18.
type overHTTP struct {
	url    string
	modern bool
}

func (h *overHTTP) newClient(ctx context.Context) (func(context.Context, string) error, error) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	hdr := http.Header{}
	if h.modern {
		hdr.Set("MCP-Protocol-Version", "2026-07-28")
		hdr.Set("Mcp-Method", "tools/call")
		hdr.Set("Mcp-Name", "echo")
	} else {
		_, rh, err := post(ctx, hc, h.url, hdr, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bridgebench","version":"0"}}}`)
		if err != nil {
			return nil, err
		}
		if sid := rh.Get("Mcp-Session-Id"); sid != "" {
			hdr.Set("Mcp-Session-Id", sid)
		}
		hdr.Set("MCP-Protocol-Version", "2025-06-18")
		if _, _, err := post(ctx, hc, h.url, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
			return nil, err
		}
	}
	id := 0
	return func(ctx context.Context, text string) error {
		id++
		args, _ := json.Marshal(echoArgs(text))
		meta := ""
		if h.modern {
			meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		}
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":%s%s}}`, id, args, meta)
		b, _, err := post(ctx, hc, h.url, hdr, body)
		if err == nil && !bytes.Contains(b, []byte(text)) {
			err = fmt.Errorf("reply without the text: %.200s", b)
		}
		return err
	}, nil
}

func post(ctx context.Context, hc *http.Client, url string, hdr http.Header, body string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = hdr.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("%s: %.200s", resp.Status, b)
	}
	return b, resp.Header, err
}

// startMcpship serves the child with mcpship serve --transport http.
func startMcpship(bin, child string, modern bool) (caller, func(), error) {
	args := append([]string{"serve", "--transport", "http", "--listen", "127.0.0.1:0", "--max-concurrent-calls", "1000", "--"}, strings.Fields(child)...)
	cmd := exec.Command(bin, args...)
	u, err := load.StartServing(cmd, time.Minute)
	if err != nil {
		return nil, nil, err
	}
	return &overHTTP{url: u, modern: modern}, func() { terminate(cmd) }, nil
}

// startSupergateway serves the child with supergateway's stdio to
// streamable HTTP gateway.
func startSupergateway(js, child string, stateful, modern bool) (caller, func(), error) {
	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	args := []string{js, "--stdio", child, "--outputTransport", "streamableHttp", "--port", fmt.Sprint(port), "--logLevel", "none"}
	if stateful {
		args = append(args, "--stateful")
	}
	cmd := exec.Command("node", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
			return nil, nil, fmt.Errorf("supergateway did not listen on %d", port)
		}
	}
	stop := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	return &overHTTP{url: url, modern: modern}, stop, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func terminate(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

func cores() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return bytes.Count(b, []byte("\nprocessor")) + 1
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bridgebench:", err)
	os.Exit(1)
}

// report writes the medians over rounds of each cell, and the latency
// each setup adds to the direct stdio call at one client.
func report(res *results, setups []setup, children []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Bridge latency: a stdio server's echo over HTTP\n\n")
	fmt.Fprintf(&b, "Run %s to %s, commit %s, %d cores, load average %s at the start and %s at the end; %s per cell, medians over rounds.\n\n",
		res.Started.Format(time.RFC3339), res.Ended.Format(time.RFC3339), res.Commit, res.Cores, res.Load[0], res.Load[1], res.Duration)
	for _, child := range children {
		fmt.Fprintf(&b, "## %s (`%s`)\n\n", child, res.Children[child])
		fmt.Fprintf(&b, "| setup | clients | calls/s | p50 µs | p99 µs | p50 added over stdio | errors |\n|---|---|---|---|---|---|---|\n")
		base := map[int]float64{}
		for _, n := range clientCounts {
			base[n] = median(res.Cells, child, "stdio direct", n, func(c cell) float64 { return c.P50us })
		}
		for _, s := range setups {
			for _, n := range clientCounts {
				var errs int
				for _, c := range res.Cells {
					if c.Child == child && c.Setup == s.name && c.Clients == n {
						errs += c.Errors
					}
				}
				p50 := median(res.Cells, child, s.name, n, func(c cell) float64 { return c.P50us })
				added := "—"
				if s.name != "stdio direct" && p50 >= 0 && base[n] >= 0 {
					added = fmt.Sprintf("%+.0f µs", p50-base[n])
				}
				fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f | %.0f | %s | %d |\n", s.name, n,
					median(res.Cells, child, s.name, n, func(c cell) float64 { return c.PerSec }), p50,
					median(res.Cells, child, s.name, n, func(c cell) float64 { return c.P99us }), added, errs)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func median(cells []cell, child, setup string, clients int, f func(cell) float64) float64 {
	var v []float64
	for _, c := range cells {
		if c.Child == child && c.Setup == setup && c.Clients == clients && c.Calls > 0 {
			v = append(v, f(c))
		}
	}
	if len(v) == 0 {
		return -1
	}
	slices.Sort(v)
	return v[len(v)/2]
}
