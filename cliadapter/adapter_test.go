package cliadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/clitool/conformance"
	"github.com/mcpship/mcpship/mcp"
	"github.com/urfave/cli/v2"
)

// newTestApp is a small app whose "show" command prints what it parsed.
func newTestApp() *cli.App {
	return &cli.App{
		Name:  "demo",
		Flags: []cli.Flag{&cli.IntFlag{Name: "depth", Value: 2}},
		Action: func(c *cli.Context) error {
			fmt.Fprintf(c.App.Writer, "root depth=%d args=%q", c.Int("depth"), c.Args().Slice())
			return nil
		},
		Commands: []*cli.Command{
			{
				Name:      "show",
				Usage:     "print the parsed flags and arguments",
				ArgsUsage: "[WORD...]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "name", Value: "anon", Usage: "who"},
					&cli.BoolFlag{Name: "loud"},
					&cli.IntFlag{Name: "count", Value: 1},
					&cli.UintFlag{Name: "level"},
					&cli.Float64Flag{Name: "ratio"},
					&cli.StringSliceFlag{Name: "tag"},
					&cli.IntSliceFlag{Name: "num"},
					&cli.DurationFlag{Name: "wait", Value: time.Second},
					&cli.PathFlag{Name: "dir"},
					&cli.StringFlag{Name: "secret", Hidden: true},
					&cli.TimestampFlag{Name: "when", Layout: time.RFC3339},
				},
				Action: func(c *cli.Context) error {
					out := map[string]any{
						"name": c.String("name"), "loud": c.Bool("loud"), "count": c.Int("count"),
						"tag": c.StringSlice("tag"), "num": c.IntSlice("num"), "wait": c.Duration("wait").String(),
						"args": c.Args().Slice(),
					}
					b, _ := json.Marshal(out)
					fmt.Fprintln(c.App.Writer, string(b))
					fmt.Fprintln(c.App.ErrWriter, "note on stderr")
					return nil
				},
			},
			{
				Name:  "fail",
				Flags: []cli.Flag{&cli.IntFlag{Name: "code", Required: true}},
				Action: func(c *cli.Context) error {
					fmt.Fprintln(c.App.Writer, "partial output")
					if c.Int("code") == 1 {
						return errors.New("plain failure")
					}
					return cli.Exit("it failed", c.Int("code"))
				},
			},
			{Name: "wipe", Usage: "delete everything", Action: func(*cli.Context) error { return nil }},
			{Name: "db", Subcommands: []*cli.Command{{Name: "show-status", Action: func(c *cli.Context) error {
				fmt.Fprint(c.App.Writer, "up")
				return nil
			}}}},
		},
	}
}

var testOptions = Options{
	Prefix: "demo_",
	Tools: []Tool{
		{Command: "show", ReadOnly: true, JSON: true},
		{Command: "fail", ReadOnly: true, NoArgs: true, OKExitCodes: []int{0, 3}},
		{Command: "wipe"},
		{Command: "db show-status", ReadOnly: true, NoArgs: true},
	},
}

// connect serves the tools in memory and returns a client that has
// done the initialize handshake.
func connect(t *testing.T, opts Options) *mcp.Client {
	t.Helper()
	return connectApp(t, newTestApp, opts)
}

