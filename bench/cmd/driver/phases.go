package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

type coldResult struct {
	N       int     `json:"n"`
	InitMed float64 `json:"init_med_ms"`
	InitP90 float64 `json:"init_p90_ms"`
	ListMed float64 `json:"list_med_ms"`
	ListP90 float64 `json:"list_p90_ms"`
	ExitMed float64 `json:"exit_med_ms"`
	Err     string  `json:"err,omitempty"`
}

// cold spawns each server n times, interleaved (one spawn of each server,
// then the next), so that a change in the machine's load hits every
// server alike. Each spawn measures spawn → initialize reply, → tools/list
// reply (after initialized), → exit after stdin is closed.
func cold(servers []*server, n int) map[string]coldResult {
	type acc struct {
		ini, list, exit []float64
		err             string
	}
	accs := map[string]*acc{}
	for _, s := range servers {
		accs[s.Name] = &acc{}
	}
	for range n {
		for _, s := range servers {
			a := accs[s.Name]
			if a.err != "" {
				continue
			}
			ini, list, exit, err := coldOnce(s)
			if err != nil {
				a.err = err.Error()
				continue
			}
			a.ini, a.list, a.exit = append(a.ini, ini), append(a.list, list), append(a.exit, exit)
		}
	}
	out := map[string]coldResult{}
	for name, a := range accs {
		r := coldResult{N: n, Err: a.err}
		if a.err == "" {
			r.InitMed, r.InitP90 = quantile(a.ini, .5), quantile(a.ini, .9)
			r.ListMed, r.ListP90 = quantile(a.list, .5), quantile(a.list, .9)
			r.ExitMed = quantile(a.exit, .5)
		}
		out[name] = r
	}
	return out
}

func coldOnce(s *server) (ini, list, exit float64, err error) {
	t0 := time.Now()
	p, err := start(s)
	if err != nil {
		return 0, 0, 0, err
	}
	err = func() error {
		if err := p.send(initLine); err != nil {
			return err
		}
		line, err := p.recvTimeout(10 * time.Second)
		if err != nil {
			return fmt.Errorf("initialize: %v", err)
		}
		ini = ms(time.Since(t0))
		if err := checkResult(line, "0"); err != nil {
			return fmt.Errorf("initialize: %v", err)
		}
		p.send(initializedLine)
		p.send(listLine)
		line, err = p.recvTimeout(10 * time.Second)
		if err != nil {
			return fmt.Errorf("tools/list: %v", err)
		}
		list = ms(time.Since(t0))
		return checkList(line, s.Tool)
	}()
	st := p.close(10 * time.Second)
	exit = ms(time.Since(t0))
	if err == nil && !p.state.Success() {
		err = errors.New("exit: " + st)
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%v (stderr: %s)", err, p.stderr)
	}
	return ini, list, exit, nil
}

func checkList(line []byte, tool string) error {
	if err := checkResult(line, "1"); err != nil {
		return fmt.Errorf("tools/list: %v", err)
	}
	r, _ := parseReply(line)
	var tools []struct{ Name string }
	if err := json.Unmarshal(r.Result.Tools, &tools); err != nil {
		return fmt.Errorf("tools/list: tools: %v", err)
	}
	for _, t := range tools {
		if t.Name == tool {
			return nil
		}
	}
	return fmt.Errorf("tools/list: no tool %q in %s", tool, r.Result.Tools)
}

type seqResult struct {
	N           int     `json:"n"`
	CallsPerSec float64 `json:"calls_per_s"`
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	CPUus       float64 `json:"cpu_us_per_call"`
}

type pipeResult struct {
	N           int     `json:"n"`
	CallsPerSec float64 `json:"calls_per_s"`
	CPUus       float64 `json:"cpu_us_per_call"`
	InOrder     bool    `json:"in_order"`
	// WritesPerCall is the server's write system calls per reply.
	WritesPerCall float64 `json:"writes_per_call"`
	// MaxOutOfOrder is the largest distance between a reply's position and
	// its request's.
	MaxOutOfOrder int `json:"max_out_of_order"`
}

