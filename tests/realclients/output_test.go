package realclients

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// outputManifest writes a manifest of tools over the stand-in (served as
// "rigor"): print (text, budget 2000), long (timeout 3 minutes).
func outputManifest(t *testing.T) string {
	file := filepath.Join(t.TempDir(), "mcpship.json")
	writeJSON(t, file, map[string]any{"tools": []map[string]any{
		{"name": "print", "description": "Print what the words say.", "command": []string{"rigor", "{words}"},
			"inputs": map[string]any{"words": map[string]any{"type": "array"}}, "output": "text",
			"outputBudget": 2000, "maxOutputBytes": 4 << 20},
		{"name": "long", "description": "Run as long as the words say.", "command": []string{"rigor", "{words}"},
			"inputs": map[string]any{"words": map[string]any{"type": "array"}}, "output": "text", "timeout": "3m"},
	}})
	return file
}

type tsOutput struct {
	Capabilities map[string]json.RawMessage `json:"capabilities"`
	Result       struct {
		Content []struct {
			Type, Text, URI, MimeType string
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Progress []struct {
		Progress float64 `json:"progress"`
		Message  string  `json:"message"`
		AtMs     int64   `json:"atMs"`
	} `json:"progress"`
	Resources []struct {
		URI, MimeType, Text, Blob string
	} `json:"resources"`
	Listed    []string `json:"listed"`
	ElapsedMs int64    `json:"elapsedMs"`
	Fatal     string   `json:"fatal"`
}

// runTSOutput runs node/tsoutput.mjs with plan, over stdio (serving the
// manifest) or, with http, over Streamable HTTP.
func runTSOutput(t *testing.T, http bool, manifest string, plan map[string]any, timeout time.Duration) tsOutput {
	t.Helper()
	node := needNode(t)
	groupFile(t, "npm", filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	plan["modules"] = filepath.Join(cacheDir(), "npm")
	args := []string{"serve", "--manifest", manifest}
	if http {
		plan["url"] = startHTTPServe(t, args)
	} else {
		plan["command"], plan["args"] = binPath, args
	}
	b, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(repoRoot, "tests", "realclients", "node", "tsoutput.mjs")
	r := runTool(t, timeout, t.TempDir(), []string{"HOME=" + t.TempDir()}, node, script, string(b))
	var got tsOutput
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 || got.Fatal != "" {
		t.Fatalf("tsoutput.mjs failed (%v; fatal: %s)\n%s", err, got.Fatal, r)
	}
	return got
}

// TestTypeScriptSDKReadsCutOutput: the TypeScript SDK's Client calls a tool
// whose output is over its budget, gets the head and tail with a
// resource_link, and reads the resource back: every byte of the program's
// output, text as text and bytes that are not UTF-8 as a blob, over stdio
// and over HTTP.
func TestTypeScriptSDKReadsCutOutput(t *testing.T) {
	manifest := outputManifest(t)
	for _, tr := range []string{"stdio", "http"} {
		for _, words := range [][]string{{"lines", "20000"}, {"bytes", "300000"}} {
			t.Run(tr+"/"+words[0], func(t *testing.T) {
				t.Parallel()
				want, err := exec.Command(filepath.Join(standinDir, "rigor"), words...).Output()
				if err != nil {
					t.Fatal(err)
				}
				got := runTSOutput(t, tr == "http", manifest, map[string]any{"tool": "print", "arguments": map[string]any{"words": words}}, 2*time.Minute)
				if got.Capabilities["resources"] == nil {
					t.Errorf("no resources capability: %v", got.Capabilities)
				}
				c := got.Result.Content
				if len(c) != 2 || c[0].Type != "text" || c[1].Type != "resource_link" {
					t.Fatalf("content %+v: want the cut text and a resource_link", c)
				}
				if n := utf8.RuneCountInString(c[0].Text); n > 2000 || !strings.Contains(c[0].Text, "cut here to fit the output budget of 2000 characters") || !strings.Contains(c[0].Text, c[1].URI) {
					t.Errorf("cut text of %d characters:\n%s", n, c[0].Text)
				}
				if len(got.Resources) != 1 || got.Resources[0].URI != c[1].URI {
					t.Fatalf("resources read: %+v", got.Resources)
				}
				res := got.Resources[0]
				var data []byte
				if words[0] == "bytes" {
					if data, err = base64.StdEncoding.DecodeString(res.Blob); err != nil || res.MimeType != "application/octet-stream" {
						t.Fatalf("blob %s: %v", res.MimeType, err)
					}
				} else {
					data = []byte(res.Text)
				}
				if !bytes.Equal(data, want) {
					t.Errorf("read back %d bytes, want the program's %d bytes", len(data), len(want))
				}
				if len(got.Listed) != 1 || got.Listed[0] != c[1].URI {
					t.Errorf("resources/list: %v", got.Listed)
				}
			})
		}
	}
}

// TestTypeScriptSDKLongRunWithProgress: with a request timeout of 10 s
// that progress resets (resetTimeoutOnProgress), the TypeScript SDK's
// Client sees a 90 s run through: one that writes a step to stderr every
// second, and one silent for 20 s at a time, kept alive by heartbeats.
// It takes about 90 seconds.
func TestTypeScriptSDKLongRunWithProgress(t *testing.T) {
	manifest := outputManifest(t)
	for _, tc := range []struct {
		name  string
		words []string
		steps int
	}{
		{"steps", []string{"steps", "90", "1000"}, 90},
		{"silent", []string{"steps", "3", "30000"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := runTSOutput(t, false, manifest, map[string]any{"tool": "long", "arguments": map[string]any{"words": tc.words},
				"timeoutMs": 10000, "resetTimeoutOnProgress": true}, 4*time.Minute)
			if got.Result.IsError || len(got.Result.Content) == 0 || !strings.Contains(got.Result.Content[0].Text, "done") {
				t.Fatalf("result %+v", got.Result)
			}
			if got.ElapsedMs < 85000 {
				t.Errorf("the run took %d ms; want about 90 s, longer than the 10 s timeout", got.ElapsedMs)
			}
			for i := 1; i <= tc.steps; i++ {
				want := fmt.Sprintf("step %d of %d", i, tc.steps)
				found := false
				for _, p := range got.Progress {
					found = found || strings.HasPrefix(p.Message, want)
				}
				if !found {
					t.Errorf("no progress carries %q", want)
					break
				}
			}
			var gap int64
			for i := 1; i < len(got.Progress); i++ {
				gap = max(gap, got.Progress[i].AtMs-got.Progress[i-1].AtMs)
			}
			if gap >= 10000 {
				t.Errorf("%d ms between two progress notifications, longer than the timeout", gap)
			}
		})
	}
}
