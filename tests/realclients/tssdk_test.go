package realclients

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// TestTypeScriptSDK drives mcpship with the official TypeScript SDK's
// Client (node/tsclient.mjs) over stdio, at every revision the SDK speaks.
// It has no 2026-07-28 support, so it always uses initialize.
func TestTypeScriptSDK(t *testing.T) {
	node := needNode(t)
	groupFile(t, "npm", filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	modules := filepath.Join(cacheDir(), "npm") // the directory holding node_modules
	script := filepath.Join(repoRoot, "tests", "realclients", "node", "tsclient.mjs")
	for _, srv := range servers {
		// "" is the SDK's own choice, which must be its latest, 2025-11-25.
		for _, rev := range []string{"", rev20241105, rev20250326, rev20250618, rev20251125, "2024-10-07"} {
			name := rev
			if name == "" {
				name = "default"
			}
			t.Run(srv.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				type plannedCall struct {
					Tool string          `json:"tool"`
					Args json.RawMessage `json:"args"`
				}
				plan := map[string]any{"modules": modules, "command": binPath, "args": srv.args(), "protocolVersion": rev}
				var calls []plannedCall
				for _, c := range srv.calls {
					args := json.RawMessage("null")
					if c.args != "" {
						args = json.RawMessage(c.args)
					}
					calls = append(calls, plannedCall{Tool: c.tool, Args: args})
				}
				plan["calls"] = calls
				planJSON, err := json.Marshal(plan)
				if err != nil {
					t.Fatal(err)
				}
				r := runTool(t, 60*time.Second, t.TempDir(), []string{"HOME=" + t.TempDir()}, node, script, string(planJSON))
				var got struct {
					Requested  string `json:"requested"`
					Negotiated string `json:"negotiated"`
					ServerInfo struct {
						Name, Version string
					} `json:"serverInfo"`
					Capabilities map[string]json.RawMessage `json:"capabilities"`
					Tools        []string                   `json:"tools"`
					Calls        []struct {
						Result *struct {
							Content []struct {
								Type, Text string
							} `json:"content"`
							StructuredContent json.RawMessage `json:"structuredContent"`
							IsError           bool            `json:"isError"`
						} `json:"result"`
						Error *struct {
							Code    *int   `json:"code"`
							Message string `json:"message"`
						} `json:"error"`
					} `json:"calls"`
					Fatal string `json:"fatal"`
				}
				if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 || got.Fatal != "" {
					t.Fatalf("tsclient.mjs failed (%v; fatal: %s)\n%s", err, got.Fatal, r)
				}
				// The SDK's default is 2025-11-25; 2024-10-07, which it still
				// accepts, mcpship does not know and answers with 2025-11-25.
				ask, want := rev, rev
				switch rev {
				case "":
					ask, want = rev20251125, rev20251125
				case "2024-10-07":
					want = rev20251125
				}
				if got.Requested != ask || got.Negotiated != want {
					t.Errorf("requested %q and negotiated %q, want %q and %q", got.Requested, got.Negotiated, ask, want)
				}
				if got.ServerInfo.Name != "mcpship" || got.ServerInfo.Version != versionJSON["version"] {
					t.Errorf("serverInfo = %+v, want mcpship %v", got.ServerInfo, versionJSON["version"])
				}
				if got.Capabilities["tools"] == nil {
					t.Errorf("capabilities = %v, want tools", got.Capabilities)
				}
				checkToolNames(t, srv, got.Tools)
				if len(got.Calls) != len(srv.calls) {
					t.Fatalf("got %d call outcomes, want %d\n%s", len(got.Calls), len(srv.calls), r)
				}
				for i, c := range srv.calls {
					t.Run(c.name, func(t *testing.T) {
						gc := got.Calls[i]
						var o outcome
						switch {
						case gc.Error != nil:
							o.RPCErr = &rpcError{Message: gc.Error.Message}
							if gc.Error.Code != nil {
								o.RPCErr.Code = *gc.Error.Code
							}
						case gc.Result != nil:
							o.IsError, o.Structured = gc.Result.IsError, gc.Result.StructuredContent
							for _, b := range gc.Result.Content {
								if b.Type == "text" {
									o.Texts = append(o.Texts, b.Text)
								}
							}
						default:
							t.Fatalf("call %d: neither result nor error\n%s", i, r)
						}
						c.check(t, o)
					})
				}
			})
		}
	}
}
