package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// askServer has the tool "greet", which asks the user's name (elicitation)
// with the state "round-1", and then greets whoever answered, saying the
// state it got back.
func askServer() *Server {
	s := NewServer(Implementation{Name: "t", Version: "0"}, nil)
	s.AddTool(Tool{Name: "greet"}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		answer, ok := req.InputResponses["name"]
		if !ok {
			return InputRequired(map[string]InputRequest{"name": {Method: "elicitation/create", Params: map[string]any{
				"message": "What is your name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}, "round-1"), nil
		}
		var r struct{ Content struct{ Name string } }
		json.Unmarshal(answer, &r)
		return TextResult("hello " + r.Content.Name + " (state " + req.RequestState + ")"), nil
	})
	return s
}

// callModern sends a 2026-07-28 tools/call of greet with extra params and
// the client capabilities caps; it returns the status and the decoded reply.
func callModern(t *testing.T, url, caps, extra string) (int, map[string]any) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"` + extra +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "greet")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("reply %s: %v", b, err)
	}
	return resp.StatusCode, m
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// TestInputRequired runs the multi round-trip flow of revision 2026-07-28:
// the input request goes out in the result, with its state signed; the
// retry with the answer and the state completes; a changed state, one of
// another server, answers that are not objects and an undeclared
// capability are refused.
func TestInputRequired(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	one := httptest.NewServer(NewHTTPHandler(askServer(), &HTTPOptions{SessionKey: key}))
	defer one.Close()
	two := httptest.NewServer(NewHTTPHandler(askServer(), &HTTPOptions{SessionKey: key}))
	defer two.Close()
	stranger := httptest.NewServer(NewHTTPHandler(askServer(), nil))
	defer stranger.Close()
	caps := `{"elicitation":{}}`

	status, m := callModern(t, one.URL, caps, "")
	res, _ := m["result"].(map[string]any)
	if status != 200 || res["resultType"] != "input_required" || res["content"] != nil {
		t.Fatalf("round 1: %d %v", status, m)
	}
	reqs, _ := res["inputRequests"].(map[string]any)
	if ask, _ := reqs["name"].(map[string]any); ask["method"] != "elicitation/create" {
		t.Errorf("round 1 input requests: %v", reqs)
	}
	state, _ := res["requestState"].(string)
	if state == "" || strings.Contains(state, "round-1") {
		t.Fatalf("round 1 requestState %q: want it signed and encoded", state)
	}
	answer := `,"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}},"extra":{"x":1}},"requestState":` + strings.TrimSpace(asJSON(state))
	// A replica with the same key accepts the state the first one made.
	status, m = callModern(t, two.URL, caps, answer)
	res, _ = m["result"].(map[string]any)
	if status != 200 || res["resultType"] != "complete" || !strings.Contains(asJSON(res["content"]), "hello Ada (state round-1)") {
		t.Errorf("round 2: %d %v", status, m)
	}

	changed := strings.Replace(answer, state, state[:len(state)-2]+"AA", 1)
	if state[len(state)-2:] == "AA" {
		changed = strings.Replace(answer, state, state[:len(state)-2]+"BB", 1)
	}
	for name, c := range map[string]struct {
		url, extra string
		code       float64
	}{
		"changed state":          {two.URL, changed, CodeInvalidParams},
		"another server's state": {stranger.URL, answer, CodeInvalidParams},
		"null inputResponses":    {one.URL, `,"inputResponses":null`, CodeInvalidParams},
		"a number as an answer":  {one.URL, `,"inputResponses":{"name":12345}`, CodeInvalidParams},
	} {
		if status, m := callModern(t, c.url, caps, c.extra); status != 400 || errorCode(m) != c.code {
			t.Errorf("%s: %d %v, want 400 and %v", name, status, m, c.code)
		}
	}
	status, m = callModern(t, one.URL, `{"sampling":{}}`, "")
	if e, _ := m["error"].(map[string]any); status != 400 || errorCode(m) != CodeMissingClientCapability || !strings.Contains(asJSON(e["data"]), `"elicitation"`) {
		t.Errorf("without the elicitation capability: %d %v", status, m)
	}

}

// TestInputRequiredLegacy asks a legacy client for the input with a
// request of the server's own, on the call's stream; the client answers
// with a POST, and the handler, called again with the answer and its
// state, completes the call on that stream.
func TestInputRequiredLegacy(t *testing.T) {
	srv := httptest.NewServer(NewHTTPHandler(askServer(), nil))
	defer srv.Close()
	initialize := func(caps string) string {
		_, _, sid := postLegacyMessage(t, srv.URL, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"0"}}}`)
		return sid
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}}`
	for _, answer := range []struct{ name, reply, want string }{
		{"accepted", `"result":{"action":"accept","content":{"name":"Grace"}}`, `hello Grace (state round-1)`},
		{"refused", `"error":{"code":-1,"message":"the user closed the dialog"}`, `"isError":true`},
	} {
		t.Run(answer.name, func(t *testing.T) {
			sid := initialize(`{"elicitation":{}}`)
			resp := legacyRequest(t, context.Background(), "POST", srv.URL, sid, call, "MCP-Protocol-Version", "2025-06-18")
			defer resp.Body.Close()
			var asked map[string]any
			events := sseEvents(t, resp.Body, func(_, data string) bool {
				json.Unmarshal([]byte(data), &asked)
				return asked["method"] != nil
			})
			if asked["method"] != "elicitation/create" || asked["id"] == nil || !strings.Contains(asJSON(asked["params"]), "What is your name?") {
				t.Fatalf("the call's stream carried %q: want an elicitation/create request", events)
			}
			status, _, _ := postLegacyMessage(t, srv.URL, sid, `{"jsonrpc":"2.0","id":`+asJSON(asked["id"])+`,`+answer.reply+`}`)
			if status != 202 {
				t.Errorf("the client's answer: %d, want 202", status)
			}
			rest := sseEvents(t, resp.Body, nil)
			if len(rest) != 1 || !strings.Contains(rest[0], `"id":1,"result"`) || !strings.Contains(rest[0], answer.want) {
				t.Errorf("after the answer: %q, want the result with %s", rest, answer.want)
			}
			if answer.name == "refused" && !strings.Contains(rest[0], "the client refused elicitation/create") {
				t.Errorf("refused: %q", rest)
			}
		})
	}
	// A client without the capability, and one that takes only JSON,
	// cannot be asked.
	if _, body, _ := postLegacyMessage(t, srv.URL, initialize(`{}`), call); !strings.Contains(body, `"code":-32021`) {
		t.Errorf("without the capability: %s", body)
	}
	resp := legacyRequest(t, context.Background(), "POST", srv.URL, initialize(`{"elicitation":{}}`), call, "Accept", "application/json", "MCP-Protocol-Version", "2025-06-18")
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"isError":true`) || !strings.Contains(string(b), "takes only JSON replies") {
		t.Errorf("a client that takes only JSON: %s", b)
	}
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestInputRequiredStdio asks a stdio client the same way: the request
// is a line of the server's, the answer a line of the client's.
func TestInputRequiredStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- askServer().Serve(context.Background(), inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	send := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		if !lines.Scan() {
			t.Fatalf("the server wrote no more lines: %v", lines.Err())
		}
		var m map[string]any
		json.Unmarshal(lines.Bytes(), &m)
		return m
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"0"}}}`)
	next()
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}}`)
	asked := next()
	if asked["method"] != "elicitation/create" {
		t.Fatalf("got %v, want an elicitation/create request", asked)
	}
	send(`{"jsonrpc":"2.0","id":` + asJSON(asked["id"]) + `,"result":{"action":"accept","content":{"name":"Linus"}}}`)
	if reply := next(); !strings.Contains(asJSON(reply), "hello Linus (state round-1)") {
		t.Errorf("after the answer: %v", reply)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
