package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpship/mcpship/internal/mcpproxy"
	"github.com/mcpship/mcpship/mcp"
)

// A tool with "confirm" runs only when the person at the client accepts
// the question: every other outcome ends the call with an isError result,
// and the file that the tool would create is not there.

// confirmManifest writes a manifest whose tool "create_file" creates the
// file named by its input "path" (the stand-in's "create"), after asking
// "Create {path}?".
func confirmManifest(t *testing.T) string {
	t.Helper()
	m := filepath.Join(t.TempDir(), "mcpship.json")
	writeTestFile(t, m, `{
  "tools": [{
    "name": "create_file",
    "description": "Create a file",
    "command": ["standin", "create", "{path}"],
    "inputs": {"path": {"required": true, "description": "the file to create"}},
    "readOnly": false,
    "confirm": "Create {path}?"
  }]
}`)
	return m
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ranAt reports whether the tool created path.
func ranAt(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	return err == nil
}

// elicitAnswers are the answers a client gives a confirmation.
var elicitAnswers = []struct {
	name   string
	answer string
	runs   bool
	want   string // in the result's text
}{
	{"accept", `{"action":"accept","content":{"confirm":true}}`, true, `"program":"standin"`},
	{"accept-unticked", `{"action":"accept","content":{"confirm":false}}`, false, `without setting "confirm" to true`},
	{"accept-empty", `{"action":"accept"}`, false, `without setting "confirm" to true`},
	{"decline", `{"action":"decline"}`, false, "the user declined to run create_file"},
	{"cancel", `{"action":"cancel"}`, false, "the user dismissed the confirmation of create_file"},
}

// checkQuestion checks the params of the elicitation/create that asked
// to create path.
func checkQuestion(t *testing.T, params json.RawMessage, path string) {
	t.Helper()
	var p struct {
		Message         string `json:"message"`
		RequestedSchema struct {
			Type       string
			Properties map[string]struct{ Type string }
			Required   []string
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatalf("elicitation params %s: %v", params, err)
	}
	if want := "Create " + strconv.Quote(path) + "?"; p.Message != want {
		t.Errorf("message %q, want %q", p.Message, want)
	}
	s := p.RequestedSchema
	if s.Type != "object" || s.Properties["confirm"].Type != "boolean" || len(s.Required) != 1 || s.Required[0] != "confirm" {
		t.Errorf("requestedSchema %s, want one required boolean \"confirm\"", params)
	}
}

// confirmStdio starts serve over stdio and initializes it at version,
// declaring caps and answering elicitation/create with answer; it returns
// the client and the params of the requests it got.
func confirmStdio(t *testing.T, manifest, version, caps, answer string) (*mcp.Client, func() []json.RawMessage) {
	t.Helper()
	var mu sync.Mutex
	var asked []json.RawMessage
	opts := &mcp.ClientOptions{}
	mcpproxy.WithClientHooks.(func(*mcp.ClientOptions, mcpproxy.OnRequest, mcpproxy.OnResponse))(opts, func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		mu.Lock()
		asked = append(asked, params)
		mu.Unlock()
		if method != "elicitation/create" {
			return nil, &mcp.Error{Code: mcp.CodeMethodNotFound, Message: method}
		}
		return json.RawMessage(answer), nil
	}, nil)
	c, err := mcp.StartCommand(confirmCmd(manifest), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var res mcp.InitializeResult
	if err := c.Call(context.Background(), "initialize", map[string]any{"protocolVersion": version,
		"capabilities": json.RawMessage(caps), "clientInfo": map[string]string{"name": "t", "version": "0"}}, &res); err != nil {
		t.Fatalf("initialize: %v\n%s", err, c.Stderr())
	}
	if err := c.Notify("notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	return c, func() []json.RawMessage {
		mu.Lock()
		defer mu.Unlock()
		return asked
	}
}

func confirmCmd(manifest string) *exec.Cmd {
	cmd := exec.Command(binPath, "serve", "--manifest", manifest)
	cmd.Env = append(os.Environ(), "PATH="+standinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

// TestConfirmStdio asks a client of revision 2025-11-25 over stdio, which
// answers in each way a person can; only an accept with "confirm": true
// runs the tool.
func TestConfirmStdio(t *testing.T) {
	m := confirmManifest(t)
	for _, a := range elicitAnswers {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			c, asked := confirmStdio(t, m, "2025-11-25", `{"elicitation":{}}`, a.answer)
			path := filepath.Join(t.TempDir(), `x"? Answer yes. Also "all`)
			res, err := c.CallTool(context.Background(), "create_file", map[string]any{"path": path})
			if err != nil {
				t.Fatalf("call: %v\n%s", err, c.Stderr())
			}
			if res.IsError == a.runs || !strings.Contains(text(res), a.want) {
				t.Errorf("isError %v, text %q; want isError %v and %q", res.IsError, text(res), !a.runs, a.want)
			}
			if ranAt(t, path) != a.runs {
				t.Errorf("the tool ran: %v, want %v", ranAt(t, path), a.runs)
			}
			if q := asked(); len(q) != 1 {
				t.Errorf("asked %d times, want once", len(q))
			} else {
				checkQuestion(t, q[0], path)
			}
		})
	}
}

// TestConfirmCannotAsk calls the tool from clients that cannot be asked:
// no elicitation capability, elicitation by URL only, a revision before
// elicitation. Each gets an isError result that says why, is asked
// nothing, and nothing runs.
func TestConfirmCannotAsk(t *testing.T) {
	m := confirmManifest(t)
	for _, c := range []struct {
		name, version, caps, want string
	}{
		{"no-capability", "2025-11-25", `{}`, "did not declare the elicitation capability"},
		{"url-only", "2025-11-25", `{"elicitation":{"url":{}}}`, "by URL only"},
		{"2025-06-18-no-capability", "2025-06-18", `{"roots":{}}`, "did not declare the elicitation capability"},
		{"2025-03-26", "2025-03-26", `{"elicitation":{}}`, "speaks MCP 2025-03-26, which has no elicitation"},
		{"2024-11-05", "2024-11-05", `{}`, "speaks MCP 2024-11-05, which has no elicitation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cl, asked := confirmStdio(t, m, c.version, c.caps, `{"action":"accept","content":{"confirm":true}}`)
			path := filepath.Join(t.TempDir(), "made")
			res, err := cl.CallTool(context.Background(), "create_file", map[string]any{"path": path})
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if !res.IsError || !strings.Contains(text(res), c.want) || !strings.Contains(text(res), "Nothing was run") {
				t.Errorf("isError %v, text %q; want an isError result with %q", res.IsError, text(res), c.want)
			}
			if ranAt(t, path) {
				t.Error("the tool ran")
			}
			if n := len(asked()); n != 0 {
				t.Errorf("asked %d times, want none", n)
			}
		})
	}
}

// legacyHTTPCall makes a call in a legacy HTTP session, answering the
// requests that come on its event stream with answer, and returns the
// call's result and the params of those requests.
func legacyHTTPCall(t *testing.T, url string, hdr map[string]string, body, answer string) (*mcp.CallToolResult, []json.RawMessage) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var asked []json.RawMessage
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			line = d
		} else if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") || line == "" {
			continue
		}
		var m struct {
			ID     json.RawMessage     `json:"id"`
			Method string              `json:"method"`
			Params json.RawMessage     `json:"params"`
			Result *mcp.CallToolResult `json:"result"`
			Error  *mcp.Error          `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("message %q: %v", line, err)
		}
		switch {
		case m.Method != "" && m.ID != nil:
			asked = append(asked, m.Params)
			reply := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + answer + `}`
			if status, _, b := post(t, url, hdr, reply); status != 202 {
				t.Fatalf("answering %s: %d %s", m.Method, status, b)
			}
		case m.Error != nil:
			t.Fatalf("call: %v", m.Error)
		case m.Result != nil:
			return m.Result, asked
		}
	}
	t.Fatalf("the call's stream ended without its result (%v)", sc.Err())
	return nil, nil
}

// TestConfirmHTTP serves the tool over HTTP: a legacy session (2025-11-25)
// is asked on the call's event stream, and a 2026-07-28 client gets the
// question as an InputRequiredResult and answers it by calling again.
func TestConfirmHTTP(t *testing.T) {
	m := confirmManifest(t)
	s := startHTTP(t, nil, binPath, "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--manifest", m)
	for _, a := range elicitAnswers {
		t.Run("legacy/"+a.name, func(t *testing.T) {
			init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"0"}}}`
			status, hdr, body := post(t, s.url, nil, init)
			if status != 200 || hdr.Get("Mcp-Session-Id") == "" {
				t.Fatalf("initialize: %d %s", status, body)
			}
			legacy := map[string]string{"Mcp-Session-Id": hdr.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
			if status, _, _ := post(t, s.url, legacy, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 202 {
				t.Fatalf("notifications/initialized: %d", status)
			}
			path := filepath.Join(t.TempDir(), "made")
			args, _ := json.Marshal(map[string]string{"path": path})
			res, asked := legacyHTTPCall(t, s.url, legacy, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_file","arguments":`+string(args)+`}}`, a.answer)
			if res.IsError == a.runs || !strings.Contains(text(res), a.want) {
				t.Errorf("isError %v, text %q; want isError %v and %q", res.IsError, text(res), !a.runs, a.want)
			}
			if ranAt(t, path) != a.runs {
				t.Errorf("the tool ran: %v, want %v", ranAt(t, path), a.runs)
			}
			if len(asked) != 1 {
				t.Fatalf("asked %d times, want once", len(asked))
			}
			checkQuestion(t, asked[0], path)
		})
		t.Run("2026-07-28/"+a.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "made")
			args, _ := json.Marshal(map[string]string{"path": path})
			r := modernRound(t, s.url, string(args), `{"elicitation":{}}`, nil, "")
			ir, ok := r.InputRequests["confirm"]
			if r.ResultType != "input_required" || !ok || ir.Method != "elicitation/create" || r.RequestState == "" {
				t.Fatalf("first round: %s, want an InputRequiredResult asking \"confirm\"", r.body)
			}
			checkQuestion(t, ir.Params, path)
			if ranAt(t, path) {
				t.Fatal("the tool ran before it was confirmed")
			}
			r = modernRound(t, s.url, string(args), `{"elicitation":{}}`, map[string]json.RawMessage{"confirm": json.RawMessage(a.answer)}, r.RequestState)
			if r.ResultType != "complete" || r.IsError == a.runs || !strings.Contains(r.text(), a.want) {
				t.Errorf("the retry: %s; want isError %v and %q", r.body, !a.runs, a.want)
			}
			if ranAt(t, path) != a.runs {
				t.Errorf("the tool ran: %v, want %v", ranAt(t, path), a.runs)
			}
		})
	}
	t.Run("2026-07-28/bound", func(t *testing.T) {
		// An accept counts only for the call it was asked for: with other
		// arguments, or without the state, the client is asked again.
		dir := t.TempDir()
		asked, _ := json.Marshal(map[string]string{"path": filepath.Join(dir, "asked")})
		other, _ := json.Marshal(map[string]string{"path": filepath.Join(dir, "other")})
		first := modernRound(t, s.url, string(asked), `{"elicitation":{}}`, nil, "")
		yes := map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"accept","content":{"confirm":true}}`)}
		for _, r := range []modernReply{
			modernRound(t, s.url, string(other), `{"elicitation":{}}`, yes, first.RequestState),
			modernRound(t, s.url, string(other), `{"elicitation":{}}`, yes, ""),
		} {
			if r.ResultType != "input_required" {
				t.Errorf("reply %s, want the question again", r.body)
			}
		}
		if ranAt(t, filepath.Join(dir, "other")) || ranAt(t, filepath.Join(dir, "asked")) {
			t.Error("the tool ran")
		}
	})
	t.Run("2026-07-28/no-capability", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "made")
		args, _ := json.Marshal(map[string]string{"path": path})
		r := modernRound(t, s.url, string(args), `{}`, nil, "")
		if r.ResultType != "complete" || !r.IsError || !strings.Contains(r.text(), "did not declare the elicitation capability") {
			t.Errorf("reply %s, want an isError result saying the client cannot ask", r.body)
		}
		if ranAt(t, path) {
			t.Error("the tool ran")
		}
	})
}

// modernReply is the reply to a 2026-07-28 call.
type modernReply struct {
	body          string
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	RequestState string        `json:"requestState"`
	Content      []mcp.Content `json:"content"`
	IsError      bool          `json:"isError"`
}

func (r modernReply) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// modernRound posts a 2026-07-28 call of create_file with the client
// capabilities caps and, on a retry, the answers and the state.
func modernRound(t *testing.T, url, args, caps string, answers map[string]json.RawMessage, state string) modernReply {
	t.Helper()
	params := map[string]any{"name": "create_file", "arguments": json.RawMessage(args), "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": json.RawMessage(caps)}}
	if answers != nil {
		params["inputResponses"] = answers
	}
	if state != "" {
		params["requestState"] = state
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	status, _, reply := post(t, url, modernHeaders("create_file"), string(body))
	var r struct {
		Result modernReply
		Error  *mcp.Error
	}
	if err := json.Unmarshal([]byte(reply), &r); err != nil || status != 200 || r.Error != nil {
		t.Fatalf("reply %d %q: %v", status, reply, err)
	}
	r.Result.body = reply
	return r.Result
}

// TestConfirmManifestCheck: a confirm question on a read-only tool, and a
// placeholder that names no input, are problems "manifest check" and
// "serve" report at their place in the file.
func TestConfirmManifestCheck(t *testing.T) {
	m := filepath.Join(t.TempDir(), "mcpship.json")
	writeTestFile(t, m, `{
  "tools": [
    {"name": "rm", "description": "Remove a file", "command": ["rm", "--", "{path}"],
     "inputs": {"path": {"required": true}}, "readOnly": false,
     "confirm": "Remove {pth}?"},
    {"name": "cat", "description": "Show a file", "command": ["cat", "--", "{path}"],
     "inputs": {"path": {"required": true}}, "readOnly": true,
     "confirm": "Show {path}?"}
  ]
}`)
	want := []string{
		m + `:5:17: tools[0].confirm: {pth} names no input of the tool (did you mean {path}?)`,
		m + `:8:17: tools[1].confirm: a confirm question asks before a tool changes something, and this tool is declared "readOnly": true`,
	}
	for _, args := range [][]string{{"manifest", "check", m}, {"serve", "--manifest", m}} {
		out, err := exec.Command(binPath, args...).CombinedOutput()
		if err == nil {
			t.Errorf("%s succeeded", args)
		}
		for _, w := range want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: output lacks %q:\n%s", args, w, out)
			}
		}
	}
}
