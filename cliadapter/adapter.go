package cliadapter

import (
	"context"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/clitool"
	"github.com/mcpship/mcpship/mcp"
)

// AddTools registers the commands opts chooses as tools of srv. newApp is
// called once here to read the commands and flags, then once per call.
func AddTools(srv *mcp.Server, newApp func() *cli.App, opts Options) error {
	o, tools := opts.shared()
	return clitool.AddTools(srv, sharedApp(newApp), tools, o)
}

// sharedApp describes an app to package clitool.
func sharedApp(newApp func() *cli.App) clitool.App {
	app := newApp()
	compiled := app.Compiled
	if compiled.IsZero() {
		// What App.Setup would find on each call, with a stat of the
		// executable each time; read it once.
		compiled = time.Now()
		if fi, err := os.Stat(os.Args[0]); err == nil {
			compiled = fi.ModTime()
		}
	}
	a := clitool.App{Pkg: "cliadapter", Name: app.Name}
	a.Find = func(path []string) (*clitool.Command, error) {
		cmd := &clitool.Command{Usage: app.Usage, Description: app.Description, ArgsUsage: app.ArgsUsage, Flags: flags(app.Flags)}
		cmds := app.Commands
		for _, name := range path {
			c := find(cmds, name)
			if c == nil {
				return nil, clitool.NoCommand(a, strings.Join(path, " "), name, names(cmds))
			}
			cmd.Path = append(cmd.Path, c.Name)
			cmd.Usage, cmd.Description, cmd.ArgsUsage, cmd.Flags = c.Usage, c.Description, c.ArgsUsage, flags(c.Flags)
			cmd.RawArgs = c.SkipFlagParsing
			cmds = c.Subcommands
		}
		return cmd, nil
	}
	a.Run = func(ctx context.Context, path, argv []string, stdout, stderr io.Writer) error {
		app := newApp()
		noSubcommands(app, path)
		if app.Compiled.IsZero() {
			app.Compiled = compiled
		}
		app.Reader = strings.NewReader("") // never the protocol stream
		app.Writer, app.ErrWriter = stdout, stderr
		app.ExitErrHandler = func(*cli.Context, error) {} // never os.Exit
		app.DisableSliceFlagSeparator = true              // each item is one value, commas and all
		isolate(app)
		freshLists(app)
		return app.RunContext(ctx, argv)
	}
	return a
}

// noSubcommands takes the subcommands off the command at path: urfave/cli
// runs the subcommand that a positional argument names, even after "--".
func noSubcommands(app *cli.App, path []string) {
	cmds := &app.Commands
	for _, name := range path {
		c := find(*cmds, name)
		if c == nil {
			return // a tree unlike the first: urfave/cli will say so
		}
		cmds = &c.Subcommands
	}
	*cmds = nil
}

// find returns the first command of cmds that has name, the one
// urfave/cli runs, or nil.
func find(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func names(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	return names
}

// isolate keeps urfave/cli's package-level help flag, help command and
// version flag out of the app: Run writes to them, so concurrent runs of
// even separate apps would race. A call's argv never asks for help.
func isolate(app *cli.App) {
	app.HideHelp, app.HideHelpCommand, app.HideVersion = true, true, true
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.HideHelp, c.HideHelpCommand = true, true
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

// freshLists empties the Destination of each list flag of the app, so
// that a call's values replace the list's default rather than add to
// what an earlier call left there. urfave/cli v2 sets the flags' other
// Destinations to their defaults on each run, and a list's too, but once
// a list was given a value it adds later values to what it holds.
func freshLists(app *cli.App) {
	reset := func(flags []cli.Flag) {
		for _, f := range flags {
			switch f := f.(type) {
			case *cli.StringSliceFlag:
				zero(f.Destination)
			case *cli.IntSliceFlag:
				zero(f.Destination)
			case *cli.Int64SliceFlag:
				zero(f.Destination)
			case *cli.UintSliceFlag:
				zero(f.Destination)
			case *cli.Uint64SliceFlag:
				zero(f.Destination)
			case *cli.Float64SliceFlag:
				zero(f.Destination)
			}
		}
	}
	reset(app.Flags)
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			reset(c.Flags)
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

// zero sets *p to its zero value, when p is not nil.
func zero[T any](p *T) {
	if p != nil {
		var z T
		*p = z
	}
}
