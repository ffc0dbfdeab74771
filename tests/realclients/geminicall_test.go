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

// fakeGemini is a stand-in for the Gemini API on loopback, so that Gemini
// CLI can run a real agent turn offline. Its streamGenerateContent plays a
// model that calls one tool and then answers with text; its
// generateContent (side requests such as routing) answers "{}". It records
// the functionResponse parts Gemini CLI sends back.
type fakeGemini struct {
	tool, args string
	url        string

	mu        sync.Mutex
	responses []json.RawMessage // the response of each functionResponse for our tool
	seen      []string
}

func startFakeGemini(t *testing.T, tool, args string) *fakeGemini {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeGemini{tool: tool, args: args, url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(f.serve), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *fakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil {
		f.note("%s %s: not found", r.Method, r.URL.Path)
		http.Error(w, `{"error":{"code":404,"message":"fake model: not here"}}`, http.StatusNotFound)
		return
	}
	var responses []json.RawMessage
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil && p.FunctionResponse.Name == f.tool {
				responses = append(responses, p.FunctionResponse.Response)
			}
		}
	}
	f.mu.Lock()
	f.responses = responses
	f.mu.Unlock()

	candidate := func(part map[string]any) map[string]any {
		return map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 5, "candidatesTokenCount": 5, "totalTokenCount": 10},
		}
	}
	if !strings.Contains(r.URL.Path, ":streamGenerateContent") {
		f.note("side request %s: {}", r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(candidate(map[string]any{"text": "{}"}))
		return
	}
	var part map[string]any
	if len(responses) == 0 {
		f.note("call %s", f.tool)
		part = map[string]any{"functionCall": map[string]any{"name": f.tool, "args": json.RawMessage(f.args)}}
	} else {
		f.note("%s answered: final text", f.tool)
		part = map[string]any{"text": "The tool answered."}
	}
	b, _ := json.Marshal(candidate(part))
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

func (f *fakeGemini) note(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, fmt.Sprintf(format, args...))
}

// TestGeminiCLICallsTool runs one real agent turn of Gemini CLI
// ("gemini -p") against a fake Gemini API on loopback that calls mcpship's
// tool, and checks what Gemini CLI sent back to the model from the tool.
func TestGeminiCLICallsTool(t *testing.T) {
	gemini := nodeBin(t, "gemini")
	needNode(t)
	for _, tr := range transports {
		for _, srv := range servers {
			for _, c := range srv.agentCalls {
				t.Run(subtest(tr, srv.name, c.name), func(t *testing.T) { geminiCall(t, gemini, tr, srv, c) })
			}
		}
	}
}

// geminiCall is one run of TestGeminiCLICallsTool: srv registered in the
// project's .gemini/settings.json as a command (stdio), or by init --url
// as httpUrl with the token as ${VAR} (http).
func geminiCall(t *testing.T, gemini, tr string, srv server, c call) {
	home, proj := t.TempDir(), t.TempDir()
	// An API key, not a Google login; telemetry and update checks off.
	writeJSON(t, filepath.Join(home, ".gemini", "settings.json"), map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"telemetry": map[string]any{"enabled": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	})
	tool := "mcp_" + regName + "_" + c.tool
	args := c.args
	if args == "" {
		args = "{}"
	}
	model := startFakeGemini(t, tool, args)
	env := []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_API_KEY=fake", "GOOGLE_GEMINI_BASE_URL=" + model.url}
	if tr == "http" {
		endpoint, token := serveRemote(t, srv)
		env = append(env, remoteTokenEnv+"="+token)
		initRemote(t, proj, env, "gemini", "project", endpoint, "--bearer-token-env", remoteTokenEnv)
	} else {
		writeJSON(t, filepath.Join(proj, ".gemini", "settings.json"), mcpServersFile([]registration{{regName, binPath, srv.args()}}))
	}
	// A fixed model skips the router, which asks another model first.
	r := runTool(t, 3*time.Minute, proj, env, gemini, "-m", "gemini-2.5-flash",
		"--allowed-tools", tool, "-p", "Call the "+tool+" tool once, then stop.")
	model.mu.Lock()
	responses, seen := model.responses, strings.Join(model.seen, "\n")
	model.mu.Unlock()
	if len(responses) != 1 {
		t.Fatalf("Gemini CLI sent the model %d results of %s, want 1: %s\nfake model saw:\n%s\n%s", len(responses), tool, responses, seen, r)
	}
	if r.code != 0 || !strings.Contains(r.stdout, "The tool answered.") {
		t.Errorf("gemini -p: want exit 0 and the model's final text\n%s", r)
	}
	var resp struct {
		Output string `json:"output"`
		Error  string `json:"error"`
	}
	if err := json.Unmarshal(responses[0], &resp); err != nil {
		t.Fatalf("functionResponse.response: %v in %s", err, responses[0])
	}
	// Gemini CLI fences the text as <untrusted_context>.
	text := strings.TrimSpace(resp.Output)
	text = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(text, "<untrusted_context>"), "</untrusted_context>"))
	t.Logf("the model got from %s: %s\nfake model saw:\n%s", tool, responses[0], seen)
	// A result with isError comes as {"error": …} instead.
	if resp.Error != "" {
		c.check(t, outcome{IsError: true, Texts: geminiErrorTexts(resp.Error)})
		return
	}
	c.check(t, outcome{Texts: []string{text}})
}

// geminiErrorTexts returns the texts of the tool result inside the error
// Gemini CLI hands the model for a result with isError: "MCP tool 'NAME'
// reported tool error for function call: CALL with response: PARTS",
// PARTS being the JSON of the functionResponse parts that hold the result.
// Anything else is returned whole.
func geminiErrorTexts(msg string) []string {
	_, raw, ok := strings.Cut(msg, " with response: ")
	var parts []struct {
		FunctionResponse struct {
			Response struct {
				Content []struct {
					Type, Text string
				} `json:"content"`
			} `json:"response"`
		} `json:"functionResponse"`
	}
	if !ok || json.Unmarshal([]byte(raw), &parts) != nil {
		return []string{msg}
	}
	var texts []string
	for _, p := range parts {
		for _, b := range p.FunctionResponse.Response.Content {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
	}
	return texts
}
