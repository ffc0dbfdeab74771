package cliadapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/mcp"
)

// AddTools registers the commands opts chooses as tools of srv. newApp is
// called once here to read the commands and flags, then once per call.
func AddTools(srv *mcp.Server, newApp func() *cli.App, opts Options) error {
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = 1 << 20
	}
	a := &adapter{newApp: newApp, opts: opts}
	app := newApp()
	if app.Compiled.IsZero() {
		// What App.Setup would find on each call, with a stat of the
		// executable each time; read it once.
		a.compiled = time.Now()
		if fi, err := os.Stat(os.Args[0]); err == nil {
			a.compiled = fi.ModTime()
		}
	}
	for _, spec := range opts.Tools {
		if spec.Write && !opts.AllowWrite {
			continue
		}
		t, err := a.tool(app, spec)
		if err != nil {
			return err
		}
		if err := srv.AddTool(t.mcpTool, t.handle); err != nil {
			return fmt.Errorf("cliadapter: %w", err)
		}
	}
	return nil
}

// adapter runs calls of one app.
type adapter struct {
	newApp   func() *cli.App
	opts     Options
	serial   sync.Mutex
	compiled time.Time // for apps that leave App.Compiled unset
}

// tool is one served command.
type tool struct {
	a       *adapter
	spec    Tool
	path    []string // command names below the app
	flags   map[string]flagInput
	args    string // the positional input, or ""
	mcpTool mcp.Tool
}

func (a *adapter) tool(app *cli.App, spec Tool) (*tool, error) {
	path := strings.Fields(spec.Command)
	flags, usage, desc, argsUsage := app.Flags, app.Usage, app.Description, app.ArgsUsage
	cmds := app.Commands
	for i, name := range path {
		var cmd *cli.Command
		for _, c := range cmds {
			if c.HasName(name) {
				cmd = c
			}
		}
		if cmd == nil {
			return nil, fmt.Errorf("cliadapter: app %s has no command %q (Tool.Command %q); it has: %s",
				app.Name, name, spec.Command, commandNames(cmds))
		}
		path[i] = cmd.Name
		flags, usage, desc, argsUsage, cmds = cmd.Flags, cmd.Usage, cmd.Description, cmd.ArgsUsage, cmd.Subcommands
	}
	t := &tool{a: a, spec: spec, path: path, flags: map[string]flagInput{}}
	name := spec.Name
	if name == "" {
		name = strings.NewReplacer(" ", "_", "-", "_").Replace(strings.Join(path, " "))
		if name == "" {
			name = app.Name
		}
	}
	props := map[string]any{}
	var required []string
	for _, fi := range flagInputs(flags, spec.Exclude) {
		t.flags[fi.name] = fi
		props[fi.name] = fi.schema
	}
	for _, f := range flags {
		if _, ok := t.flags[f.Names()[0]]; ok && isRequired(f) {
			required = append(required, f.Names()[0])
		}
	}
	if !spec.NoArgs {
		t.args = spec.Args
		if t.args == "" {
			t.args = "args"
		}
		if _, clash := props[t.args]; clash {
			return nil, fmt.Errorf("cliadapter: command %q has a flag named %q, the name of its positional input; set Tool.Args to another name", spec.Command, t.args)
		}
		d := "Positional arguments, each one argument; never read as flags."
		if strings.TrimSpace(argsUsage) != "" {
			d += " Usage: " + strings.TrimSpace(argsUsage)
		}
		props[t.args] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": d}
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		schema["required"] = required
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("cliadapter: schema of %q: %v", spec.Command, err)
	}
	title, description := spec.Title, spec.Description
	if title == "" {
		title = usage
	}
	if description == "" {
		description = strings.TrimSpace(usage + "\n\n" + desc)
	}
	t.mcpTool = mcp.Tool{
		Name:        a.opts.Prefix + name,
		Title:       title,
		Description: description,
		InputSchema: raw,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(!spec.Write)},
	}
	return t, nil
}

func commandNames(cmds []*cli.Command) string {
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		return "no commands"
	}
	return strings.Join(names, ", ")
}

// argv builds the synthetic command line for a call: flags as
// --name=value, then "--", then the positional arguments.
func (t *tool) argv(appName string, vals map[string]json.RawMessage) ([]string, error) {
	argv := append([]string{appName}, t.path...)
	names := make([]string, 0, len(vals))
	for name := range vals {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fi, ok := t.flags[name]
		if !ok {
			continue
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(vals[name]))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("input %q: %v", name, err)
		}
		items := []any{v}
		if fi.kind == "list" {
			items, _ = v.([]any)
		}
		for _, x := range items {
			argv = append(argv, "--"+name+"="+flagValue(x))
		}
	}
	if t.args != "" {
		var args []string
		if raw, ok := vals[t.args]; ok {
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, fmt.Errorf("input %q: %v", t.args, err)
			}
		}
		if len(args) > 0 {
			argv = append(argv, "--")
			argv = append(argv, args...)
		}
	}
	return argv, nil
}

// flagValue formats a JSON scalar for a flag: integral numbers without a
// fraction (3.0 is 3), so that integer flags parse them.
func flagValue(v any) string {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatInt(int64(f), 10)
		}
	}
	return fmt.Sprint(v)
}
