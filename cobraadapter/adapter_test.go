package cobraadapter

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

	"github.com/mcpship/mcpship/internal/clitool/conformance"
	"github.com/mcpship/mcpship/mcp"
	"github.com/spf13/cobra"
)

// exitError is an error with an exit code, as an app might return.
type exitError struct {
	msg  string
	code int
}

func (e exitError) Error() string { return e.msg }
func (e exitError) ExitCode() int { return e.code }

// newTestRoot is a small app whose "show" command prints what it parsed.
func newTestRoot() *cobra.Command {
	root := &cobra.Command{Use: "demo", Version: "1.2.3", Args: cobra.ArbitraryArgs, RunE: func(cmd *cobra.Command, args []string) error {
		depth, _ := cmd.Flags().GetInt("depth")
		fmt.Fprintf(cmd.OutOrStdout(), "root depth=%d args=%q", depth, args)
		return nil
	}}
	root.Flags().Int("depth", 2, "how deep")
	root.PersistentFlags().String("config", "", "config file")

	show := &cobra.Command{Use: "show [WORD...]", Short: "print the parsed flags and arguments", Long: "Prints them as JSON.",
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			out := map[string]any{"args": args}
			for _, name := range []string{"name", "loud", "count", "small", "level", "byte", "ratio", "ratio32", "wait", "tag", "raw", "num", "verbose", "bools", "config", "addr"} {
				fl := f.Lookup(name)
				if fl.Value.Type() == "stringSlice" || fl.Value.Type() == "stringArray" {
					out[name], _ = f.GetStringArray(name)
					if fl.Value.Type() == "stringSlice" {
						out[name], _ = f.GetStringSlice(name)
					}
					continue
				}
				out[name] = fl.Value.String()
			}
			b, _ := json.Marshal(out)
			fmt.Fprintln(cmd.OutOrStdout(), string(b))
			cmd.PrintErrln("note on stderr")
			return nil
		}}
	f := show.Flags()
	f.String("name", "anon", "who")
	f.BoolP("loud", "l", false, "")
	f.Int("count", 1, "")
	f.Int8("small", 0, "")
	f.Uint("level", 0, "")
	f.Uint8("byte", 0, "")
	f.Float64("ratio", 0, "")
	f.Float32("ratio32", 0.5, "")
	f.Duration("wait", 1e9, "")
	f.StringSlice("tag", nil, "")
	f.StringArray("raw", nil, "")
	f.IntSlice("num", nil, "")
	f.CountP("verbose", "v", "")
	f.BoolSlice("bools", nil, "")
	f.IP("addr", nil, "an address")
	f.String("format", "text", "text or json")
	f.String("file", "", "")
	f.String("secret", "", "")
	f.String("old", "", "")
	_ = show.MarkFlagFilename("file")
	_ = f.MarkHidden("secret")
	_ = f.MarkDeprecated("old", "use --name")

	fail := &cobra.Command{Use: "fail", RunE: func(cmd *cobra.Command, _ []string) error {
		fmt.Fprintln(cmd.OutOrStdout(), "partial output")
		code, _ := cmd.Flags().GetInt("code")
		if code == 1 {
			return errors.New("plain failure")
		}
		return exitError{"it failed", code}
	}}
	fail.Flags().Int("code", 0, "")
	_ = fail.MarkFlagRequired("code")

	db := &cobra.Command{Use: "db"}
	db.AddCommand(&cobra.Command{Use: "show-status", Aliases: []string{"st"}, Run: func(cmd *cobra.Command, _ []string) { cmd.Print("up") }})
	root.AddCommand(show, fail, db, &cobra.Command{Use: "wipe", Short: "delete everything", Run: func(*cobra.Command, []string) {}})
	return root
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
func connect(t *testing.T, newRoot func() *cobra.Command, opts Options) *mcp.Client {
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
		"name": "bob", "loud": true, "verbose": 3, "small": -128, "ratio32": 2.0, "wait": "1m30s", "config": "c.yml",
		"tag": []string{`a,b`, `say "hi"`, ""}, "raw": []string{"x,y", `"q"`}, "num": []any{2.0, json.Number("1e1")},
		"bools": []bool{true, false}, "addr": "127.0.0.1",
		"args": []string{"--name=injected", "-x", "a; rm -rf /", "$(id)", "two\nlines"},
	})
	if res.IsError {
		t.Fatalf("call failed: %s", res.Content[0].Text)
	}
	got, _ := json.Marshal(res.StructuredContent)
	want := `{"addr":"127.0.0.1","args":["--name=injected","-x","a; rm -rf /","$(id)","two\nlines"],"bools":"[true,false]",` +
		`"byte":"0","config":"c.yml","count":"1","level":"0","loud":"true","name":"bob","num":"[2,10]","ratio":"0","ratio32":"2",` +
		`"raw":["x,y","\"q\""],"small":"-128","tag":["a,b","say \"hi\"",""],"verbose":"3","wait":"1m30s"}`
	if string(got) != want {
		t.Errorf("parsed\n %s\nwant\n %s", got, want)
	}
	res = call(t, c, "demo_show", map[string]any{})
	got, _ = json.Marshal(res.StructuredContent)
	want = `{"addr":"\u003cnil\u003e","args":[],"bools":"[]","byte":"0","config":"","count":"1","level":"0","loud":"false","name":"anon",` +
		`"num":"[]","ratio":"0","ratio32":"0.5","raw":[],"small":"0","tag":[],"verbose":"0","wait":"1s"}`
	if string(got) != want {
		t.Errorf("a second call, with no inputs, parsed\n %s\nwant the defaults\n %s", got, want)
	}
	for _, bad := range []map[string]any{{"small": 128}, {"verbose": -1}, {"format": "xml"}, {"wait": "soon"}} {
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
		{Tools: []Tool{{Command: "db nope", ReadOnly: true}}}:                                          `cobraadapter: app demo has no command "nope" (Tool.Command "db nope"); it has: show-status`,
		{Tools: []Tool{{Command: "show", ReadOnly: true, Enum: map[string][]string{"count": {"1"}}}}}:  `only a string flag`,
		{Tools: []Tool{{Command: "show", ReadOnly: true, Enum: map[string][]string{"format": {"a"}}}}}: `the default "text" is not one of`,
		{Tools: []Tool{{Command: "show", ReadOnly: true, Enum: map[string][]string{"nope": {"a"}}}}}:   `Tool.Enum names "nope"`,
		{Tools: []Tool{{Command: "show", ReadOnly: true, Args: "name"}}}:                               `has a flag named "name"`,
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
	var newRoot func() *cobra.Command
	newRoot = func() *cobra.Command {
		root := newTestRoot()
		root.AddCommand(Commands(newRoot, testOptions)...)
		return root
	}
	root := newRoot()
	var out bytes.Buffer
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(io.Discard)
	root.SetIn(strings.NewReader(""))
	root.SilenceErrors, root.SilenceUsage = true, true
	err = root.Execute()
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
			"raw":     `{"items":{"type":"string"},"type":"array"}`,
			"num":     `{"items":{"type":"integer"},"type":"array"}`,
			"verbose": `{"minimum":0,"type":"integer"}`,
			"bools":   `{"items":{"type":"boolean"},"type":"array"}`,
			"addr":    `{"description":"an address","type":"string"}`,
			"format":  `{"default":"text","description":"text or json","enum":["text","json"],"type":"string"}`,
			"file":    `{"description":"(a path)","type":"string"}`,
			"config":  `{"description":"config file","type":"string"}`,
			"args":    `{"description":"Positional arguments, each one argument; never read as flags. Usage: [WORD...]","items":{"type":"string"},"type":"array"}`},
		LeftOut: "hidden, deprecated and help flags are left out",
		OwnFlags: func(t *testing.T) *mcp.Client {
			newRoot := func() *cobra.Command {
				root := &cobra.Command{Use: "demo"}
				root.PersistentFlags().String("config", "", "")
				run := &cobra.Command{Use: "run -- PROGRAM [ARG...]", DisableFlagParsing: true, Run: func(cmd *cobra.Command, args []string) { cmd.Printf("%q", args) }}
				run.Flags().Bool("quiet", false, "")
				root.AddCommand(run)
				return root
			}
			return connect(t, newRoot, Options{Tools: []Tool{{Command: "run", ReadOnly: true}}})
		},
		OwnFlagsUsage: " Usage: -- PROGRAM [ARG...]",
		Main:          run,
		HelpArgs:      [][]string{{"init", "--help"}, {"help", "init"}},
		UnknownFlag:   "unknown flag: --bogus",
	})
	var names []string
	for _, c := range Commands(newTestRoot, testOptions) {
		names = append(names, c.Name())
	}
	if !reflect.DeepEqual(names, []string{"mcp", "init", "remove", "doctor"}) {
		t.Errorf("Commands: %v", names)
	}
}