func connectApp(t *testing.T, newApp func() *cli.App, opts Options) *mcp.Client {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1"}, &mcp.ServerOptions{MaxConcurrentCalls: 64})
	if err := AddTools(srv, newApp, opts); err != nil {
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

// TestConformance runs the tests all three adapters share, on this
// adapter's apps.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Suite{
		Demo:            func(t *testing.T) *mcp.Client { return connect(t, testOptions) },
		ShowTitle:       "print the parsed flags and arguments",
		ShowDescription: "print the parsed flags and arguments",
		ShowSchema: map[string]string{
			"name":  `{"default":"anon","description":"who","type":"string"}`,
			"loud":  `{"type":"boolean"}`,
			"count": `{"default":1,"type":"integer"}`,
			"level": `{"minimum":0,"type":"integer"}`,
			"ratio": `{"type":"number"}`,
			"tag":   `{"items":{"type":"string"},"type":"array"}`,
			"num":   `{"items":{"type":"integer"},"type":"array"}`,
			"wait":  `{"default":"1s","description":"(a duration such as \"1m30s\")","pattern":"^(\\d+(\\.\\d*)?(ns|us|µs|ms|s|m|h))+$|^0$","type":"string"}`,
			"dir":   `{"description":"(a path)","type":"string"}`,
			"args":  `{"description":"Positional arguments, each one argument; never read as flags. Usage: [WORD...]","items":{"type":"string"},"type":"array"}`,
		},
		LeftOut: "hidden and timestamp flags are left out",
		OwnFlags: func(t *testing.T) *mcp.Client {
			newApp := func() *cli.App {
				return &cli.App{Name: "demo", Commands: []*cli.Command{{
					Name: "run", SkipFlagParsing: true, Flags: []cli.Flag{&cli.BoolFlag{Name: "quiet"}},
					Action: func(c *cli.Context) error {
						fmt.Fprintf(c.App.Writer, "%q", c.Args().Slice())
						return nil
					},
				}}}
			}
			return connectApp(t, newApp, Options{Tools: []Tool{{Command: "run", ReadOnly: true}}})
		},
		Subcommands: func(t *testing.T) *mcp.Client {
			newApp := func() *cli.App {
				return &cli.App{Name: "demo", Action: func(c *cli.Context) error {
					fmt.Fprintf(c.App.Writer, "demo %q", c.Args().Slice())
					return nil
				}, Commands: []*cli.Command{{
					Name:   "db",
					Flags:  []cli.Flag{&cli.BoolFlag{Name: "all"}},
					Action: func(c *cli.Context) error { fmt.Fprintf(c.App.Writer, "db %q", c.Args().Slice()); return nil },
					Subcommands: []*cli.Command{{Name: "drop", Aliases: []string{"rm"}, Action: func(c *cli.Context) error {
						fmt.Fprint(c.App.Writer, "DROPPED")
						return nil
					}}},
				}}}
			}
			return connectApp(t, newApp, Options{Tools: []Tool{{Command: "db", ReadOnly: true}, {Command: "", ReadOnly: true}, {Command: "db drop"}}})
		},
	})
}

func TestNoFlagStateLeaksAndHostileArgs(t *testing.T) {
	c := connect(t, testOptions)
	res := call(t, c, "demo_show", map[string]any{"name": "bob", "loud": true, "tag": []string{"a,b", "c"},
		"args": []string{"--name=injected", "-x", "a; rm -rf /", "$(id)", "two\nlines"}})
	got := res.StructuredContent.(map[string]any)
	if got["name"] != "bob" || got["loud"] != true || fmt.Sprint(got["tag"]) != "[a,b c]" {
		t.Errorf("first call parsed %v", got)
	}
	if fmt.Sprintf("%q", got["args"]) != `["--name=injected" "-x" "a; rm -rf /" "$(id)" "two\nlines"]` {
		t.Errorf("args arrived as %q", got["args"])
	}
	res = call(t, c, "demo_show", map[string]any{"count": 3.0, "num": []any{2.0, json.Number("1e1")}})
	got = res.StructuredContent.(map[string]any)
	if got["count"] != 3.0 || fmt.Sprint(got["num"]) != "[2 10]" {
		t.Errorf("integral numbers: %v", got)
	}
	res = call(t, c, "demo_show", map[string]any{})
	got = res.StructuredContent.(map[string]any)
	if got["name"] != "anon" || got["loud"] != false || got["count"] != 1.0 || !empty(got["tag"]) || !empty(got["args"]) {
		t.Errorf("second call leaked state from the first: %v", got)
	}
}

func TestWriteToolsNeedAllowWrite(t *testing.T) {
	opts := testOptions
	opts.AllowWrite = true
	c := connect(t, opts)
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if tl.Name == "demo_wipe" {
			if *tl.Annotations.ReadOnlyHint {
				t.Error("wipe announced read-only")
			}
			return
		}
	}
	t.Errorf("demo_wipe not served with AllowWrite: %v", tools)
}

func TestUnknownCommand(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"}, nil)
	err := AddTools(srv, newTestApp, Options{Tools: []Tool{{Command: "db nope", ReadOnly: true}}})
	if err == nil || !strings.Contains(err.Error(), `no command "nope"`) || !strings.Contains(err.Error(), "show-status") {
		t.Errorf("err = %v", err)
	}
}

