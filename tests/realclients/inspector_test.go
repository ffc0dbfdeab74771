package realclients

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// inspectorEras are the Inspector's --protocol-era values and the revision
// each must end up speaking with mcpship.
var inspectorEras = []struct{ era, rev string }{
	{"legacy", rev20251125},
	{"modern", rev20260728},
	{"auto", rev20260728},
}

// TestInspectorCLI drives mcpship with the MCP Inspector's CLI, in each
// protocol era: tools/list (with --strict, which fails on tool schemas
// that are not portable across clients) and the server's calls. Over
// stdio the Inspector starts mcpship; over HTTP it reads the .mcp.json
// that init --url wrote (--config, --server) and reaches mcpship serving
// with a bearer token. The Inspector expands no variables in that file,
// so the token is given to init as a header (--header).
func TestInspectorCLI(t *testing.T) {
	inspector := nodeBin(t, "mcp-inspector")
	needNode(t)
	for _, tr := range transports {
		for _, srv := range servers {
			for _, e := range inspectorEras {
				t.Run(subtest(tr, srv.name, e.era), func(t *testing.T) {
					t.Parallel()
					inspectorCLI(t, inspector, tr, srv, e.era)
				})
			}
		}
	}
}

func inspectorCLI(t *testing.T, inspector, tr string, srv server, era string) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	target := append([]string{binPath}, srv.args()...)
	if tr == "http" {
		endpoint, token := serveRemote(t, srv)
		initRemote(t, home, env, "claude-code", "project", endpoint, "--header", "Authorization: Bearer "+token)
		target = []string{"--config", filepath.Join(home, ".mcp.json"), "--server", regName}
	}
	inspect := func(args ...string) run {
		t.Helper()
		all := append([]string{"--cli"}, target...)
		all = append(all, "--protocol-era", era, "--format", "json")
		return runTool(t, 60*time.Second, home, env, inspector, append(all, args...)...)
	}

	r := inspect("--method", "tools/list", "--strict")
	if r.code != 0 {
		t.Fatalf("tools/list --strict: want exit 0 (6 means a schema portability error)\n%s", r)
	}
	var list struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, r)
	}
	var names []string
	for _, tool := range list.Result.Tools {
		names = append(names, tool.Name)
	}
	checkToolNames(t, srv, names)

	for _, c := range srv.calls {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"-q", "--method", "tools/call", "--tool-name", c.tool}
			if c.args != "" {
				if !strings.HasPrefix(c.args, "{") {
					t.Skipf("the Inspector refuses non-object arguments itself (%q), so they never reach the server", c.args)
				}
				args = append(args, "--tool-args-json", c.args)
			}
			r := inspect(args...)
			if !slices.Contains(srv.tools, c.tool) {
				// The Inspector looks the tool up in tools/list first and
				// never sends the call: exit 5, tool_not_found.
				if r.code != 5 || !strings.Contains(r.stderr, "tool_not_found") {
					t.Fatalf("unknown tool: want exit 5 and tool_not_found\n%s", r)
				}
				return
			}
			c.check(t, inspectorCallOutcome(t, r))
		})
	}
}

// TestInspectorRevisions records what the Inspector sends in each era: the
// revision must be the one the era stands for, and every request must get
// a result, not an error.
func TestInspectorRevisions(t *testing.T) {
	inspector := nodeBin(t, "mcp-inspector")
	needNode(t)
	srv := servers[0]
	for _, e := range inspectorEras {
		t.Run(e.era, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			log := filepath.Join(home, "wire.log")
			cmd, cmdArgs := recordCommand(log, srv.args())
			args := append(append([]string{"--cli", cmd}, cmdArgs...),
				"--protocol-era", e.era, "--format", "json", "-q", "--method", "tools/call", "--tool-name", srv.calls[0].tool)
			r := runTool(t, 60*time.Second, home, []string{"HOME=" + home}, inspector, args...)
			if r.code != 0 {
				t.Fatalf("tools/call through the relay: want exit 0\n%s", r)
			}
			tr := readTranscript(t, log)
			checkTranscript(t, tr, []string{e.rev}, "tools/list", "tools/call")
		})
	}
}

// inspectorCallOutcome reads the outcome of a tools/call through the
// Inspector CLI, which exits 0 for a result and 5 for one with isError (on
// stderr the code tool_is_error); the result is on stdout either way.
func inspectorCallOutcome(t *testing.T, r run) outcome {
	t.Helper()
	switch {
	case r.code == 0:
		o := inspectorOutcome(t, r)
		if o.IsError {
			t.Errorf("the Inspector exited 0 for a result with isError\n%s", r)
		}
		return o
	case r.code == 5 && strings.Contains(r.stderr, `"tool_is_error"`):
		o := inspectorOutcome(t, r)
		if !o.IsError {
			t.Errorf("the Inspector said tool_is_error for a result without isError\n%s", r)
		}
		return o
	}
	t.Fatalf("tools/call: want exit 0 (a result) or 5 with tool_is_error (isError)\n%s", r)
	return outcome{}
}

// inspectorOutcome reads the Inspector's --format json answer to tools/call.
func inspectorOutcome(t *testing.T, r run) outcome {
	t.Helper()
	var got struct {
		Result struct {
			Content []struct {
				Type, Text string
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("tools/call: %v\n%s", err, r)
	}
	o := outcome{IsError: got.Result.IsError, Structured: got.Result.StructuredContent}
	for _, b := range got.Result.Content {
		if b.Type == "text" {
			o.Texts = append(o.Texts, b.Text)
		}
	}
	return o
}

// checkTranscript checks a recorded session: the client's requests named
// exactly the revisions revs, it sent every method in methods, and every
// request got a result rather than an error.
func checkTranscript(t *testing.T, tr transcript, revs []string, methods ...string) {
	t.Helper()
	if got := tr.revisions(); !slices.Equal(got, revs) {
		t.Errorf("the client asked for revisions %q, want %q\n%s", got, revs, tr)
	}
	sent := tr.methods()
	for _, m := range methods {
		if !slices.Contains(sent, m) {
			t.Errorf("the client never sent %s; it sent %q\n%s", m, sent, tr)
		}
	}
	for _, req := range tr.requests() {
		resp, ok := tr.response(req)
		switch {
		case !ok:
			t.Errorf("no response to %s (id %s)\n%s", req.Method, req.ID, tr)
		case resp.Error != nil:
			t.Errorf("%s (id %s) got error %d %q\n%s", req.Method, req.ID, resp.Error.Code, resp.Error.Message, tr)
		}
	}
}