// TestDefaultsCountAsLeftOut: the server fills in the default of an input
// the call leaves out; the flag must still not count as given, or a
// command that asks Changed, and a group of mutually exclusive flags,
// would see it set on every call.
func TestDefaultsCountAsLeftOut(t *testing.T) {
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "demo"}
		render := &cobra.Command{Use: "render", RunE: func(cmd *cobra.Command, _ []string) error {
			format, _ := cmd.Flags().GetString("format")
			asJSON, _ := cmd.Flags().GetBool("json")
			fmt.Fprintf(cmd.OutOrStdout(), "format=%s changed=%v json=%v", format, cmd.Flags().Changed("format"), asJSON)
			return nil
		}}
		render.Flags().String("format", "text", "")
		render.Flags().Bool("json", false, "")
		render.MarkFlagsMutuallyExclusive("format", "json")
		root.AddCommand(render)
		return root
	}
	c := connect(t, newRoot, Options{Tools: []Tool{{Command: "render", ReadOnly: true, NoArgs: true}}})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "format=text changed=false json=false"},
		{map[string]any{"json": true}, "format=text changed=false json=true"},
		{map[string]any{"format": "yaml"}, "format=yaml changed=true json=false"},
	} {
		res := call(t, c, "render", tc.args)
		if got := res.Content[0].Text; res.IsError || got != tc.want {
			t.Errorf("%v: isError %v, %q; want %q", tc.args, res.IsError, got, tc.want)
		}
	}
}

