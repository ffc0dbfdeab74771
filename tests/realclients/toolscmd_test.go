package realclients

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestToolsAndCallAgainstTypeScriptServer runs "mcpship tools" and
// "mcpship call" against a server written with the official TypeScript
// SDK (node/tsserver.mjs): its tools as mcpship prints them, content that
// mcpship serve never sends (an image, a resource link), a server that
// pings the client or asks it for roots during a call, isError, and the
// progress the server reports.
func TestToolsAndCallAgainstTypeScriptServer(t *testing.T) {
	node := needNode(t)
	groupFile(t, "npm", filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	server := []string{"--", node, filepath.Join(repoRoot, "tests", "realclients", "node", "tsserver.mjs"), filepath.Join(cacheDir(), "npm")}
	mcpship := func(args ...string) run {
		t.Helper()
		return runTool(t, 60*time.Second, t.TempDir(), nil, binPath, append(args, server...)...)
	}
	for _, tc := range []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"tools", []string{"tools"}, 0, `ts-demo 2.0.0 (protocol 2025-11-25): 5 tools
A demo server written with the TypeScript SDK.

pic: A picture
    Returns a tiny PNG, a resource link and its size.
    size  "s" | "m", required, default "s"  how big
    tags  array of string
    n     integer | null
    output: size string, bytes integer
    hints: read-only, closed world

pingme
    Pings the client before answering.
    (no inputs)

roots
    Asks the client for its roots.
    (no inputs)

fail
    Always fails.
    (no inputs)

progress
    Reports progress, then answers.
    (no inputs)
`, ""},
		{"pic", []string{"call", "pic", `{"size": "m"}`}, 0, `[image image/png, 8 bytes]
[resource link pic.png: file:///pic.png]
{
  "size": "m",
  "bytes": 8
}
`, ""},
		{"ping from the server", []string{"call", "pingme"}, 0, "pong received\n", ""},
		{"roots/list from the server", []string{"call", "roots"}, 0, "no roots: MCP error -32601: the client does not support roots/list\n", ""},
		{"isError", []string{"call", "fail"}, 1, "it broke\n", "mcpship: fail failed: its result is an error (isError)\n"},
		{"progress", []string{"call", "progress"}, 0, "done (progressToken 1)\n", "mcpship: half way (1 of 2)\n"},
		{"unknown tool", []string{"call", "pong"}, 64, "", "has: pic, pingme, roots, fail, progress\nRun 'mcpship help' for usage.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mcpship(tc.args...)
			// The unknown tool's message names the server by its command
			// line, which holds this machine's paths: its end is checked.
			if r.code != tc.code || r.stdout != tc.stdout || !strings.HasSuffix(r.stderr, tc.stderr) || tc.code != 64 && r.stderr != tc.stderr {
				t.Errorf("mcpship %q: got\n%s\nwant exit %d\n--- stdout:\n%s\n--- stderr:\n%s", tc.args, r, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}
