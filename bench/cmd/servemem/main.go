// Command servemem measures the peak resident set size (VmHWM) of
// `mcpship serve --manifest` in two runs, against the budget of issue 20:
// at most 4× the message cap plus the idle RSS.
//
//   - cap: one tools/call whose message is as long as the cap allows.
//   - mixed: 10,000 requests written without waiting for replies: in
//     each ten, a call of a slow tool with 100 KiB of arguments (they pile
//     up behind the running ones), a small and a 64 KiB call, two lists,
//     two pings, a cancellation of the slow call, a line that is not JSON
//     and an unknown method; and one message at the cap in each thousand.
//
// Each run starts a fresh serve, reads its VmHWM once initialize is
// answered (idle) and again once every request is answered (peak).
//
//	go run ./cmd/servemem -mcpship PATH [-n 10000] [-max-message-bytes N]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcpship/mcpship/bench/internal/load"
)

func main() {
	bin := flag.String("mcpship", "mcpship", "the mcpship binary to measure")
	n := flag.Int("n", 10000, "requests in the mixed run")
	capBytes := flag.Int("max-message-bytes", 16<<20, "serve's message cap")
	flag.Parse()
	log.SetFlags(0)

	dir, err := os.MkdirTemp("", "servemem")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	manifest := filepath.Join(dir, "mcpship.json")
	if err := os.WriteFile(manifest, []byte(manifestJSON), 0o644); err != nil {
		log.Fatal(err)
	}

	fmt.Printf("| run | requests | idle VmHWM (MiB) | peak VmHWM (MiB) | budget: 4× cap + idle (MiB) | within | seconds |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---|---:|\n")
	ok := true
	for _, r := range []struct {
		name string
		reqs []string
	}{
		{"one message at the cap", []string{callAtCap(1, *capBytes)}},
		{"mixed", mixed(*n, *capBytes)},
	} {
		idle, peak, secs, err := measure(*bin, manifest, *capBytes, r.reqs)
		if err != nil {
			log.Fatalf("%s: %v", r.name, err)
		}
		budget := 4*int64(*capBytes) + idle
		within := peak <= budget
		ok = ok && within
		fmt.Printf("| %s | %d | %.1f | %.1f | %.1f | %v | %.1f |\n", r.name, len(r.reqs), mib(idle), mib(peak), mib(budget), within, secs)
	}
	if !ok {
		os.Exit(1)
	}
}

const manifestJSON = `{
  "tools": [
    {"name": "echo", "description": "Print the text.", "command": ["printf", "%s", "{text}"], "output": "text",
     "inputs": {"text": {"required": true}}},
    {"name": "slow", "description": "Sleep a little, then print done.", "command": ["sh", "-c", "sleep 0.05; printf done", "sh", "{text}"], "output": "text",
     "inputs": {"text": {"required": true}}}
  ]
}`

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func call(id int, tool, text string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": map[string]any{"text": text}}})
	return string(b)
}

// callAtCap is a call of echo whose line is exactly capBytes long.
func callAtCap(id, capBytes int) string {
	empty := call(id, "echo", "")
	return call(id, "echo", strings.Repeat("x", capBytes-len(empty)))
}

// mixed returns n requests (and notifications, which get no reply).
func mixed(n, capBytes int) []string {
	big := strings.Repeat("b", 100<<10)
	medium := strings.Repeat("m", 64<<10)
	var reqs []string
	for i := 1; len(reqs) < n; i++ {
		var r string
		switch {
		case i%1000 == 999:
			r = callAtCap(i, capBytes)
		case i%10 == 0:
			r = call(i, "slow", big)
		case i%10 == 1:
			r = call(i, "echo", "hello")
		case i%10 == 2:
			r = call(i, "echo", medium)
		case i%10 == 3 || i%10 == 8:
			r = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/list"}`
		case i%10 == 4 || i%10 == 9:
			r = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`
		case i%10 == 5:
			// Cancels the slow call five requests back; no reply of its own.
			r = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + strconv.Itoa(i-5) + `}}`
		case i%10 == 6:
			r = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{` // not JSON
		default:
			r = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"no/such/method"}`
		}
		reqs = append(reqs, r)
	}
	return reqs
}

// measure starts serve, initializes, reads the idle VmHWM, writes reqs
// without waiting and reads replies until the input is written and every
// request with an id is answered or cancelled; then it reads the peak.
func measure(bin, manifest string, capBytes int, reqs []string) (idle, peak int64, secs float64, err error) {
	cmd := exec.Command(bin, "serve", "--manifest", manifest, "--max-message-bytes", strconv.Itoa(capBytes))
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, 0, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	defer cmd.Process.Kill()
	out := bufio.NewReaderSize(outPipe, 1<<20)
	io.WriteString(in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"servemem","version":"0"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if _, err := out.ReadBytes('\n'); err != nil {
		return 0, 0, 0, fmt.Errorf("initialize: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	idle = hwm(cmd.Process.Pid)

	start := time.Now()
	want := 0
	for _, r := range reqs {
		if !strings.Contains(r, "notifications/") {
			want++
		}
	}
	// Cancelled calls may send nothing, so replies are counted until none
	// came for a while once everything is written.
	written := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(in, 256<<10)
		for _, r := range reqs {
			if _, err := w.WriteString(r + "\n"); err != nil {
				written <- err
				return
			}
		}
		written <- w.Flush()
	}()
	lines := make(chan struct{}, 1024)
	go func() {
		for {
			if _, err := out.ReadBytes('\n'); err != nil {
				close(lines)
				return
			}
			lines <- struct{}{}
		}
	}()
	got := 0
	done := false
	for !done {
		select {
		case err := <-written:
			if err != nil {
				return 0, 0, 0, fmt.Errorf("writing requests: %v", err)
			}
			written = nil
		case _, ok := <-lines:
			if !ok {
				return 0, 0, 0, fmt.Errorf("serve closed its output after %d of %d replies", got, want)
			}
			got++
			done = got >= want && written == nil
		case <-time.After(5 * time.Second):
			done = written == nil
		}
	}
	secs = time.Since(start).Seconds()
	peak = hwm(cmd.Process.Pid)
	in.Close()
	cmd.Wait()
	return idle, peak, secs, nil
}

// hwm returns VmHWM of pid in bytes.
func hwm(pid int) int64 { return load.StatusBytes(pid, "VmHWM:")[0] }
