// Command ref is the reference: the least a standard-library stdio MCP
// server can do. It reads one line at a time with no size limit, decodes it
// with encoding/json, answers in order on the same goroutine, and flushes
// its buffered output only when no more input is waiting. It checks
// nothing it does not need to; it is the limit of the approach, not a
// server to ship.
package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
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

func main() {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			if json.Unmarshal(line, &req) != nil {
				enc.Encode(response{JSONRPC: "2.0", ID: json.RawMessage("null"),
					Error: map[string]any{"code": -32700, "message": "parse error"}})
			} else if req.ID != nil {
				enc.Encode(handle(&req))
			}
		}
		if err == io.EOF {
			out.Flush()
			return
		}
		if in.Buffered() == 0 {
			if out.Flush() != nil {
				return
			}
		}
	}
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
	case "tools/call":
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
	default:
		r.Error = map[string]any{"code": -32601, "message": "method not found"}
	}
	return r
}
