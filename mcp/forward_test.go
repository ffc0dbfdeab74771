package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// recorder is a Forwarder that answers with the request it got, and asks
// the client for a sample first when the method is "ask".
type recorder struct{}

func (recorder) Capabilities() json.RawMessage { return json.RawMessage(`{"tools":{},"prompts":{}}`) }

func (recorder) Forward(ctx context.Context, r *ForwardRequest) (json.RawMessage, error) {
	if r.Method == "ask" {
		return r.Request(ctx, "sampling/createMessage", json.RawMessage(`{"messages":[]}`))
	}
	return json.Marshal(map[string]any{"method": r.Method, "params": r.Params, "version": r.ProtocolVersion})
}

// TestForwardModern checks what a 2026-07-28 request becomes on its way
// to a Forwarder and back: its _meta keys of that revision are taken out,
// and the result gets resultType, the server's info and, on a list, a
// ttlMs and a private cacheScope.
func TestForwardModern(t *testing.T) {
	s := NewServer(Implementation{Name: "front", Version: "1"}, &ServerOptions{Forward: recorder{}})
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

// TestForwardRequestToClient relays a Forwarder's request to a stdio
// client and its answer back.
func TestForwardRequestToClient(t *testing.T) {
	s := NewServer(Implementation{Name: "front", Version: "1"}, &ServerOptions{Forward: recorder{}})
	ctx := context.Background()
	var asked string
	c := s.Connect(ctx, &ClientOptions{OnRequest: func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
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
