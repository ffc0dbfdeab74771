// Package conformance is the adapters' shared test suite: the behaviour
// cliadapter, cliv3adapter and cobraadapter must have alike, checked
// through the MCP client of each. Each adapter builds the suite's apps in
// its own framework and passes them in a [Suite]; only tests import it.
//
// The demo app has a root command and these commands:
//
//   - show [WORD...]: prints, as a JSON object, at least its flags name
//     (a string, default "anon", usage "who"), count (an integer, default
//     1) and tag (a list of strings), and its arguments as args; and
//     "note on stderr" on standard error.
//   - fail: with the required integer flag code, prints "partial output",
//     then fails with exit status code and the message "it failed", or,
//     for code 1, with a plain error "plain failure".
//   - wipe: does nothing; usage "delete everything".
//   - db show-status (alias st): prints "up".
//
// served with Prefix "demo_" and the tools show (ReadOnly, JSON), fail
// (ReadOnly, NoArgs, OKExitCodes 0 and 3), wipe (not ReadOnly, so not
// served) and db show-status (ReadOnly, NoArgs).
//
// The own-flags app has a command run that parses no flags of its own
// (SkipFlagParsing, DisableFlagParsing) and prints its arguments with
// %q, served as the tool run (ReadOnly).
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpship/mcpship/mcp"
)

// A Suite is one adapter's side of the tests.
type Suite struct {
	// Demo serves the demo app's tools and returns a client that has
	// done the initialize handshake.
	Demo func(t *testing.T) *mcp.Client
	// ShowTitle and ShowDescription are the show tool's.
	ShowTitle, ShowDescription string
	// ShowSchema is each input of the show tool, as JSON; no other input
	// may be there. Why the app's other flags are left out is said by
	// LeftOut, in a failure's message.
	ShowSchema map[string]string
	LeftOut    string
	// OwnFlags serves the own-flags app's tool run; OwnFlagsUsage is what
	// its args input's description ends with (" Usage: ..." or "").
	OwnFlags      func(t *testing.T) *mcp.Client
	OwnFlagsUsage string
	// Subcommands, if set, serves an app whose root prints "demo" and its
	// arguments with %q, and whose command db (a bool flag all) prints
	// "db" and its arguments, with a subcommand drop (alias rm) that
	// prints DROPPED: the tools db and demo (the root), ReadOnly, and db
	// drop, not ReadOnly and so not served.
	Subcommands func(t *testing.T) *mcp.Client
	// Main, if set, runs the demo app with the adapter's Commands added,
	// as its main would, and returns its standard output and its error;
	// HelpArgs are two ways to ask for init's help, and UnknownFlag what
	// the framework says of mcp --bogus.
	Main        func(args ...string) (stdout string, err error)
	HelpArgs    [][]string
	UnknownFlag string
}

// Run runs the suite, each part a subtest of t.
func Run(t *testing.T, s Suite) {
	t.Run("ListAndSchema", s.listAndSchema)
	t.Run("ExitCodes", s.exitCodes)
	t.Run("ConcurrentCallsAreIsolated", s.concurrentCalls)
	t.Run("CommandThatReadsItsOwnFlags", s.ownFlags)
	if s.Subcommands != nil {
		t.Run("ArgumentNamingASubcommand", s.argumentNamingASubcommand)
	}
	if s.Main != nil {
		t.Run("Commands", s.commands)
	}
}

