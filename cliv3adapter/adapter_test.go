package cliv3adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/clitool/conformance"
	"github.com/mcpship/mcpship/mcp"
	"github.com/urfave/cli/v3"
)

// newTestRoot is a small app whose "show" command prints what it parsed.
func newTestRoot() *cli.Command {
	return &cli.Command{
		Name:    "demo",
		Version: "1.2.3",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "depth", Value: 2, Usage: "how deep", Local: true},
			&cli.StringFlag{Name: "config", Usage: "config file"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			fmt.Fprintf(cmd.Root().Writer, "root depth=%d args=%q", cmd.Int("depth"), cmd.Args().Slice())
			return nil
		},
		Commands: []*cli.Command{
			{
				Name:        "show",
				Usage:       "print the parsed flags and arguments",
				Description: "Prints them as JSON.",
				ArgsUsage:   "[WORD...]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "name", Value: "anon", Usage: "who"},
					&cli.BoolFlag{Name: "loud", Aliases: []string{"l"}},
					&cli.IntFlag{Name: "count", Value: 1},
					&cli.Int8Flag{Name: "small"},
					&cli.UintFlag{Name: "level"},
					&cli.Uint8Flag{Name: "byte"},
					&cli.FloatFlag{Name: "ratio"},
					&cli.Float32Flag{Name: "ratio32", Value: 0.5},
					&cli.DurationFlag{Name: "wait", Value: time.Second},
					&cli.StringSliceFlag{Name: "tag"},
					&cli.IntSliceFlag{Name: "num"},
					&cli.BoolWithInverseFlag{Name: "color", Value: true},
					&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
					&cli.StringFlag{Name: "secret", Hidden: true},
					&cli.TimestampFlag{Name: "when"},
					&cli.StringMapFlag{Name: "label"},
				},
				Action: func(_ context.Context, cmd *cli.Command) error {
					out := map[string]any{
						"name": cmd.String("name"), "loud": cmd.Bool("loud"), "count": cmd.Int("count"), "small": cmd.Int8("small"),
						"level": cmd.Uint("level"), "ratio32": cmd.Float32("ratio32"), "wait": cmd.Duration("wait").String(),
						"tag": cmd.StringSlice("tag"), "num": cmd.IntSlice("num"), "color": cmd.Bool("color"),
						"config": cmd.String("config"), "args": cmd.Args().Slice(),
					}
					b, _ := json.Marshal(out)
					fmt.Fprintln(cmd.Root().Writer, string(b))
					fmt.Fprintln(cmd.Root().ErrWriter, "note on stderr")
					return nil
				},
			},
			{
				Name:  "fail",
				Flags: []cli.Flag{&cli.IntFlag{Name: "code", Required: true}},
				Action: func(_ context.Context, cmd *cli.Command) error {
					fmt.Fprintln(cmd.Root().Writer, "partial output")
					if cmd.Int("code") == 1 {
						return errors.New("plain failure")
					}
					return cli.Exit("it failed", cmd.Int("code"))
				},
			},
			{Name: "wipe", Usage: "delete everything", Action: func(context.Context, *cli.Command) error { return nil }},
			{Name: "db", Commands: []*cli.Command{{Name: "show-status", Aliases: []string{"st"}, Action: func(_ context.Context, cmd *cli.Command) error {
				fmt.Fprint(cmd.Root().Writer, "up")
				return nil
			}}}},
		},
	}
}

var testOptions = Options{
	Prefix: "demo_",
	Tools: []Tool{
		{Command: "show", ReadOnly: true, JSON: true, Enum: map[string][]string{"format": {"text", "json"}}},
		{Command: "fail", ReadOnly: true, NoArgs: true, OKExitCodes: []int{0, 3}},
		{Command: "wipe"},
		{Command: "db st", ReadOnly: true, NoArgs: true},
	},
}

