// Command notifier is a stdio MCP server for the bridge tests that sends
// the notifications a server sends outside progress: list changes,
// resource updates and log messages, when its "poke" tool asks, during
// the call or after its reply. Its "state" tool reports the subscriptions
// and the log level it was given.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

var (
	mu    sync.Mutex
	out   = bufio.NewWriter(os.Stdout)
	subs  = map[string]bool{}
	level = "unset"
	next  []func() // to send during the next call of state
)

func send(v any) {
	b, _ := json.Marshal(v)
	mu.Lock()
	defer mu.Unlock()
	out.Write(append(b, '\n'))
	out.Flush()
}

func notify(method string, params any) {
	send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func text(s string) any {
	return map[string]any{"content": []any{map[string]string{"type": "text", "text": s}}}
}

type poke struct {
	What  string `json:"what"`  // list_changed, updated, log
	When  string `json:"when"`  // during (the default), after the reply, or during the next call of state
	URI   string `json:"uri"`   // of updated
	Level string `json:"level"` // of log
	Data  string `json:"data"`  // of log
}

func (p poke) send() {
	switch p.What {
	case "list_changed":
		notify("notifications/tools/list_changed", nil)
		notify("notifications/prompts/list_changed", nil)
		notify("notifications/resources/list_changed", nil)
	case "updated":
		notify("notifications/resources/updated", map[string]string{"uri": p.URI})
	case "log":
		notify("notifications/message", map[string]any{"level": p.Level, "logger": "notifier", "data": p.Data})
	}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}

		var result any = map[string]any{}
		var after func()
		switch m.Method {
		case "initialize":
			result = map[string]any{
				"protocolVersion": "2025-06-18",
				"serverInfo":      map[string]string{"name": "notifier", "version": "1.2.3"},
				"capabilities": map[string]any{
					"tools":     map[string]any{"listChanged": true},
					"prompts":   map[string]any{"listChanged": true},
					"resources": map[string]any{"listChanged": true, "subscribe": true},
					"logging":   map[string]any{},
				},
			}
		case "tools/list":
			result = map[string]any{"tools": []any{
				map[string]any{"name": "poke", "inputSchema": map[string]any{"type": "object"}},
				map[string]any{"name": "state", "inputSchema": map[string]any{"type": "object"}},
			}}
		case "prompts/list":
			result = map[string]any{"prompts": []any{}}
		case "resources/list":
			result = map[string]any{"resources": []any{}}
		case "resources/subscribe", "resources/unsubscribe":
			var p struct{ URI string }
			json.Unmarshal(m.Params, &p)
			mu.Lock()
			if m.Method == "resources/subscribe" {
				subs[p.URI] = true
			} else {
				delete(subs, p.URI)
			}
			mu.Unlock()
		case "logging/setLevel":
			var p struct{ Level string }
			json.Unmarshal(m.Params, &p)
			mu.Lock()
			level = p.Level
			mu.Unlock()
		case "tools/call":
			var p struct {
				Name      string
				Arguments poke
			}
			json.Unmarshal(m.Params, &p)
			switch p.Name {
			case "poke":
				switch p.Arguments.When {
				case "after":
					after = p.Arguments.send
				case "next":
					next = append(next, p.Arguments.send)
				default:
					p.Arguments.send()
				}
				result = text("poked")
			case "state":
				for _, f := range next {
					f()
				}
				next = nil
				mu.Lock()
				var uris []string
				for u := range subs {
					uris = append(uris, u)
				}
				sort.Strings(uris)
				result = text(fmt.Sprintf("level=%s subs=%s", level, strings.Join(uris, ",")))
				mu.Unlock()
			}
		}
		send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		if after != nil {
			// Right after the reply, before the next request is read,
			// so that they come in the order of the pokes: they belong
			// to no request, since the request ended with its reply.
			after()
		}
	}
}
