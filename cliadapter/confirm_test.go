package cliadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/mcpproxy"
	"github.com/mcpship/mcpship/mcp"
)

// TestConfirm serves a command that may write with a Confirm question: it runs only
// when the client accepts, and the question shows the call's values
// quoted.
func TestConfirm(t *testing.T) {
	var runs atomic.Int32
	newApp := func() *cli.App {
		return &cli.App{Name: "demo", Commands: []*cli.Command{{
			Name:  "wipe",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "force"}},
			Action: func(c *cli.Context) error {
				runs.Add(1)
				fmt.Fprintf(c.App.Writer, "wiped %q", c.Args().Slice())
				return nil
			},
		}}}
	}
	opts := Options{AllowWrite: true, Tools: []Tool{{Command: "wipe", Args: "paths", Confirm: "Wipe {paths} (force: {force})?"}}}
	for _, c := range []struct {
		name, caps, answer string
		runs               bool
		want               string
	}{
		{"accept", `{"elicitation":{}}`, `{"action":"accept","content":{"confirm":true}}`, true, `wiped ["a b" "c\"?"]`},
		{"decline", `{"elicitation":{}}`, `{"action":"decline"}`, false, "the user declined to run wipe"},
		{"cancel", `{"elicitation":{}}`, `{"action":"cancel"}`, false, "the user dismissed the confirmation of wipe"},
		{"no-capability", `{}`, "", false, "did not declare the elicitation capability"},
	} {
		t.Run(c.name, func(t *testing.T) {
			runs.Store(0)
			srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1"}, nil)
			if err := AddTools(srv, newApp, opts); err != nil {
				t.Fatal(err)
			}
			var asked []string
			opts := &mcp.ClientOptions{}
			mcpproxy.WithClientHooks.(func(*mcp.ClientOptions, mcpproxy.OnRequest, mcpproxy.OnResponse))(opts, func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
				var p struct{ Message string }
				json.Unmarshal(params, &p)
				asked = append(asked, method+": "+p.Message)
				return json.RawMessage(c.answer), nil
			}, nil)
			cl := srv.Connect(context.Background(), opts)
			defer cl.Close()
			err := cl.Call(context.Background(), "initialize", map[string]any{"protocolVersion": "2025-11-25",
				"capabilities": json.RawMessage(c.caps), "clientInfo": map[string]string{"name": "t", "version": "0"}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, cl, "wipe", map[string]any{"paths": []string{"a b", `c"?`}})
			got := ""
			for _, b := range res.Content {
				got += b.Text
			}
			if res.IsError == c.runs || !strings.Contains(got, c.want) {
				t.Errorf("isError %v, text %q; want isError %v and %q", res.IsError, got, !c.runs, c.want)
			}
			if ran := runs.Load() > 0; ran != c.runs {
				t.Errorf("the command ran: %v, want %v", ran, c.runs)
			}
			want := []string{`elicitation/create: Wipe ["a b", "c\"?"] (force: (not given))?`}
			if c.answer == "" {
				want = nil
			}
			if fmt.Sprint(asked) != fmt.Sprint(want) {
				t.Errorf("asked %q, want %q", asked, want)
			}
		})
	}
}

// TestConfirmRefused: AddTools refuses a Confirm that names no input, and
// one on a ReadOnly command.
func TestConfirmRefused(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1"}, nil)
	for _, c := range []struct {
		tool Tool
		want string
	}{
		{Tool{Command: "show", Confirm: "Show {nme}?"}, `Tool.Confirm of "show": {nme} names no input of the tool (did you mean {name}?)`},
		{Tool{Command: "show", ReadOnly: true, Confirm: "Show {name}?"}, `Tool.Confirm of "show": a confirm question asks before a command changes something, and this one is ReadOnly`},
		{Tool{Command: "show", Confirm: "Show {name?"}, `has a '{' with no closing '}'`},
	} {
		err := AddTools(srv, newTestApp, Options{AllowWrite: true, Tools: []Tool{c.tool}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddTools(%+v) = %v, want %q", c.tool, err, c.want)
		}
	}
}