// connect serves the tools in memory and returns a client that has
// done the initialize handshake.
func connect(t *testing.T, newRoot func() *cli.Command, opts Options) *mcp.Client {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1"}, &mcp.ServerOptions{MaxConcurrentCalls: 64})
	if err := AddTools(srv, newRoot, opts); err != nil {
		t.Fatal(err)
	}
	c := srv.Connect(context.Background(), nil)
	t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	return c
}

func call(t *testing.T, c *mcp.Client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.CallTool(context.Background(), name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestValuesArriveAsGiven(t *testing.T) {
	c := connect(t, newTestRoot, testOptions)
	res := call(t, c, "demo_show", map[string]any{
		"name": "bob", "loud": true, "small": -128, "ratio32": 2.0, "wait": "1m30s", "config": "c.yml", "color": false,
		"tag": []string{`a,b`, `say "hi"`, ""}, "num": []any{2.0, json.Number("1e1")},
		"args": []string{"--name=injected", "-x", "a; rm -rf /", "$(id)", "two\nlines"},
	})
	if res.IsError {
		t.Fatalf("call failed: %s", res.Content[0].Text)
	}
	got, _ := json.Marshal(res.StructuredContent)
	want := `{"args":["--name=injected","-x","a; rm -rf /","$(id)","two\nlines"],"color":false,"config":"c.yml","count":1,"level":0,` +
		`"loud":true,"name":"bob","num":[2,10],"ratio32":2,"small":-128,"tag":["a,b","say \"hi\"",""],"wait":"1m30s"}`
	if string(got) != want {
		t.Errorf("parsed\n %s\nwant\n %s", got, want)
	}
	res = call(t, c, "demo_show", map[string]any{})
	got, _ = json.Marshal(res.StructuredContent)
	want = `{"args":[],"color":true,"config":"","count":1,"level":0,"loud":false,"name":"anon","num":[],"ratio32":0.5,"small":0,"tag":[],"wait":"1s"}`
	if string(got) != want {
		t.Errorf("a second call, with no inputs, parsed\n %s\nwant the defaults\n %s", got, want)
	}
	for _, bad := range []map[string]any{{"small": 128}, {"level": -1}, {"format": "xml"}, {"wait": "soon"}} {
		if res := call(t, c, "demo_show", bad); !res.IsError {
			t.Errorf("%v was accepted: %s", bad, res.Content[0].Text)
		}
	}
}

func TestRootAndBadOptions(t *testing.T) {
	c := connect(t, newTestRoot, Options{Tools: []Tool{{Command: "", ReadOnly: true}}})
	res := call(t, c, "demo", map[string]any{"depth": 5, "args": []string{"-x", "y"}})
	if got := res.Content[0].Text; res.IsError || got != `root depth=5 args=["-x" "y"]` {
		t.Errorf("root: %q", got)
	}
	for opts, want := range map[*Options]string{
		{Tools: []Tool{{Command: "db nope", ReadOnly: true}}}:                                         `cliv3adapter: app demo has no command "nope" (Tool.Command "db nope"); it has: show-status`,
		{Tools: []Tool{{Command: "show", ReadOnly: true, Enum: map[string][]string{"count": {"1"}}}}}: `only a string flag`,
		{Tools: []Tool{{Command: "show", ReadOnly: true, Args: "name"}}}:                              `has a flag named "name"`,
	} {
		err := AddTools(mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"}, nil), newTestRoot, *opts)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", opts.Tools, err, want)
		}
	}
}

// run runs the test app with Commands added, as its main would, and
// returns its standard output and its error.
func run(args ...string) (stdout string, err error) {
	var newRoot func() *cli.Command
	newRoot = func() *cli.Command {
		root := newTestRoot()
		root.Commands = append(root.Commands, Commands(newRoot, testOptions)...)
		return root
	}
	root := newRoot()
	var out bytes.Buffer
	root.Writer, root.ErrWriter, root.Reader = &out, io.Discard, strings.NewReader("")
	root.ExitErrHandler = func(context.Context, *cli.Command, error) {}
	err = root.Run(context.Background(), append([]string{"demo"}, args...))
	return out.String(), err
}

// TestConformance runs the tests all three adapters share, on this
// adapter's apps.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Suite{
		Demo:            func(t *testing.T) *mcp.Client { return connect(t, newTestRoot, testOptions) },
		ShowTitle:       "print the parsed flags and arguments",
		ShowDescription: "print the parsed flags and arguments\n\nPrints them as JSON.",
		ShowSchema: map[string]string{
			"name": `{"default":"anon","description":"who","type":"string"}`,
			"loud": `{"type":"boolean"}`, "count": `{"default":1,"type":"integer"}`,
			"small":   `{"maximum":127,"minimum":-128,"type":"integer"}`,
			"level":   `{"minimum":0,"type":"integer"}`,
			"byte":    `{"maximum":255,"minimum":0,"type":"integer"}`,
			"ratio":   `{"type":"number"}`,
			"ratio32": `{"default":0.5,"type":"number"}`,
			"wait":    `{"default":"1s","description":"(a duration such as \"1m30s\")","pattern":"^(\\d+(\\.\\d*)?(ns|us|µs|ms|s|m|h))+$|^0$","type":"string"}`,
			"tag":     `{"items":{"type":"string"},"type":"array"}`,
			"num":     `{"items":{"type":"integer"},"type":"array"}`,
			"color":   `{"default":true,"type":"boolean"}`,
			"format":  `{"default":"text","description":"text or json","enum":["text","json"],"type":"string"}`,
			"config":  `{"description":"config file","type":"string"}`,
			"args":    `{"description":"Positional arguments, each one argument; never read as flags. Usage: [WORD...]","items":{"type":"string"},"type":"array"}`,
		},
		LeftOut: "hidden, timestamp, map and the parent's Local flags are left out",
		OwnFlags: func(t *testing.T) *mcp.Client {
			newRoot := func() *cli.Command {
				return &cli.Command{Name: "demo", Flags: []cli.Flag{&cli.StringFlag{Name: "config"}}, Commands: []*cli.Command{{
					Name: "run", SkipFlagParsing: true, Flags: []cli.Flag{&cli.BoolFlag{Name: "quiet"}},
					Action: func(_ context.Context, cmd *cli.Command) error {
						fmt.Fprintf(cmd.Root().Writer, "%q", cmd.Args().Slice())
						return nil
					},
				}}}
			}
			return connect(t, newRoot, Options{Tools: []Tool{{Command: "run", ReadOnly: true}}})
		},
		Subcommands: func(t *testing.T) *mcp.Client {
			newRoot := func() *cli.Command {
				return &cli.Command{Name: "demo", Action: func(_ context.Context, cmd *cli.Command) error {
					fmt.Fprintf(cmd.Root().Writer, "demo %q", cmd.Args().Slice())
					return nil
				}, Commands: []*cli.Command{{
					Name:  "db",
					Flags: []cli.Flag{&cli.BoolFlag{Name: "all"}},
					Action: func(_ context.Context, cmd *cli.Command) error {
						fmt.Fprintf(cmd.Root().Writer, "db %q", cmd.Args().Slice())
						return nil
					},
					Commands: []*cli.Command{{Name: "drop", Aliases: []string{"rm"}, Action: func(_ context.Context, cmd *cli.Command) error {
						fmt.Fprint(cmd.Root().Writer, "DROPPED")
						return nil
					}}},
				}}}
			}
			return connect(t, newRoot, Options{Tools: []Tool{{Command: "db", ReadOnly: true}, {Command: "", ReadOnly: true}, {Command: "db drop"}}})
		},
		Main:        run,
		HelpArgs:    [][]string{{"init", "--help"}, {"init", "-h"}},
		UnknownFlag: "flag provided but not defined: --bogus",
	})
	var names []string
	for _, c := range Commands(newTestRoot, testOptions) {
		names = append(names, c.Name)
	}
	if !reflect.DeepEqual(names, []string{"mcp", "init", "remove", "doctor"}) {
		t.Errorf("Commands: %v", names)
	}
}

