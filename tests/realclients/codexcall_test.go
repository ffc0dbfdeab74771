package realclients

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeResponses is a stand-in for the OpenAI Responses API on loopback, so
// that Codex can run a real agent turn offline. It plays a model that calls
// one MCP tool (in Codex's namespace mcp__SERVER) and then answers with
// text, and records the function_call_output Codex sends back.
type fakeResponses struct {
	namespace, tool, args string
	url                   string

	mu      sync.Mutex
	outputs []string // the output of each function_call_output for our call
	seen    []string
}

func startFakeResponses(t *testing.T, namespace, tool, args string) *fakeResponses {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeResponses{namespace: namespace, tool: tool, args: args, url: "http://" + ln.Addr().String() + "/v1"}
	srv := &http.Server{Handler: http.HandlerFunc(f.serve), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *fakeResponses) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		f.note("%s %s: not found", r.Method, r.URL.Path)
		http.Error(w, `{"error":{"message":"fake model: not here"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var outputs []string
	for _, in := range req.Input {
		if in.Type == "function_call_output" && in.CallID == "call_mcpship_1" {
			var s string
			if json.Unmarshal(in.Output, &s) != nil {
				s = string(in.Output)
			}
			outputs = append(outputs, s)
		}
	}
	f.mu.Lock()
	f.outputs = outputs
	f.mu.Unlock()

	var item map[string]any
	if len(outputs) == 0 {
		f.note("call %s.%s", f.namespace, f.tool)
		item = map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_mcpship_1", "namespace": f.namespace,
			"name": f.tool, "arguments": f.args, "status": "completed"}
	} else {
		f.note("%s answered: final text", f.tool)
		item = map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "The tool answered.", "annotations": []any{}}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("response.created", map[string]any{"response": map[string]any{"id": "resp_fake"}})
	event("response.output_item.added", map[string]any{"output_index": 0, "item": item})
	event("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	event("response.completed", map[string]any{"response": map[string]any{"id": "resp_fake", "usage": map[string]any{
		"input_tokens": 5, "input_tokens_details": nil, "output_tokens": 5, "output_tokens_details": nil, "total_tokens": 10}}})
}

func (f *fakeResponses) note(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, fmt.Sprintf(format, args...))
}

// TestCodexCallsTool runs one real agent turn of Codex ("codex exec")
// against a fake Responses API on loopback that calls mcpship's tool, and
// checks what Codex sent back to the model from the tool.
func TestCodexCallsTool(t *testing.T) {
	codex := nodeBin(t, "codex")
	needNode(t)
	for _, tr := range transports {
		for _, srv := range servers {
			for _, c := range srv.agentCalls {
				t.Run(subtest(tr, srv.name, c.name), func(t *testing.T) { codexCall(t, codex, tr, srv, c) })
			}
		}
	}
}

// codexCall is one run of TestCodexCallsTool: srv registered in
// $CODEX_HOME/config.toml as a command (stdio), or by init --url with
// bearer_token_env_var (http).
func codexCall(t *testing.T, codex, tr string, srv server, c call) {
	home, proj := t.TempDir(), t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	args := c.args
	if args == "" {
		args = "{}"
	}
	model := startFakeResponses(t, "mcp__"+regName, c.tool, args)
	var quoted []string
	for _, a := range srv.args() {
		quoted = append(quoted, strconv.Quote(a))
	}
	config := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %s
wire_api = "responses"
env_key = "MCPSHIP_FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

# Off: they reach for the network (plugins runs git ls-remote on GitHub).
[features]
plugins = false
remote_plugin = false
plugin_sharing = false
in_app_updates = false
apps = false
`, strconv.Quote(model.url))
	env := []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "MCPSHIP_FAKE_API_KEY=fake"}
	if tr == "http" {
		writeFile(t, filepath.Join(codexHome, "config.toml"), []byte(config))
		endpoint, token := serveRemote(t, srv)
		env = append(env, remoteTokenEnv+"="+token)
		initRemote(t, proj, env, "codex", "user", endpoint, "--bearer-token-env", remoteTokenEnv)
	} else {
		config += fmt.Sprintf("\n[mcp_servers.%s]\ncommand = %s\nargs = [%s]\n", regName, strconv.Quote(binPath), strings.Join(quoted, ", "))
		writeFile(t, filepath.Join(codexHome, "config.toml"), []byte(config))
	}
	r := runTool(t, 3*time.Minute, proj, env, codex, "exec", "--skip-git-repo-check",
		"Call the "+c.tool+" tool of the "+regName+" MCP server once, then stop.")
	model.mu.Lock()
	outputs, seen := model.outputs, strings.Join(model.seen, "\n")
	model.mu.Unlock()
	if len(outputs) != 1 {
		t.Fatalf("Codex sent the model %d results of %s, want 1: %q\nfake model saw:\n%s\n%s", len(outputs), c.tool, outputs, seen, r)
	}
	if r.code != 0 || !strings.Contains(r.stdout, "The tool answered.") {
		t.Errorf("codex exec: want exit 0 and the model's final text\n%s", r)
	}
	// The output is all the model gets: no isError.
	c.check(t, outcome{Texts: codexOutputTexts(outputs[0]), IsErrorUnknown: true})
	t.Logf("the model got from %s: %q\nfake model saw:\n%s", c.tool, outputs[0], seen)
}

// codexOutputTexts returns the tool's part of a function_call_output Codex
// sent: either a string, "Wall time: …\nOutput:\n" and the result, or
// an array of input_text items, the first being "Wall time: …\nOutput:".
func codexOutputTexts(out string) []string {
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal([]byte(out), &items) != nil {
		if _, after, ok := strings.Cut(out, "Output:\n"); ok {
			out = after
		}
		return []string{out}
	}
	var texts []string
	for i, it := range items {
		if i == 0 && strings.HasPrefix(it.Text, "Wall time:") {
			continue
		}
		if it.Type == "input_text" {
			texts = append(texts, it.Text)
		}
	}
	return texts
}