// Call calls a tool and fails t if the call does not return a result.
func Call(t *testing.T, c *mcp.Client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.CallTool(context.Background(), name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func (s Suite) listAndSchema(t *testing.T) {
	c := s.Demo(t)
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if want := []string{"demo_show", "demo_fail", "demo_db_show_status"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("tools = %v, want %v (write-side wipe excluded; the alias st resolved)", names, want)
	}
	if tools[0].Title != s.ShowTitle || tools[0].Description != s.ShowDescription {
		t.Errorf("title %q, description %q; want %q, %q", tools[0].Title, tools[0].Description, s.ShowTitle, s.ShowDescription)
	}
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(tools[0].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	for name, w := range s.ShowSchema {
		got, _ := json.Marshal(schema.Properties[name])
		if string(got) != w {
			t.Errorf("%s: %s\n want %s", name, got, w)
		}
	}
	for name := range schema.Properties {
		if _, ok := s.ShowSchema[name]; !ok {
			t.Errorf("unexpected input %q (%s)", name, s.LeftOut)
		}
	}
	if err := json.Unmarshal(tools[1].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(schema.Required, []string{"code"}) {
		t.Errorf("fail requires %v, want [code]", schema.Required)
	}
	if !*tools[0].Annotations.ReadOnlyHint {
		t.Error("show is not announced read-only")
	}
}

func (s Suite) exitCodes(t *testing.T) {
	c := s.Demo(t)
	for _, tc := range []struct {
		args    map[string]any
		isError bool
		want    []string
	}{
		{map[string]any{"code": 3}, false, []string{"partial output", "(exit status 3)"}},
		{map[string]any{"code": 4}, true, []string{"demo fail exited with status 4: it failed", "partial output"}},
		{map[string]any{"code": 1}, true, []string{"demo fail exited with status 1: plain failure"}},
		{map[string]any{}, true, []string{`missing required property "code"`}},
		{map[string]any{"code": 2, "bogus": 1}, true, []string{`unknown property "bogus"`}},
	} {
		res := Call(t, c, "demo_fail", tc.args)
		for _, w := range tc.want {
			if res.IsError != tc.isError || !strings.Contains(res.Content[0].Text, w) {
				t.Errorf("%v: isError %v, %q; want %v and %q", tc.args, res.IsError, res.Content[0].Text, tc.isError, w)
			}
		}
	}
	if res := Call(t, c, "demo_show", map[string]any{"bogus": 1}); !res.IsError || !strings.Contains(res.Content[0].Text, `unknown property "bogus"`) {
		t.Errorf("show with an unknown property: %+v", res)
	}
	if res := Call(t, c, "demo_db_show_status", nil); res.IsError || res.Content[0].Text != "up" {
		t.Errorf("db show-status: %+v", res)
	}
}

func (s Suite) concurrentCalls(t *testing.T) {
	c := s.Demo(t)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("n%d", i)
			res, err := c.CallTool(context.Background(), "demo_show", map[string]any{"name": name, "count": i, "tag": []string{name}})
			if err != nil {
				t.Error(err)
				return
			}
			got, _ := res.StructuredContent.(map[string]any)
			if got["name"] != name || fmt.Sprint(got["count"]) != fmt.Sprint(i) || fmt.Sprint(got["tag"]) != "["+name+"]" {
				t.Errorf("call %d got %v", i, got)
			}
		}()
	}
	wg.Wait()
}

func (s Suite) ownFlags(t *testing.T) {
	c := s.OwnFlags(t)
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{"args":{"description":"Arguments, each one argument, given to the command as they are; it reads its own flags.` +
		s.OwnFlagsUsage + `","items":{"type":"string"},"type":"array"}},"type":"object"}`
	if got := string(tools[0].InputSchema); got != want {
		t.Errorf("schema\n %s\nwant\n %s", got, want)
	}
	if res := Call(t, c, "run", map[string]any{"args": []string{"ls", "-l"}}); res.IsError || res.Content[0].Text != `["ls" "-l"]` {
		t.Errorf("run ls -l: %+v", res.Content)
	}
}

// argumentNamingASubcommand: a positional argument that names a
// subcommand of the tool's command is an argument, never that
// subcommand, which is not the tool and may be a write-side one that is
// not served.
func (s Suite) argumentNamingASubcommand(t *testing.T) {
	c := s.Subcommands(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"db", map[string]any{"args": []string{"drop"}}, `db ["drop"]`},
		{"db", map[string]any{"all": true, "args": []string{"rm", "x"}}, `db ["rm" "x"]`},
		{"demo", map[string]any{"args": []string{"db", "drop"}}, `demo ["db" "drop"]`},
	} {
		res := Call(t, c, tc.tool, tc.args)
		if got := res.Content[0].Text; res.IsError || got != tc.want {
			t.Errorf("%s %v: isError %v, %q; want %q", tc.tool, tc.args, res.IsError, got, tc.want)
		}
	}
}

// commands: the commands that serve and register the app, with their
// help and their usage errors (exit status 64).
func (s Suite) commands(t *testing.T) {
	for _, args := range s.HelpArgs {
		out, err := s.Main(args...)
		if err != nil || !strings.Contains(out, "demo init - register this program") || !strings.Contains(out, "--allow-write") || !strings.Contains(out, "--dry-run") {
			t.Errorf("%q: %v\n%s", args, err, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "extra"}, `mcp takes no arguments, got "extra"`},
		{[]string{"mcp", "--transport", "sse"}, `unsupported --transport "sse": use "stdio" or "http"`},
		{[]string{"mcp", "--listen", "127.0.0.1:0"}, `--listen needs --transport http`},
		{[]string{"mcp", "--transport", "http", "--listen", "nonsense"}, `invalid --listen "nonsense"`},
		{[]string{"mcp", "--bogus"}, s.UnknownFlag},
		{[]string{"init", "--scope", "global"}, `--scope "global": want project, user or local`},
	} {
		_, err := s.Main(tc.args...)
		var ec interface{ ExitCode() int }
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ec) || ec.ExitCode() != 64 {
			t.Errorf("%q: %v, want a usage error (64) saying %q", tc.args, err, tc.want)
		}
	}
	if out, err := s.Main("mcp"); err != nil || out != "" {
		t.Errorf("mcp with no input: %v, %q", err, out)
	}
}