func empty(v any) bool {
	l, _ := v.([]any)
	return len(l) == 0
}

// sharedName is a package-level Destination, as some apps have: only
// Options.Serial makes such an app safe to call concurrently.
var sharedName string

func newGlobalApp() *cli.App {
	return &cli.App{Name: "g", Commands: []*cli.Command{{
		Name:  "echo",
		Flags: []cli.Flag{&cli.StringFlag{Name: "name", Value: "none", Destination: &sharedName}},
		Action: func(c *cli.Context) error {
			time.Sleep(time.Millisecond)
			fmt.Fprint(c.App.Writer, sharedName)
			return nil
		},
	}}}
}

func TestSerialProtectsSharedDestinations(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "g", Version: "1"}, &mcp.ServerOptions{MaxConcurrentCalls: 32})
	if err := AddTools(srv, newGlobalApp, Options{Serial: true, Tools: []Tool{{Command: "echo", ReadOnly: true, NoArgs: true}}}); err != nil {
		t.Fatal(err)
	}
	c := srv.Connect(context.Background(), nil)
	defer c.Close()
	if _, err := c.Initialize(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := map[string]any{}
			want := "none"
			if i%2 == 0 {
				want = fmt.Sprint("n", i)
				args["name"] = want
			}
			res := call(t, c, "echo", args)
			if res.Content[0].Text != want {
				t.Errorf("call %d: got %q, want %q", i, res.Content[0].Text, want)
			}
		}()
	}
	wg.Wait()
}

func TestRootActionAndExclude(t *testing.T) {
	c := connect(t, Options{Tools: []Tool{{Command: "", ReadOnly: true}, {Command: "show", ReadOnly: true, Exclude: []string{"dir", "ratio"}, Args: "words"}}})
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tools[0].Name != "demo" || !strings.Contains(string(tools[0].InputSchema), `"depth"`) {
		t.Errorf("root tool: %s %s", tools[0].Name, tools[0].InputSchema)
	}
	schema := string(tools[1].InputSchema)
	if strings.Contains(schema, `"dir"`) || strings.Contains(schema, `"ratio"`) || !strings.Contains(schema, `"words"`) || strings.Contains(schema, `"args"`) {
		t.Errorf("show schema with dir and ratio excluded, args named words: %s", schema)
	}
	res := call(t, c, "demo", map[string]any{"depth": 5, "args": []string{"-x", "y"}})
	if got := res.Content[0].Text; got != `root depth=5 args=["-x" "y"]` {
		t.Errorf("root action: %q", got)
	}
	res = call(t, c, "show", map[string]any{"words": []string{"w"}})
	if got := fmt.Sprint(res.Content[0].Text); !strings.Contains(got, `"args":["w"]`) {
		t.Errorf("show with words: %s", got)
	}
	res = call(t, c, "show", map[string]any{"dir": "/"})
	if !res.IsError || !strings.Contains(res.Content[0].Text, `unknown property "dir"`) {
		t.Errorf("excluded flag accepted: %+v", res)
	}
}

func TestCommands(t *testing.T) {
	cmds := Commands(newTestApp, testOptions)
	if len(cmds) != 1 || cmds[0].Name != "mcp" {
		t.Errorf("Commands: %v, want just mcp", cmds)
	}
}

// TestDeps checks that an app that serves its commands, without the
// commands that register it, does not link the config editors: package
// cliadapter does not depend on installer or its parsers.
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, bad := range []string{"/installer", "/registercmd", "toml", "yaml", "hujson"} {
			if strings.Contains(pkg, bad) {
				t.Errorf("cliadapter depends on %s", pkg)
			}
		}
	}
}

