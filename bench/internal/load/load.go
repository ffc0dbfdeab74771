// Package load holds what the side-by-side benchmark drivers share: the
// flags of a run, an MCP client over Streamable HTTP making one tools/call
// at a time, the figures of a cell of calls, and writing the report.
package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Flags are the flags of a run that every driver takes.
type Flags struct {
	Rounds   int
	Duration time.Duration
	Commit   string
	JSON, MD string
}

// RegisterFlags defines -rounds, -duration, -commit, -json and -md on the
// default flag set. unit names what each round starts afresh ("server"),
// cell what a cell is made of ("server, era, clients").
func RegisterFlags(unit, cell string) *Flags {
	f := &Flags{}
	flag.IntVar(&f.Rounds, "rounds", 3, "rounds; each starts every "+unit+" afresh, in a rotated order")
	flag.DurationVar(&f.Duration, "duration", 2*time.Second, "how long each ("+cell+") cell runs")
	flag.StringVar(&f.Commit, "commit", "", "commit of mcpship under test, for the report")
	flag.StringVar(&f.JSON, "json", "", "write the raw results here")
	flag.StringVar(&f.MD, "md", "", "write the report here")
	return f
}

// Write writes res as indented JSON to f.JSON and report to f.MD, where
// they are set, and prints report.
func (f *Flags) Write(res any, report string) error {
	if f.JSON != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(f.JSON, b, 0o644); err != nil {
			return err
		}
	}
	if f.MD != "" {
		if err := os.WriteFile(f.MD, []byte(report), 0o644); err != nil {
			return err
		}
	}
	fmt.Print(report)
	return nil
}

// Result is what a cell of calls measured.
type Result struct {
	Calls      int     `json:"calls"`
	Errors     int     `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	PerSec     float64 `json:"calls_per_sec"`
	P50us      float64 `json:"p50_us"`
	P99us      float64 `json:"p99_us"`
}

// StartServing starts cmd, an MCP server over HTTP, and returns the URL
// it says it serves on ("serving MCP on URL" on stderr), waiting up to
// timeout.
func StartServing(cmd *exec.Cmd, timeout time.Duration) (string, error) {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
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
		return u, nil
	case <-time.After(timeout):
		cmd.Process.Kill()
		cmd.Wait()
		return "", fmt.Errorf("%s did not say where it serves within %v", filepath.Base(cmd.Path), timeout)
	}
}

const (
	initBody   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":%q,"version":"1"}}}`
	inited     = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	legacyCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	modernCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
)

// Client is one MCP client: its own connections, and its session if the
// server minted one.
type Client struct {
	HC      *http.Client
	URL     string
	Session string
	name    string
}

// NewClient returns a client of url that names itself name in initialize.
func NewClient(url, name string) *Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}
	return &Client{HC: &http.Client{Transport: tr, Timeout: 30 * time.Second}, URL: url, name: name}
}

// Post posts body with the headers hdr (and the session's id) and returns
// the reply's status, headers and body.
func (c *Client) Post(body string, hdr map[string]string) (int, http.Header, []byte, error) {
	req, err := http.NewRequest("POST", c.URL, strings.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if c.Session != "" {
		req.Header.Set("Mcp-Session-Id", c.Session)
	}
	resp, err := c.HC.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header, b, err
}

// Initialize opens a legacy session.
func (c *Client) Initialize() error {
	status, hdr, b, err := c.Post(fmt.Sprintf(initBody, c.name), nil)
	if err != nil {
		return err
	}
	if status != 200 {
		return fmt.Errorf("initialize: %d %s", status, b)
	}
	c.Session = hdr.Get("Mcp-Session-Id")
	_, _, _, err = c.Post(inited, map[string]string{"MCP-Protocol-Version": "2025-11-25"})
	return err
}

// Call calls the echo tool with text "hi" as request id: era "legacy"
// within the session, else as a stateless 2026-07-28 request.
func (c *Client) Call(era string, id int) error {
	var status int
	var b []byte
	var err error
	if era == "legacy" {
		status, _, b, err = c.Post(fmt.Sprintf(legacyCall, id), map[string]string{"MCP-Protocol-Version": "2025-11-25"})
	} else {
		status, _, b, err = c.Post(fmt.Sprintf(modernCall, id), map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"})
	}
	switch {
	case err != nil:
		return err
	case status != 200 || !bytes.Contains(b, []byte(`"text":"hi`)):
		return fmt.Errorf("%d %.200s", status, b)
	}
	return nil
}

// Run runs n clients of url, named name, for d, each making one call of
// era at a time (a legacy client initializes first), and measures their
// calls.
func Run(url, name, era string, n int, d time.Duration) Result {
	var r Result
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	startAt := time.Now()
	for i := range n {
		wg.Go(func() {
			cl := NewClient(url, name)
			defer cl.HC.CloseIdleConnections()
			if era == "legacy" {
				if err := cl.Initialize(); err != nil {
					mu.Lock()
					r.Errors++
					r.FirstError = First(r.FirstError, err.Error())
					mu.Unlock()
					return
				}
			}
			var mine []time.Duration
			errs, firstErr := 0, ""
			for id := i * 10_000_000; time.Now().Before(deadline); id++ {
				t0 := time.Now()
				if err := cl.Call(era, id); err != nil {
					errs++
					firstErr = First(firstErr, err.Error())
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			r.Errors += errs
			r.FirstError = First(r.FirstError, firstErr)
			mu.Unlock()
		})
	}
	wg.Wait()
	r.Calls = len(lat)
	r.PerSec = float64(len(lat)) / time.Since(startAt).Seconds()
	r.P50us, r.P99us = Percentiles(lat)
	return r
}

// First is a unless it is empty, else b.
func First(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Percentiles returns the 50th and 99th percentiles of lat, in µs; it
// sorts lat.
func Percentiles(lat []time.Duration) (p50, p99 float64) {
	if len(lat) == 0 {
		return 0, 0
	}
	slices.Sort(lat)
	at := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Nanoseconds()) / 1e3
	}
	return at(0.50), at(0.99)
}
