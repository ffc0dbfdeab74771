// Command asker is a stdio MCP server for the bridge tests that speaks
// only the legacy revisions, as most servers do, and asks its client for
// input during a call with requests of its own: its "ask" tool sends the
// requests its arguments name (elicitation/create, sampling/createMessage,
// roots/list), all at once or one after the other's answer, and returns
// the answers. Its "cancelled" tool lists the calls the client cancelled.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
)

var (
	mu        sync.Mutex
	out       = bufio.NewWriter(os.Stdout)
	waiting   = map[string]chan json.RawMessage{} // request id → its answer
	nextID    int
	cancelled []string
)

func send(v any) {
	b, _ := json.Marshal(v)
	mu.Lock()
	defer mu.Unlock()
	out.Write(append(b, '\n'))
	out.Flush()
}

func text(s string) any {
	return map[string]any{"content": []any{map[string]string{"type": "text", "text": s}}}
}

// params are those of each input request.
var params = map[string]any{
	"elicitation/create":     map[string]any{"message": "Your name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}},
	"sampling/createMessage": map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Hi?"}}}, "maxTokens": 10},
	"roots/list":             map[string]any{},
}

// ask sends the client a request and returns a channel for its answer
// (its result or error, as JSON).
func ask(method string) chan json.RawMessage {
	mu.Lock()
	nextID++
	id := fmt.Sprintf("asker-%d", nextID)
	ch := make(chan json.RawMessage, 1)
	waiting[id] = ch
	mu.Unlock()
	send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params[method]})
	return ch
}

type askArgs struct {
	Methods  []string `json:"methods"`
	OneByOne bool     `json:"oneByOne"`
}

func call(id json.RawMessage, a askArgs) {
	var answers []string
	if a.OneByOne {
		for _, m := range a.Methods {
			answers = append(answers, m+"="+string(<-ask(m)))
		}
	} else {
		var chans []chan json.RawMessage
		for _, m := range a.Methods {
			chans = append(chans, ask(m))
		}
		for i, ch := range chans {
			answers = append(answers, a.Methods[i]+"="+string(<-ch))
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": text(strings.Join(answers, "; "))})
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		if m.Method == "" && m.ID != nil { // an answer to one of ours
			var id string
			json.Unmarshal(m.ID, &id)
			mu.Lock()
			ch := waiting[id]
			delete(waiting, id)
			mu.Unlock()
			if ch != nil {
				if m.Error != nil {
					ch <- json.RawMessage(`{"error":` + string(m.Error) + `}`)
				} else {
					ch <- m.Result
				}
			}
			continue
		}
		if m.Method == "notifications/cancelled" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(m.Params, &p)
			mu.Lock()
			cancelled = append(cancelled, string(p.RequestID))
			mu.Unlock()
			continue
		}
		if m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"protocolVersion": "2025-06-18",
				"serverInfo":      map[string]string{"name": "asker", "version": "1"},
				"capabilities":    map[string]any{"tools": map[string]any{}},
			}})
		case "tools/list":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"tools": []any{
				map[string]any{"name": "ask", "inputSchema": map[string]any{"type": "object"}},
				map[string]any{"name": "cancelled", "inputSchema": map[string]any{"type": "object"}},
			}}})
		case "tools/call":
			var p struct {
				Name      string
				Arguments askArgs
			}
			json.Unmarshal(m.Params, &p)
			if p.Name == "cancelled" {
				mu.Lock()
				s := strings.Join(cancelled, ",")
				mu.Unlock()
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": text("cancelled=" + s)})
				continue
			}
			go call(m.ID, p.Arguments)
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
		}
	}
}
