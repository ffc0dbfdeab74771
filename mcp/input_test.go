package mcp

import (
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

	// A legacy client cannot be asked: the tool's result says so.
	legacy := httptest.NewServer(NewHTTPHandler(askServer(), nil))
	defer legacy.Close()
	_, _, sid := postLegacyMessage(t, legacy.URL, "", initializeWithSampling)
	_, body, _ := postLegacyMessage(t, legacy.URL, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}}`)
	if !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "needs the client to answer elicitation/create first, which this server can ask only of clients of revision 2026-07-28") {
		t.Errorf("legacy: %s", body)
	}
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