// listValue is a pflag.SliceValue of the app's own, which takes each
// value as it is.
type listValue []string

func (l *listValue) String() string           { return "[" + strings.Join(*l, ",") + "]" }
func (l *listValue) Set(s string) error       { *l = append(*l, s); return nil }
func (l *listValue) Type() string             { return "list" }
func (l *listValue) Append(s string) error    { *l = append(*l, s); return nil }
func (l *listValue) Replace(s []string) error { *l = s; return nil }
func (l *listValue) GetSlice() (out []string) { return *l }

// TestOtherValueTypes: a Value of the app's own that holds strings gets
// each item as it is, and a map flag (stringToString), served as its
// text, announces no default it would refuse.
func TestOtherValueTypes(t *testing.T) {
	newRoot := func() *cobra.Command {
		var items listValue
		root := &cobra.Command{Use: "demo"}
		tag := &cobra.Command{Use: "tag", RunE: func(cmd *cobra.Command, _ []string) error {
			labels, _ := cmd.Flags().GetStringToString("label")
			b, _ := json.Marshal(map[string]any{"items": items, "labels": labels})
			fmt.Fprint(cmd.OutOrStdout(), string(b))
			return nil
		}}
		tag.Flags().Var(&items, "item", "")
		tag.Flags().StringToString("label", nil, "")
		root.AddCommand(tag)
		return root
	}
	c := connect(t, newRoot, Options{Tools: []Tool{{Command: "tag", ReadOnly: true, NoArgs: true, JSON: true}}})
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{"item":{"items":{"type":"string"},"type":"array"},"label":{"type":"string"}},"type":"object"}`
	if got := string(tools[0].InputSchema); got != want {
		t.Errorf("schema\n %s\nwant\n %s", got, want)
	}
	res := call(t, c, "tag", map[string]any{"item": []string{"a,b", `"c"`}, "label": "k=v,x=y"})
	got, _ := json.Marshal(res.StructuredContent)
	if want := `{"items":["a,b","\"c\""],"labels":{"k":"v","x":"y"}}`; res.IsError || string(got) != want {
		t.Errorf("isError %v, %s; want %s", res.IsError, got, want)
	}
}

// TestToolNames: a command's name may hold characters a tool name may
// not; they become '_'. A name that is still not valid (too long) is
// refused when the tools are added, saying what to set.
func TestToolNames(t *testing.T) {
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "demo"}
		db := &cobra.Command{Use: "db"}
		db.AddCommand(&cobra.Command{Use: "migrate:status", Aliases: []string{"ms"}, Run: func(cmd *cobra.Command, _ []string) { cmd.Print("ok") }})
		root.AddCommand(db)
		return root
	}
	c := connect(t, newRoot, Options{Prefix: "x_", Tools: []Tool{{Command: "db ms", ReadOnly: true, Name: "st"}, {Command: "db migrate:status", ReadOnly: true}}})
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "x_st" || tools[1].Name != "x_db_migrate_status" {
		t.Errorf("tools %+v", tools)
	}
	err = AddTools(mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"}, nil), newRoot, Options{Prefix: strings.Repeat("p", 60), Tools: []Tool{{Command: "db ms", ReadOnly: true}}})
	if want := `cobraadapter: "` + strings.Repeat("p", 60) + `db_migrate_status", the tool name of "db ms", is not 1 to 64 letters, digits, '_' or '-'; set its Tool.Name, or another Options.Prefix`; err == nil || err.Error() != want {
		t.Errorf("a long name: %v\nwant %s", err, want)
	}
}

// TestArgumentNamingASubcommand: a positional argument that names a
// subcommand of the tool's command is an argument, never that subcommand;
// and of two commands of one name (an app's own "init" and the one
// Commands adds after it), the tool is the first, the one Cobra runs.
func TestArgumentNamingASubcommand(t *testing.T) {
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "demo"}
		db := &cobra.Command{Use: "db", Run: func(cmd *cobra.Command, args []string) { cmd.Printf("db %q", args) }}
		db.AddCommand(&cobra.Command{Use: "drop", Run: func(cmd *cobra.Command, _ []string) { cmd.Print("DROPPED") }})
		root.AddCommand(db)
		root.AddCommand(&cobra.Command{Use: "init", Run: func(cmd *cobra.Command, _ []string) { cmd.Print("the app's own init") }})
		root.AddCommand(&cobra.Command{Use: "init", Short: "another", Run: func(cmd *cobra.Command, _ []string) { cmd.Print("another init") }})
		return root
	}
	c := connect(t, newRoot, Options{Tools: []Tool{{Command: "db", ReadOnly: true}, {Command: "init", ReadOnly: true, NoArgs: true}}})
	if res := call(t, c, "db", map[string]any{"args": []string{"drop"}}); res.IsError || res.Content[0].Text != `db ["drop"]` {
		t.Errorf("db drop: %+v", res)
	}
	if res := call(t, c, "init", nil); res.IsError || res.Content[0].Text != "the app's own init" {
		t.Errorf("init: %+v", res)
	}
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 2 || tools[1].Description != "" {
		t.Fatalf("init's tool describes another command: %v", err)
	}
}

// TestCommandsWithTheirOwnOutput: a subcommand that set its own output
// (SetOut(os.Stdout), so that cmd.Print goes to standard output) still
// writes into the call's result, never into the protocol stream.
func TestCommandsWithTheirOwnOutput(t *testing.T) {
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "demo"}
		hello := &cobra.Command{Use: "hello", Run: func(cmd *cobra.Command, _ []string) {
			cmd.Println("hello")
			cmd.PrintErrln("a note")
		}}
		hello.SetOut(os.Stdout)
		hello.SetErr(os.Stderr)
		root.AddCommand(hello)
		return root
	}
	c := connect(t, newRoot, Options{Tools: []Tool{{Command: "hello", ReadOnly: true, NoArgs: true}}})
	res := call(t, c, "hello", nil)
	if got := res.Content[0].Text; res.IsError || got != "hello\n" {
		t.Errorf("isError %v, %q", res.IsError, got)
	}
}

// TestPanickingCommand: a command that panics gives an isError result
// with what it printed, the panic and its stack, as a program that panics
// would; the server goes on serving.
func TestPanickingCommand(t *testing.T) {
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "demo"}
		root.AddCommand(&cobra.Command{Use: "first", Run: func(cmd *cobra.Command, args []string) {
			cmd.Println("looking")
			cmd.Println(args[0])
		}})
		return root
	}
	c := connect(t, newRoot, Options{Tools: []Tool{{Command: "first", ReadOnly: true}}, Serial: true})
	for range 2 { // Serial's lock is released
		res := call(t, c, "first", nil)
		got := res.Content[0].Text
		if !res.IsError || !strings.HasPrefix(got, "demo first panicked: runtime error: index out of range [0] with length 0\nstderr:\npanic: runtime error") ||
			!strings.Contains(got, "runtime/debug.Stack") || !strings.HasSuffix(got, "\nstdout:\nlooking") {
			t.Errorf("isError %v, %q", res.IsError, got)
		}
	}
}