// TestResultPolicy pins the policy of package toolresult, which the
// manifest runner shares: a JSON array is wrapped as {"result": v}; a
// command marked JSON may print text, which stays text, truncation note
// and all.
func TestResultPolicy(t *testing.T) {
	newApp := func() *cli.App {
		return &cli.App{Name: "p", Flags: []cli.Flag{&cli.StringFlag{Name: "out"}}, Action: func(c *cli.Context) error {
			fmt.Fprint(c.App.Writer, c.String("out"))
			return nil
		}}
	}
	c := connectApp(t, newApp, Options{Tools: []Tool{{ReadOnly: true, JSON: true, NoArgs: true}}, MaxOutputBytes: 64})
	res := call(t, c, "p", map[string]any{"out": `[1,"two",100000000000000000000]`})
	got, _ := json.Marshal(res.StructuredContent)
	if res.IsError || string(got) != `{"result":[1,"two",100000000000000000000]}` || res.Content[0].Text != string(got) {
		t.Errorf("an array: isError %v, structuredContent %s, text %q", res.IsError, got, res.Content[0].Text)
	}
	for out, want := range map[string]string{
		"plain words": "plain words",
		"42":          "42",
		`["` + strings.Repeat("x", 100) + `"]`: `["` + strings.Repeat("x", 62) +
			"\n[stdout truncated: 64 of 104 bytes shown; raise cliadapter.Options.MaxOutputBytes to keep more]",
	} {
		res = call(t, c, "p", map[string]any{"out": out})
		if res.IsError || res.StructuredContent != nil || res.Content[0].Text != want {
			t.Errorf("%q: isError %v, structuredContent %v, text %q; want the text %q", out, res.IsError, res.StructuredContent, res.Content[0].Text, want)
		}
	}
}

// TestFlagFromEnvKeepsItsVariable checks that a flag with an environment
// variable announces no default, so that the server does not fill one in
// and the variable still counts when a call leaves the flag out.
func TestFlagFromEnvKeepsItsVariable(t *testing.T) {
	t.Setenv("DEMO_ENDPOINT", "https://from.env")
	newApp := func() *cli.App {
		return &cli.App{
			Name: "demo",
			Commands: []*cli.Command{{
				Name: "where",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "endpoint", Value: "https://default", EnvVars: []string{"DEMO_ENDPOINT"}},
					&cli.IntFlag{Name: "retries", Value: 3},
				},
				Action: func(c *cli.Context) error {
					fmt.Fprintf(c.App.Writer, "%s %d", c.String("endpoint"), c.Int("retries"))
					return nil
				},
			}},
		}
	}
	c := connectApp(t, newApp, Options{Tools: []Tool{{Command: "where", ReadOnly: true}}})
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(tools[0].InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	if d, ok := s.Properties["endpoint"]["default"]; ok {
		t.Errorf("endpoint, read from $DEMO_ENDPOINT, announces the default %v", d)
	}
	if s.Properties["retries"]["default"] != 3.0 {
		t.Errorf("retries: %v, want the default 3", s.Properties["retries"])
	}
	res := call(t, c, tools[0].Name, map[string]any{})
	if got := res.Content[0].Text; got != "https://from.env 3" {
		t.Errorf("a call without flags printed %q, want the variable's endpoint and the default retries", got)
	}
}

// TestMoreSliceFlags: urfave/cli v2's slices of unsigned integers and of
// floats are array inputs, as in the other two adapters.
func TestMoreSliceFlags(t *testing.T) {
	newApp := func() *cli.App {
		return &cli.App{Name: "demo", Commands: []*cli.Command{{
			Name: "sum",
			Flags: []cli.Flag{
				&cli.UintSliceFlag{Name: "u", Value: cli.NewUintSlice(1)},
				&cli.Uint64SliceFlag{Name: "u64"},
				&cli.Float64SliceFlag{Name: "f"},
			},
			Action: func(c *cli.Context) error {
				fmt.Fprint(c.App.Writer, c.UintSlice("u"), c.Uint64Slice("u64"), c.Float64Slice("f"))
				return nil
			},
		}}}
	}
	c := connectApp(t, newApp, Options{Tools: []Tool{{Command: "sum", ReadOnly: true, NoArgs: true}}})
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{"f":{"items":{"type":"number"},"type":"array"},"u":{"default":[1],"items":{"minimum":0,"type":"integer"},"type":"array"},"u64":{"items":{"minimum":0,"type":"integer"},"type":"array"}},"type":"object"}`
	if got := string(tools[0].InputSchema); got != want {
		t.Errorf("schema\n %s\nwant\n %s", got, want)
	}
	res := call(t, c, "sum", map[string]any{"u": []int{2, 3}, "u64": []int{4}, "f": []float64{0.5, 1e3}})
	if got := res.Content[0].Text; res.IsError || got != "[2 3] [4] [0.5 1000]" {
		t.Errorf("got %q", got)
	}
}