type sessionResult struct {
	Seq    seqResult  `json:"seq"`
	Pipe   pipeResult `json:"pipe"`
	HWM    int64      `json:"vmhwm_bytes"`
	Anon   int64      `json:"rss_anon_bytes"` // RssAnon at the same moment: private memory
	File   int64      `json:"rss_file_bytes"` // RssFile: mapped pages of the binary (shared page cache)
	Exit   string     `json:"exit"`
	Err    string     `json:"err,omitempty"`
	Stderr string     `json:"stderr,omitempty"`
}

type bigResult struct {
	MiB     int     `json:"mib"`
	Outcome string  `json:"outcome"` // ok, error-reply, error-result, exit-no-reply, hung
	Ms      float64 `json:"ms"`
	Alive   bool    `json:"alive_after"`
	HWM     int64   `json:"vmhwm_bytes"`
	Detail  string  `json:"detail,omitempty"`
	Exit    string  `json:"exit"`
	Stderr  string  `json:"stderr,omitempty"`
}

// big sends one tools/call line of mib MiB to a fresh process and reports
// what came back, how long it took, and whether a ping still works.
func big(s *server, mib int) (r bigResult) {
	r.MiB = mib
	p, err := start(s)
	if err != nil {
		r.Outcome, r.Detail = "start failed", err.Error()
		return r
	}
	defer func() {
		r.Exit = p.close(15 * time.Second)
		r.Stderr = p.stderr.String()
	}()
	if err := p.handshake(); err != nil {
		r.Outcome, r.Detail = "handshake failed", err.Error()
		return r
	}
	prefix := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + s.Tool + `","arguments":{"text":"`
	const suffix = "\"}}}\n"
	n := mib<<20 - len(prefix) - len(suffix) + 1 // the line is mib MiB with its newline
	line := make([]byte, 0, mib<<20+1)
	line = append(line, prefix...)
	line = append(line, bytes.Repeat([]byte("x"), n)...)
	line = append(line, suffix...)
	text := line[len(prefix) : len(prefix)+n]

	werr := make(chan error, 1)
	t0 := time.Now()
	go func() { _, err := p.in.Write(line); werr <- err }()
	out, err := p.recvTimeout(60 * time.Second)
	r.Ms = ms(time.Since(t0))
	var wErr error
	select {
	case wErr = <-werr:
	case <-time.After(5 * time.Second):
		wErr = errors.New("still writing")
	}
	if err != nil {
		r.Outcome = "exit-no-reply"
		if !errors.Is(err, io.EOF) {
			r.Outcome = "hung"
		}
		r.Detail = fmt.Sprintf("read: %v; request write: %v", err, wErr)
		return r
	}
	rep, err := parseReply(out)
	switch {
	case err != nil:
		r.Outcome, r.Detail = "bad reply", err.Error()
	case string(rep.ID) != "7" && rep.Error == nil:
		r.Outcome, r.Detail = "bad reply", "id "+string(rep.ID)
	case rep.Error != nil:
		r.Outcome = "error-reply"
		r.Detail = fmt.Sprintf("id %s, code %d: %.200s", rep.ID, rep.Error.Code, rep.Error.Message)
	case rep.Result.IsError:
		r.Outcome = "error-result"
		if len(rep.Result.Content) > 0 {
			r.Detail = fmt.Sprintf("%.200s", rep.Result.Content[0].Text)
		}
	case s.Echo && (len(rep.Result.Content) != 1 || rep.Result.Content[0].Text != string(text)):
		r.Outcome, r.Detail = "wrong echo", ""
	default:
		r.Outcome = "ok"
	}
	if wErr != nil {
		r.Detail += "; request write: " + wErr.Error()
	}
	// Is the session alive?
	if p.send([]byte(`{"jsonrpc":"2.0","id":8,"method":"ping"}`+"\n")) == nil {
		if l, err := p.recvTimeout(10 * time.Second); err == nil && checkResult(l, "8") == nil {
			r.Alive = true
		}
	}
	r.HWM = vmHWM(p.pid())
	return r
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func perCall(d time.Duration, n int) float64 {
	if d < 0 {
		return -1
	}
	return float64(d.Nanoseconds()) / 1e3 / float64(n)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// quantile returns the q-quantile of xs (nearest rank); it sorts xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	i := int(q*float64(len(xs))+0.5) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

func median(xs []float64) float64 {
	ys := slices.Clone(xs)
	slices.Sort(ys)
	n := len(ys)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return ys[n/2]
	}
	return (ys[n/2-1] + ys[n/2]) / 2
}
