// Package clitool is the policy the in-process adapters share, written
// once for urfave/cli v2 (package cliadapter), Cobra (cobraadapter) and
// urfave/cli v3 (cliv3adapter): which commands become tools, a command's
// flags as a tool's input schema ([Flag]), a call's arguments as the
// command line the app runs, and a run's outcome as a result (through
// package toolresult, which the manifest runner shares).
//
// An adapter reads its framework's command tree into [Command] values and
// runs one call with a fresh app; everything between is here, so a tool
// reads and behaves the same whichever framework the app is built on.
package clitool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/mcpship/mcpship/internal/confirm"
	"github.com/mcpship/mcpship/internal/resultcache"
	"github.com/mcpship/mcpship/internal/spill"
	"github.com/mcpship/mcpship/internal/toolresult"
	"github.com/mcpship/mcpship/mcp"
)

// Options are the adapters' Options but for their Tools and
// RedirectStdout, which the adapters read themselves.
type Options struct {
	Prefix         string
	AllowWrite     bool
	Serial         bool
	ExitCode       func(error) int
	MaxOutputBytes int
	// Outputs keeps the whole output of results cut to their budget, as
	// resources of the server; nil keeps nothing, and the note of a cut
	// result says so.
	Outputs *spill.Store
}

// Tool is the adapters' Tool: each adapter declares a struct of the same
// fields, in the same order, and converts it.
type Tool struct {
	Command            string
	Name               string
	Title, Description string
	Args               string
	NoArgs             bool
	Exclude            []string
	Enum               map[string][]string
	OKExitCodes        []int
	JSON               bool
	ReadOnly           bool
	Cache              []string
	OutputBudget       int
	Confirm            string
}

// A Command is one command of an app, as its adapter read it.
type Command struct {
	Path        []string // the canonical names below the root, as argv spells them
	Usage       string   // one line: the tool's title
	Description string   // more: the tool's description follows Usage
	ArgsUsage   string   // the positional arguments, for the args input
	Flags       []Flag
	// RawArgs marks a command that parses no flags, but reads its
	// arguments itself (Cobra's DisableFlagParsing, urfave/cli's
	// SkipFlagParsing): its tool has no flag inputs, and its positional
	// arguments follow its path as they are, with no "--" before them.
	RawArgs bool
}

// An App is what an adapter gives [AddTools]: the app's name, how to find
// its commands, and how to run one call.
type App struct {
	Pkg  string // the adapter's package name, for messages: "cobraadapter"
	Name string // the program's name: argv[0] of every run
	// Find returns the command at path (names or aliases), or an error
	// made with [NoCommand].
	Find func(path []string) (*Command, error)
	// Run runs argv (Name first, then path, the canonical names of the
	// command the call is for) in a fresh app, with stdin empty and its
	// output going to stdout and stderr, and returns what the app
	// returned. The command must get all the positional arguments, even
	// one that names one of its subcommands: that subcommand is not the
	// tool, and may not be served.
	Run func(ctx context.Context, path, argv []string, stdout, stderr io.Writer) error
}

// NoCommand is the error of App.Find for a path that names no command:
// name is the first name not found, have the commands there.
func NoCommand(app App, spec string, name string, have []string) error {
	list := "no commands"
	if len(have) > 0 {
		list = strings.Join(have, ", ")
	}
	return fmt.Errorf("%s: app %s has no command %q (Tool.Command %q); it has: %s", app.Pkg, app.Name, name, spec, list)
}

// AddTools registers tools, the commands of app that opts chooses, as
// tools of srv. Tools not marked ReadOnly are left out unless
// opts.AllowWrite.
func AddTools(srv *mcp.Server, app App, tools []Tool, opts Options) error {
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = 1 << 20
	}
	r := &runner{app: app, opts: opts}
	for _, spec := range tools {
		if !spec.ReadOnly && !opts.AllowWrite {
			continue
		}
		cmd, err := app.Find(strings.Fields(spec.Command))
		if err != nil {
			return err
		}
		t, err := newTool(r, spec, cmd)
		if err != nil {
			return err
		}
		if err := srv.AddTool(t.mcpTool, t.handle); err != nil {
			return fmt.Errorf("%s: %w", app.Pkg, err)
		}
	}
	return nil
}

// runner runs the calls of one app.
type runner struct {
	app    App
	opts   Options
	serial sync.Mutex
	cache  *resultcache.Cache // made for the first tool with a Cache
}

// exitCode maps what a run returned to an exit code: opts.ExitCode, else
// the code of an error with an ExitCode method (urfave/cli's ExitCoder,
// in either version), else 1.
func (r *runner) exitCode(err error) int {
	if err == nil {
		return 0
	}
	if r.opts.ExitCode != nil {
		return r.opts.ExitCode(err)
	}
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}