// TestMutuallyExclusiveFlags: the flags of a command's groups of mutually
// exclusive flags are inputs, and a default the server fills in for a call
// that leaves its input out does not count as set, or the group would
// refuse every call that gives another of its flags.
func TestMutuallyExclusiveFlags(t *testing.T) {
	newRoot := func() *cli.Command {
		return &cli.Command{Name: "demo", Commands: []*cli.Command{{
			Name: "render",
			MutuallyExclusiveFlags: []cli.MutuallyExclusiveFlags{{Flags: [][]cli.Flag{
				{&cli.StringFlag{Name: "format", Value: "text", Usage: "how to print"}},
				{&cli.BoolFlag{Name: "json"}},
			}}},
			Action: func(_ context.Context, cmd *cli.Command) error {
				fmt.Fprintf(cmd.Root().Writer, "format=%s set=%v json=%v", cmd.String("format"), cmd.IsSet("format"), cmd.Bool("json"))
				return nil
			},
		}}}
	}
	c := connect(t, newRoot, Options{Tools: []Tool{{Command: "render", ReadOnly: true, NoArgs: true}}})
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{"format":{"default":"text","description":"how to print","type":"string"},"json":{"type":"boolean"}},"type":"object"}`
	if got := string(tools[0].InputSchema); got != want {
		t.Errorf("schema\n %s\nwant\n %s", got, want)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "format=text set=false json=false"},
		{map[string]any{"json": true}, "format=text set=false json=true"},
		{map[string]any{"format": "yaml"}, "format=yaml set=true json=false"},
	} {
		res := call(t, c, "render", tc.args)
		if got := res.Content[0].Text; res.IsError || got != tc.want {
			t.Errorf("%v: isError %v, %q; want %q", tc.args, res.IsError, got, tc.want)
		}
	}
}

// TestFileFlag: a string flag that TakesFile says it is a path.
func TestFileFlag(t *testing.T) {
	newRoot := func() *cli.Command {
		return &cli.Command{Name: "demo", Commands: []*cli.Command{{
			Name: "read", Flags: []cli.Flag{&cli.StringFlag{Name: "in", TakesFile: true, Usage: "input"}},
			Action: func(context.Context, *cli.Command) error { return nil },
		}}}
	}
	c := connect(t, newRoot, Options{Tools: []Tool{{Command: "read", ReadOnly: true, NoArgs: true}}})
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"additionalProperties":false,"properties":{"in":{"description":"input (a path)","type":"string"}},"type":"object"}`; string(tools[0].InputSchema) != want {
		t.Errorf("schema\n %s\nwant\n %s", tools[0].InputSchema, want)
	}
}

// TestCommandsWithTheirOwnOutput: a subcommand that set its own Writer
// still writes into the call's result, never into the protocol stream.
func TestCommandsWithTheirOwnOutput(t *testing.T) {
	newRoot := func() *cli.Command {
		return &cli.Command{Name: "demo", Commands: []*cli.Command{{
			Name: "hello", Writer: os.Stdout, ErrWriter: os.Stderr,
			Action: func(_ context.Context, cmd *cli.Command) error {
				fmt.Fprintln(cmd.Writer, "hello")
				fmt.Fprintln(cmd.ErrWriter, "a note")
				return nil
			},
		}}}
	}
	c := connect(t, newRoot, Options{Tools: []Tool{{Command: "hello", ReadOnly: true, NoArgs: true}}})
	res := call(t, c, "hello", nil)
	if got := res.Content[0].Text; res.IsError || got != "hello\n" {
		t.Errorf("isError %v, %q", res.IsError, got)
	}
}
