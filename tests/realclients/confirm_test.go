package realclients

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A manifest tool with "confirm" asks the person through the client's
// elicitation before it runs: the clients here answer accept or decline,
// or declare no elicitation at all, and the file the tool would create
// tells whether it ran.

// confirmManifest writes a manifest whose tool "create_file" creates the
// file named by its input "path" (the stand-in's "create"), after asking
// "Create {path}?", and returns its path.
func confirmManifest(t *testing.T) string {
	t.Helper()
	m := filepath.Join(t.TempDir(), "mcpship.json")
	writeJSON(t, m, map[string]any{"tools": []any{map[string]any{
		"name":        "create_file",
		"description": "Create a file",
		"command":     []string{"rigor", "create", "{path}"},
		"inputs":      map[string]any{"path": map[string]any{"required": true}},
		"readOnly":    false,
		"confirm":     "Create {path}?",
	}}})
	return m
}

// confirmCase is how a client answers the question, and what follows.
type confirmCase struct {
	name   string
	answer *mcp.ElicitResult // nil: the client declares no elicitation
	runs   bool
	want   string // in the result's text
}

var confirmCases = []confirmCase{
	{"accept", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, true, ""},
	{"decline", &mcp.ElicitResult{Action: "decline"}, false, "the user declined to run create_file"},
	{"no-elicitation", nil, false, "did not declare the elicitation capability"},
}

// checkConfirmed checks a call's outcome against c: whether the tool ran
// (the file exists), the result, and what the client was asked.
func checkConfirmed(t *testing.T, c confirmCase, path string, isError bool, text string, asked []string) {
	t.Helper()
	_, err := os.Stat(path)
	if ran := err == nil; ran != c.runs {
		t.Errorf("the tool ran: %v, want %v", ran, c.runs)
	}
	if isError == c.runs || !strings.Contains(text, c.want) {
		t.Errorf("isError %v, text %q; want isError %v and %q", isError, text, !c.runs, c.want)
	}
	wantAsked := 1
	if c.answer == nil {
		wantAsked = 0
	}
	if len(asked) != wantAsked {
		t.Fatalf("asked %d times, want %d", len(asked), wantAsked)
	}
	if wantAsked == 1 {
		if want := `Create "` + path + `"?`; asked[0] != want {
			t.Errorf("asked %q, want %q", asked[0], want)
		}
	}
}

// TestConfirmGoSDK calls the tool with the Go SDK's client over stdio and
// HTTP, at 2025-11-25 (asked by elicitation/create) and 2026-07-28 (asked
// by an InputRequiredResult, which the SDK answers and retries itself).
func TestConfirmGoSDK(t *testing.T) {
	m := confirmManifest(t)
	args := []string{"serve", "--manifest", m}
	url := startHTTPServe(t, args)
	for _, transport := range []string{"stdio", "http"} {
		for _, rev := range []string{rev20251125, rev20260728} {
			for _, c := range confirmCases {
				t.Run(transport+"/"+rev+"/"+c.name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					var mu sync.Mutex
					var asked []string
					opts := &mcp.ClientOptions{}
					if c.answer != nil {
						opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
							mu.Lock()
							asked = append(asked, req.Params.Message)
							mu.Unlock()
							return c.answer, nil
						}
					}
					client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-gosdk", Version: "0"}, opts)
					var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url}
					if transport == "stdio" {
						tr = &mcp.CommandTransport{Command: exec.Command(binPath, args...)}
					}
					cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
					if err != nil {
						t.Fatalf("connect: %v", err)
					}
					defer cs.Close()
					if got := cs.InitializeResult().ProtocolVersion; got != rev {
						t.Errorf("negotiated %s, want %s", got, rev)
					}
					path := filepath.Join(t.TempDir(), "made")
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_file", Arguments: map[string]any{"path": path}})
					if err != nil {
						t.Fatalf("call: %v", err)
					}
					o := goSDKOutcome(t, res, nil)
					mu.Lock()
					defer mu.Unlock()
					checkConfirmed(t, c, path, o.IsError, strings.Join(o.Texts, "\n"), asked)
				})
			}
		}
	}
}

// TestConfirmTypeScriptSDK calls the tool with the TypeScript SDK's
// client (node/tsconfirm.mjs) over stdio and HTTP; the SDK speaks the
// legacy revisions only, and is asked by elicitation/create.
func TestConfirmTypeScriptSDK(t *testing.T) {
	node := needNode(t)
	groupFile(t, "npm", filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	modules := filepath.Join(cacheDir(), "npm")
	script := filepath.Join(repoRoot, "tests", "realclients", "node", "tsconfirm.mjs")
	m := confirmManifest(t)
	args := []string{"serve", "--manifest", m}
	url := startHTTPServe(t, args)
	for _, transport := range []string{"stdio", "http"} {
		for _, c := range confirmCases {
			t.Run(transport+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				path := filepath.Join(t.TempDir(), "made")
				plan := map[string]any{"modules": modules, "answer": c.answer,
					"calls": []any{map[string]any{"tool": "create_file", "args": map[string]string{"path": path}}}}
				if transport == "stdio" {
					plan["command"], plan["args"] = binPath, args
				} else {
					plan["url"] = url
				}
				planJSON, err := json.Marshal(plan)
				if err != nil {
					t.Fatal(err)
				}
				r := runTool(t, time.Minute, t.TempDir(), []string{"HOME=" + t.TempDir()}, node, script, string(planJSON))
				var got struct {
					Negotiated string `json:"negotiated"`
					Asked      []struct {
						Message string `json:"message"`
					} `json:"asked"`
					Calls []struct {
						Result *struct {
							Content []struct{ Type, Text string } `json:"content"`
							IsError bool                          `json:"isError"`
						} `json:"result"`
						Error *struct{ Message string } `json:"error"`
					} `json:"calls"`
					Fatal string `json:"fatal"`
				}
				if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 || got.Fatal != "" || len(got.Calls) != 1 {
					t.Fatalf("tsconfirm.mjs failed (%v; fatal: %s)\n%s", err, got.Fatal, r)
				}
				if got.Negotiated != rev20251125 {
					t.Errorf("negotiated %q, want %s", got.Negotiated, rev20251125)
				}
				call := got.Calls[0]
				if call.Result == nil {
					t.Fatalf("call failed: %+v\n%s", call.Error, r)
				}
				var text []string
				for _, b := range call.Result.Content {
					text = append(text, b.Text)
				}
				var asked []string
				for _, a := range got.Asked {
					asked = append(asked, a.Message)
				}
				checkConfirmed(t, c, path, call.Result.IsError, strings.Join(text, "\n"), asked)
			})
		}
	}
}