// tool is one served command.
type tool struct {
	r     *runner
	spec  Tool
	path  []string
	flags map[string]Flag
	// defaults are the announced defaults, as flagValues gives them.
	defaults map[string][]string
	args     string // the positional input, or ""
	raw      bool   // Command.RawArgs
	mcpTool  mcp.Tool
	cache    []resultcache.Template // Tool.Cache, parsed
	confirm  *confirm.Prompt        // Tool.Confirm, parsed; nil without one
}

func newTool(r *runner, spec Tool, cmd *Command) (*tool, error) {
	pkg := r.app.Pkg
	t := &tool{r: r, spec: spec, path: cmd.Path, flags: map[string]Flag{}, defaults: map[string][]string{}, raw: cmd.RawArgs}
	name := r.opts.Prefix + toolName(r, spec, cmd)
	if !mcp.ValidToolName(name) {
		return nil, fmt.Errorf("%s: %q, the tool name of %q, is not 1 to 64 letters, digits, '_' or '-'; set its Tool.Name, or another Options.Prefix", pkg, name, spec.Command)
	}
	props := map[string]any{}
	required, err := t.flagProperties(cmd, props)
	if err != nil {
		return nil, err
	}
	if !spec.NoArgs {
		if err := t.argsProperty(cmd, props); err != nil {
			return nil, err
		}
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		schema["required"] = required
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("%s: schema of %q: %v", pkg, spec.Command, err)
	}
	title, description := spec.Title, spec.Description
	if title == "" {
		title = cmd.Usage
	}
	if description == "" {
		description = strings.TrimSpace(cmd.Usage + "\n\n" + cmd.Description)
	}
	if b := spec.OutputBudget; b != 0 && (b < toolresult.MinChars || b > toolresult.MaxChars) {
		return nil, fmt.Errorf("%s: Tool.OutputBudget of %q is %d characters: use %d to %d, or 0 for the default of %d",
			pkg, spec.Command, b, toolresult.MinChars, toolresult.MaxChars, toolresult.DefaultChars)
	}
	if err := t.compileCache(); err != nil {
		return nil, err
	}
	if err := t.compileConfirm(); err != nil {
		return nil, err
	}
	if t.cache != nil && r.cache == nil {
		r.cache = resultcache.New(resultcache.Options{})
	}
	t.mcpTool = mcp.Tool{
		Name:        name,
		Title:       title,
		Description: description,
		InputSchema: raw,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(spec.ReadOnly)},
		Meta:        toolresult.ToolMeta(spec.OutputBudget),
	}
	return t, nil
}

// toolName is spec's name, or one made of the command's path (the app's
// name for the root) with what a tool name may not hold, such as the ':'
// of "db:migrate", made '_'.
func toolName(r *runner, spec Tool, cmd *Command) string {
	if spec.Name != "" {
		return spec.Name
	}
	name := strings.Join(cmd.Path, " ")
	if name == "" {
		name = r.app.Name
	}
	return strings.Map(func(c rune) rune {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			return c
		}
		return '_'
	}, name)
}

// flagProperties adds the schema of each served flag of cmd to props and
// returns the names of the required ones.
func (t *tool) flagProperties(cmd *Command, props map[string]any) ([]string, error) {
	pkg, spec := t.r.app.Pkg, t.spec
	var required []string
	for _, f := range cmd.Flags {
		if cmd.RawArgs || f.Name == "help" || slices.Contains(spec.Exclude, f.Name) {
			continue
		}
		s := f.schema()
		if s == nil {
			continue
		}
		if vals, ok := spec.Enum[f.Name]; ok {
			if err := setEnum(s, vals); err != nil {
				return nil, fmt.Errorf("%s: Tool.Enum[%q] of %q: %v", pkg, f.Name, spec.Command, err)
			}
		}
		t.flags[f.Name] = f
		props[f.Name] = s
		if d, ok := s["default"]; ok {
			raw, err := json.Marshal(d)
			if err == nil {
				t.defaults[f.Name], err = flagValues(raw)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: default of flag %q of %q: %v", pkg, f.Name, spec.Command, err)
			}
		}
		if f.Required {
			required = append(required, f.Name)
		}
	}
	for name := range spec.Enum {
		if _, ok := t.flags[name]; !ok {
			return nil, fmt.Errorf("%s: Tool.Enum names %q, which is not a served flag of %q", pkg, name, spec.Command)
		}
	}
	return required, nil
}

// argsProperty adds the positional arguments' input to props.
func (t *tool) argsProperty(cmd *Command, props map[string]any) error {
	t.args = t.spec.Args
	if t.args == "" {
		t.args = "args"
	}
	if _, clash := props[t.args]; clash {
		return fmt.Errorf("%s: command %q has a flag named %q, the name of its positional input; set Tool.Args to another name", t.r.app.Pkg, t.spec.Command, t.args)
	}
	d := "Positional arguments, each one argument; never read as flags."
	if cmd.RawArgs {
		d = "Arguments, each one argument, given to the command as they are; it reads its own flags."
	}
	if u := strings.TrimSpace(cmd.ArgsUsage); u != "" {
		d += " Usage: " + u
	}
	props[t.args] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": d}
	return nil
}
