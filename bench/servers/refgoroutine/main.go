// Command refgoroutine is the reference server (../ref) in the textbook
// concurrent model: one goroutine reads and decodes requests and answers
// all but tools/call itself; each tools/call runs on a goroutine of its own,
// at most 16 at once (a semaphore), which encodes its reply and writes it
// under a mutex. It checks no more than ref does. Its figures beside ref's
// show what this model costs by itself: a goroutine, a wake-up and a
// write(2) per call.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"sync"
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   any             `json:"error,omitempty"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

var tools = json.RawMessage(`{"tools":[{"name":"echo","description":"Echo the text back.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`)

// out writes one reply at a time.
var out struct {
	sync.Mutex
	w io.Writer
}

func write(r response) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(r)
	out.Lock()
	out.w.Write(buf.Bytes())
	out.Unlock()
}

func main() {
	out.w = os.Stdout
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	sem := make(chan struct{}, 16)
	var calls sync.WaitGroup
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			switch {
			case json.Unmarshal(line, &req) != nil:
				write(response{JSONRPC: "2.0", ID: json.RawMessage("null"),
					Error: map[string]any{"code": -32700, "message": "parse error"}})
			case req.ID == nil:
			case req.Method == "tools/call":
				sem <- struct{}{}
				calls.Add(1)
				go func() {
					defer calls.Done()
					write(call(&req))
					<-sem
				}()
			default:
				write(handle(&req))
			}
		}
		if err != nil {
			calls.Wait()
			return
		}
	}
}

func call(req *request) response {
	r := response{JSONRPC: "2.0", ID: req.ID}
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			Text string `json:"text"`
		} `json:"arguments"`
	}
	if json.Unmarshal(req.Params, &p) != nil || p.Name != "echo" {
		r.Error = map[string]any{"code": -32602, "message": "invalid params"}
	} else {
		r.Result = map[string]any{"content": []content{{"text", p.Arguments.Text}}}
	}
	return r
}

func handle(req *request) response {
	r := response{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		r.Result = map[string]any{"protocolVersion": "2025-06-18",
			"capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo":   map[string]any{"name": "bench-ref", "version": "1.0.0"}}
	case "ping":
		r.Result = struct{}{}
	case "tools/list":
		r.Result = tools
	default:
		r.Error = map[string]any{"code": -32601, "message": "method not found"}
	}
	return r
}
