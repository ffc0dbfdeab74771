package realclients

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeModel is a stand-in for the Anthropic Messages API on loopback, so
// that Claude Code can run a real agent turn offline. It plays a model that
// calls one tool and then stops: it first loads the tool's schema with
// ToolSearch (Claude Code defers MCP tools behind it), then calls the tool,
// then answers with text. It records the tool_result blocks it is sent.
type fakeModel struct {
	tool string // e.g. mcp__mcpship__mcpship_version
	args string // JSON input for the tool
	url  string

	mu      sync.Mutex
	results []toolResult
	seen    []string // one line per request, for failure messages
}

// toolResult is one tool_result block Claude Code sent back to the model.
type toolResult struct {
	ToolUseID string
	Tool      string
	IsError   bool
	Text      string // the text of its content, joined
}

func startFakeModel(t *testing.T, tool, args string) *fakeModel {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeModel{tool: tool, args: args, url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(f.serve), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

type fakeRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name         string `json:"name"`
		DeferLoading bool   `json:"defer_loading"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type fakeBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
	Text      string          `json:"text"`
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.Contains(r.URL.Path, "count_tokens") {
		f.note("%s %s: not found", r.Method, r.URL.Path)
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"fake model: not here"}}`, http.StatusNotFound)
		return
	}
	var req fakeRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}

	// Walk the conversation: which tools were used, and what came back.
	used := map[string]string{} // tool_use id → tool name
	var results []toolResult
	for _, m := range req.Messages {
		var blocks []fakeBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				used[b.ID] = b.Name
			case "tool_result":
				results = append(results, toolResult{ToolUseID: b.ToolUseID, Tool: used[b.ToolUseID], IsError: b.IsError, Text: contentText(b.Content)})
			}
		}
	}
	offered := false
	hasToolSearch := false
	for _, tl := range req.Tools {
		if tl.Name == f.tool && !tl.DeferLoading {
			offered = true
		}
		if tl.Name == "ToolSearch" {
			hasToolSearch = true
		}
	}
	called := false
	for _, res := range results {
		if res.Tool == f.tool {
			called = true
		}
	}
	f.mu.Lock()
	f.results = results
	f.mu.Unlock()

	switch {
	case len(req.Tools) == 0:
		// A side request (a title, a summary): any short text will do.
		f.note("side request (%s, %d messages): text", req.Model, len(req.Messages))
		f.reply(w, req.Stream, fakeBlock{Type: "text", Text: "mcpship"}, "end_turn")
	case called:
		f.note("main request, %s answered: final text", f.tool)
		f.reply(w, req.Stream, fakeBlock{Type: "text", Text: "The tool answered."}, "end_turn")
	case offered || !hasToolSearch || len(results) > 0:
		f.note("main request: call %s", f.tool)
		f.reply(w, req.Stream, fakeBlock{Type: "tool_use", ID: fmt.Sprintf("toolu_call_%d", len(results)), Name: f.tool, Content: json.RawMessage(f.args)}, "tool_use")
	default:
		f.note("main request: ToolSearch select:%s", f.tool)
		f.reply(w, req.Stream, fakeBlock{Type: "tool_use", ID: "toolu_search", Name: "ToolSearch", Content: json.RawMessage(`{"query":"select:` + f.tool + `"}`)}, "tool_use")
	}
}

// contentText joins the text of a tool_result's content, a string or an
// array of blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []fakeBlock
	json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (f *fakeModel) note(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, fmt.Sprintf(format, args...))
}

// reply answers with one content block (a tool_use's input is in
// b.Content), streamed as server-sent events when the request asked.
func (f *fakeModel) reply(w http.ResponseWriter, stream bool, b fakeBlock, stop string) {
	var block, delta map[string]any
	switch b.Type {
	case "text":
		block = map[string]any{"type": "text", "text": ""}
		delta = map[string]any{"type": "text_delta", "text": b.Text}
	case "tool_use":
		block = map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(b.Content)}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5}
	if !stream {
		full := map[string]any{"type": b.Type}
		for k, v := range block {
			full[k] = v
		}
		if b.Type == "text" {
			full["text"] = b.Text
		} else {
			full["input"] = json.RawMessage(b.Content)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake",
			"content": []any{full}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"message": map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	event("content_block_start", map[string]any{"index": 0, "content_block": block})
	event("content_block_delta", map[string]any{"index": 0, "delta": delta})
	event("content_block_stop", map[string]any{"index": 0})
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{})
}

// TestClaudeCodeCallsTool runs one real agent turn of Claude Code
// ("claude -p") against a fake model on loopback that calls mcpship's tool,
// and checks what Claude Code sent back to the model from the tool.
func TestClaudeCodeCallsTool(t *testing.T) {
	claude := nodeBin(t, "claude")
	for _, tr := range transports {
		for _, srv := range servers {
			for _, c := range srv.agentCalls {
				t.Run(subtest(tr, srv.name, c.name), func(t *testing.T) { claudeCall(t, claude, tr, srv, c) })
			}
		}
	}
}

// claudeCall is one run of TestClaudeCodeCallsTool: srv registered in the
// project's .mcp.json as a command (stdio), or by init --url with the token
// as ${VAR} (http).
func claudeCall(t *testing.T, claude, tr string, srv server, c call) {
	home, proj := t.TempDir(), t.TempDir()
	tool := "mcp__" + regName + "__" + c.tool
	args := c.args
	if args == "" {
		args = "{}"
	}
	model := startFakeModel(t, tool, args)
	env := []string{"HOME=" + home, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "MCP_TIMEOUT=20000",
		"ANTHROPIC_BASE_URL=" + model.url, "ANTHROPIC_API_KEY=sk-ant-fake-for-tests"}
	if tr == "http" {
		endpoint, token := serveRemote(t, srv)
		env = append(env, remoteTokenEnv+"="+token)
		initRemote(t, proj, env, "claude-code", "project", endpoint, "--bearer-token-env", remoteTokenEnv)
	} else {
		writeJSON(t, filepath.Join(proj, ".mcp.json"), mcpServersFile([]registration{{regName, binPath, srv.args()}}))
	}
	r := runTool(t, 3*time.Minute, proj, env, claude,
		"--settings", `{"enableAllProjectMcpServers":true}`,
		"-p", "Call the "+tool+" tool once, then stop.",
		"--allowedTools", tool, "--max-turns", "5", "--output-format", "json")
	model.mu.Lock()
	results, seen := model.results, strings.Join(model.seen, "\n")
	model.mu.Unlock()
	var got *toolResult
	for i := range results {
		if results[i].Tool == tool {
			got = &results[i]
		}
	}
	if got == nil {
		t.Fatalf("Claude Code never sent the model a result of %s; tool results: %+v\nfake model saw:\n%s\n%s", tool, results, seen, r)
	}
	if r.code != 0 || !strings.Contains(r.stdout, "The tool answered.") {
		t.Errorf("claude -p: want exit 0 and the model's final text\n%s", r)
	}
	c.check(t, outcome{IsError: got.IsError, Texts: []string{got.Text}})
	t.Logf("the model got from %s: %q\nfake model saw:\n%s", tool, got.Text, seen)
}
