package realclients

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Protocol revisions. The legacy ones begin with initialize; the modern
// one carries its version in every request's _meta.
const (
	rev20241105 = "2024-11-05"
	rev20250326 = "2025-03-26"
	rev20250618 = "2025-06-18"
	rev20251125 = "2025-11-25"
	rev20260728 = "2026-07-28"
)

// revisionCases are the revisions an SDK client asks for and the one it
// must end up with: each known revision itself, and for one that mcpship
// does not know (2024-10-07, which the SDKs still accept), the latest
// legacy revision, as the lifecycle rules ask of the server.
var revisionCases = []struct{ ask, want string }{
	{rev20241105, rev20241105},
	{rev20250326, rev20250326},
	{rev20250618, rev20250618},
	{rev20251125, rev20251125},
	{rev20260728, rev20260728},
	{"2024-10-07", rev20251125},
}

// A server is one way of running "mcpship serve", with what every client
// must see of it. To test another manifest, add an entry to servers.
type server struct {
	name string
	// args follow the mcpship binary on the command line.
	args func() []string
	// tools are the names tools/list must return, in order.
	tools []string
	// calls are checked by every client that can call tools.
	calls []call
	// agentCall is the call an AI assistant makes in an agent turn driven
	// by a fake model; its check sees only the text the model is given.
	agentCall call
}

// A call is one tools/call and what its outcome must be.
type call struct {
	name string
	tool string
	// args is the JSON of the arguments; empty sends none (or {}).
	args  string
	check func(t *testing.T, o outcome)
}

// An outcome is what a client made of a tools/call, normalised across
// clients: a JSON-RPC error, or a result.
type outcome struct {
	// RPCErr is the protocol error, or nil for a result.
	RPCErr *rpcError
	// IsError, Texts and Structured come from the result.
	IsError    bool
	Texts      []string
	Structured json.RawMessage
}

type rpcError struct {
	Code    int
	Message string
}

func (o outcome) String() string {
	if o.RPCErr != nil {
		return fmt.Sprintf("JSON-RPC error %d %q", o.RPCErr.Code, o.RPCErr.Message)
	}
	return fmt.Sprintf("result isError=%v texts=%q structuredContent=%s", o.IsError, o.Texts, o.Structured)
}

// servers is every server configuration the clients are run against.
var servers = []server{
	{
		name:  "self",
		args:  func() []string { return []string{"serve"} },
		tools: []string{"mcpship_version"},
		calls: []call{
			{name: "version", tool: "mcpship_version", check: checkVersionLine},
			{name: "version-empty-args", tool: "mcpship_version", args: `{}`, check: checkVersionLine},
			{name: "version-json", tool: "mcpship_version", args: `{"json":true}`, check: checkVersionResult},
			{name: "unknown-tool", tool: "no_such_tool", check: checkUnknownTool},
			{name: "bad-args", tool: "mcpship_version", args: `[1,2]`, check: checkBadArgs},
		},
		agentCall: call{name: "version", tool: "mcpship_version", check: checkVersionText},
	},
}

// checkVersionLine checks the result of mcpship_version without
// arguments: the line "mcpship version" prints, as text only, since the
// tool runs that command in-process.
func checkVersionLine(t *testing.T, o outcome) {
	t.Helper()
	if o.RPCErr != nil || o.IsError {
		t.Fatalf("mcpship_version: want a successful result, got %v", o)
	}
	if len(o.Texts) != 1 || strings.TrimSuffix(o.Texts[0], "\n") != versionLine {
		t.Errorf("mcpship_version: want one text block %q (the output of mcpship version), got %q", versionLine, o.Texts)
	}
	if len(o.Structured) > 0 && string(o.Structured) != "null" {
		t.Errorf("mcpship_version: want no structuredContent for the text output, got %s", o.Structured)
	}
}

// checkVersionResult checks the result of mcpship_version {"json": true}
// against what "mcpship version --json" prints: structuredContent, with a
// text copy.
func checkVersionResult(t *testing.T, o outcome) {
	t.Helper()
	if o.RPCErr != nil || o.IsError {
		t.Fatalf("mcpship_version: want a successful result, got %v", o)
	}
	if len(o.Texts) == 0 {
		t.Errorf("mcpship_version: structuredContent must come with a text block, got none")
	}
	var got map[string]any
	if err := json.Unmarshal(o.Structured, &got); err != nil {
		t.Fatalf("mcpship_version: structuredContent is not an object: %v in %s", err, o.Structured)
	}
	for _, k := range []string{"version", "go", "platform"} {
		if got[k] == nil || got[k] != versionJSON[k] {
			t.Errorf("mcpship_version: structuredContent.%s = %v, want %v (from mcpship version --json)", k, got[k], versionJSON[k])
		}
	}
	for k, v := range versionJSON {
		if fmt.Sprint(got[k]) != fmt.Sprint(v) {
			t.Errorf("mcpship_version: structuredContent.%s = %v, mcpship version --json says %v", k, got[k], v)
		}
	}
}

// checkVersionText checks what an assistant passed on to its model from
// mcpship_version: the text block (the output of mcpship version), or, as
// Claude Code does for a result with structuredContent, that JSON.
func checkVersionText(t *testing.T, o outcome) {
	t.Helper()
	if o.RPCErr != nil || o.IsError {
		t.Fatalf("mcpship_version: want a successful result, got %v", o)
	}
	text := strings.Join(o.Texts, "\n")
	if strings.Contains(text, versionLine) {
		return
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("mcpship_version: the model got %q: neither the text %q nor the structuredContent JSON", text, versionLine)
	}
	for k, v := range versionJSON {
		if fmt.Sprint(got[k]) != fmt.Sprint(v) {
			t.Errorf("mcpship_version: the model got %s = %v, mcpship version --json says %v", k, got[k], v)
		}
	}
}

// checkUnknownTool wants the protocol error for a tool the server lacks:
// invalid params (-32602), as the specification's example shows.
func checkUnknownTool(t *testing.T, o outcome) {
	t.Helper()
	if o.RPCErr == nil {
		t.Fatalf("unknown tool: want a JSON-RPC error, got %v", o)
	}
	if o.RPCErr.Code != -32602 || !strings.Contains(o.RPCErr.Message, "no_such_tool") {
		t.Errorf("unknown tool: want error -32602 naming no_such_tool, got %d %q", o.RPCErr.Code, o.RPCErr.Message)
	}
}

// checkBadArgs wants a tool error (isError) that tells the model what was
// wrong with its arguments, not a protocol error.
func checkBadArgs(t *testing.T, o outcome) {
	t.Helper()
	if o.RPCErr != nil || !o.IsError {
		t.Fatalf("bad arguments: want a result with isError, got %v", o)
	}
	if len(o.Texts) == 0 || !strings.Contains(strings.Join(o.Texts, "\n"), "invalid arguments") {
		t.Errorf("bad arguments: want a text block saying \"invalid arguments\", got %q", o.Texts)
	}
}

// checkToolNames compares the listed tool names with the server's.
func checkToolNames(t *testing.T, srv server, got []string) {
	t.Helper()
	if !slices.Equal(got, srv.tools) {
		t.Errorf("tools/list: got %q, want %q", got, srv.tools)
	}
}

// rawArgs returns the call's arguments as a Go value for the SDKs, nil
// when it has none.
func (c call) rawArgs(t *testing.T) any {
	t.Helper()
	if c.args == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(c.args), &v); err != nil {
		t.Fatalf("call %s: bad args %q: %v", c.name, c.args, err)
	}
	return v
}
