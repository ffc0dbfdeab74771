package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpship/mcpship/internal/mcpproxy"
)

// recorder is a proxy that answers with the request it got, and asks
// the client for a sample first when the method is "ask".
type recorder struct{ proxyBase }

// proxyBase gives a test proxy the Listen and EndSession of one that
// keeps nothing for a listen or a session.
type proxyBase struct{}

func (proxyBase) Listen(context.Context, *mcpproxy.Request) (func(), error) { return nil, nil }
func (proxyBase) EndSession(string)                                         {}

func (recorder) Capabilities() json.RawMessage { return json.RawMessage(`{"tools":{},"prompts":{}}`) }

func (recorder) Serve(ctx context.Context, r *mcpproxy.Request) (json.RawMessage, error) {
	if r.Method == "ask" {
		return r.Request(ctx, "sampling/createMessage", json.RawMessage(`{"messages":[]}`))
	}
	return json.Marshal(map[string]any{"method": r.Method, "params": r.Params, "version": r.ProtocolVersion})
}

// TestForwardModern checks what a 2026-07-28 request becomes on its way
// to a proxy and back: its _meta keys of that revision are taken out,
// and the result gets resultType, the server's info and, on a list, a
// ttlMs and a private cacheScope.
func TestForwardModern(t *testing.T) {
	s := NewServer(Implementation{Name: "front", Version: "1"}, &ServerOptions{proxy: recorder{}})
	srv := httptest.NewServer(NewHTTPHandler(s, nil))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{"cursor":"c","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":7}}}`
	status, _, got := postHTTP(t, srv.URL, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "prompts/list"}, body)
	for _, want := range []string{`"params":{"_meta":{"progressToken":7},"cursor":"c"}`, `"version":"2026-07-28"`, `"resultType":"complete"`,
		`"cacheScope":"private"`, `"ttlMs":0`, `"io.modelcontextprotocol/serverInfo":{"name":"front","version":"1"}`} {
		if status != 200 || !strings.Contains(got, want) {
			t.Errorf("%d %s: want %s", status, got, want)
		}
	}
	status, _, got = postHTTP(t, srv.URL, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
		`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if status != 200 || !strings.Contains(got, `"capabilities":{"tools":{},"prompts":{}}`) {
		t.Errorf("server/discover: %d %s", status, got)
	}
	// What revision 2026-07-28 removed is not forwarded: a server of an
	// earlier revision would answer it.
	for _, method := range []string{"logging/setLevel", "resources/subscribe", "resources/unsubscribe"} {
		status, _, got = postHTTP(t, srv.URL, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method},
			`{"jsonrpc":"2.0","id":4,"method":"`+method+`","params":{"level":"info","uri":"file:///a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		if status != 404 || !strings.Contains(got, `"code":-32601`) || !strings.Contains(got, `"id":4`) {
			t.Errorf("%s at 2026-07-28: %d %s, want 404 and -32601", method, status, got)
		}
	}
	// A stateless client takes no requests from the server.
	status, _, got = postHTTP(t, srv.URL, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "ask"},
		`{"jsonrpc":"2.0","id":3,"method":"ask","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if status != 404 || !strings.Contains(got, "takes no requests from the server") {
		t.Errorf("a request to a stateless client: %d %s", status, got)
	}
}

// TestForwardRequestToClient relays a proxy's request to a stdio
// client and its answer back.
func TestForwardRequestToClient(t *testing.T) {
	s := NewServer(Implementation{Name: "front", Version: "1"}, &ServerOptions{proxy: recorder{}})
	ctx := context.Background()
	var asked string
	c := s.Connect(ctx, &ClientOptions{onRequest: func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		asked = method + " " + string(params)
		return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"sampled"}}`), nil
	}})
	defer c.Close()
	if _, err := c.Initialize(ctx, ""); err != nil {
		t.Fatal(err)
	}
	var res json.RawMessage
	if err := c.Call(ctx, "ask", nil, &res); err != nil || !strings.Contains(string(res), `"text":"sampled"`) {
		t.Errorf("ask: %v %s", err, res)
	}
	if asked != `sampling/createMessage {"messages":[]}` {
		t.Errorf("the client was asked %q", asked)
	}
}

// headerProxy is a proxy with one tool, "sql", whose region it
// mirrors into Mcp-Param-Region (after a list change, into
// Mcp-Param-Zone); it counts the tools/list requests it gets.
type headerProxy struct {
	proxyBase
	mu      sync.Mutex
	lists   int
	changed bool
}

func (*headerProxy) Capabilities() json.RawMessage {
	return json.RawMessage(`{"tools":{"listChanged":true}}`)
}

func (f *headerProxy) Serve(_ context.Context, r *mcpproxy.Request) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method {
	case "tools/list":
		f.lists++
		header := "Region"
		if f.changed {
			header = "Zone"
		}
		return json.RawMessage(`{"tools":[{"name":"sql","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"` + header + `"}}}}]}`), nil
	case "tools/call":
		return json.RawMessage(`{"content":[{"type":"text","text":"ran"}]}`), nil
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: "no " + r.Method}
}

// TestForwardParamHeaders checks the Mcp-Param headers of a 2026-07-28
// call of a forwarded tool against that tool's input schema, as the
// proxy lists it: a header that does not match its argument is
// refused with 400 and -32020 before the call is forwarded, and a list
// change is followed.
func TestForwardParamHeaders(t *testing.T) {
	f := &headerProxy{}
	s := NewServer(Implementation{Name: "front", Version: "1"}, &ServerOptions{proxy: f})
	srv := httptest.NewServer(NewHTTPHandler(s, nil))
	defer srv.Close()
	call := func(hdr map[string]string) (int, string) {
		h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "sql"}
		maps.Copy(h, hdr)
		status, _, got := postHTTP(t, srv.URL, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sql","arguments":{"region":"eu-west"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		return status, got
	}
	if status, got := call(map[string]string{"Mcp-Param-Region": "eu-west"}); status != 200 || !strings.Contains(got, `"text":"ran"`) {
		t.Errorf("matching header: %d %s", status, got)
	}
	for _, bad := range []map[string]string{{"Mcp-Param-Region": "us-east"}, {}, {"Mcp-Param-Region": "eu-wést"}} {
		if status, got := call(bad); status != 400 || !strings.Contains(got, `"code":-32020`) {
			t.Errorf("header %q: %d %s, want 400 and -32020", bad, status, got)
		}
	}
	if f.lists != 1 {
		t.Errorf("the proxy was asked for its tools %d times, want once", f.lists)
	}
	// The tool now mirrors region into Mcp-Param-Zone.
	f.mu.Lock()
	f.changed = true
	f.mu.Unlock()
	s.Notify("notifications/tools/list_changed", nil)
	if status, got := call(map[string]string{"Mcp-Param-Region": "eu-west"}); status != 400 || !strings.Contains(got, "Mcp-Param-Zone") {
		t.Errorf("after the list change, the old header: %d %s, want 400 naming Mcp-Param-Zone", status, got)
	}
	if status, got := call(map[string]string{"Mcp-Param-Zone": "eu-west"}); status != 200 {
		t.Errorf("after the list change, the new header: %d %s", status, got)
	}
}
