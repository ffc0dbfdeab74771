package cliv3adapter

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpship/mcpship/internal/clitool"
	"github.com/mcpship/mcpship/mcp"
)

// AddTools registers the commands opts chooses as tools of srv. newRoot
// is called once here to read the commands and flags, then once per call.
func AddTools(srv *mcp.Server, newRoot func() *cli.Command, opts Options) error {
	o, tools := opts.shared()
	return clitool.AddTools(srv, sharedApp(newRoot), tools, o)
}

// sharedApp describes an app to package clitool.
func sharedApp(newRoot func() *cli.Command) clitool.App {
	root := newRoot()
	a := clitool.App{Pkg: "cliv3adapter", Name: root.Name}
	a.Find = func(path []string) (*clitool.Command, error) {
		cmd := root
		var inherited []clitool.Flag // the flags of the parents that apply to cmd
		out := &clitool.Command{}
		for _, name := range path {
			next := cmd.Command(name) // the first of that name, as urfave/cli runs
			if next == nil {
				var have []string
				for _, c := range cmd.Commands {
					have = append(have, c.Name)
				}
				return nil, clitool.NoCommand(a, strings.Join(path, " "), name, have)
			}
			inherited = append(flags(allFlags(cmd), false), inherited...)
			out.Path = append(out.Path, next.Name)
			cmd = next
		}
		out.Usage, out.Description, out.ArgsUsage, out.RawArgs = cmd.Usage, cmd.Description, cmd.ArgsUsage, cmd.SkipFlagParsing
		out.Flags = append(flags(allFlags(cmd), true), inherited...)
		return out, nil
	}
	a.Run = func(ctx context.Context, path, argv []string, stdout, stderr io.Writer) error {
		root := newRoot()
		// urfave/cli runs the subcommand that a positional argument
		// names, even after "--"; the command of the call has none.
		cmd := root
		for _, name := range path {
			if cmd != nil {
				cmd = cmd.Command(name)
			}
		}
		if cmd != nil { // else a tree unlike the first: urfave/cli will say so
			cmd.Commands = nil
		}
		root.Reader = strings.NewReader("") // never the protocol stream
		root.Writer, root.ErrWriter = stdout, stderr
		root.ExitErrHandler = func(context.Context, *cli.Command, error) {} // never os.Exit
		// A call's argv never asks for help or the version; subcommands
		// inherit these.
		root.HideHelp, root.HideHelpCommand, root.HideVersion = true, true, true
		var walk func(*cli.Command)
		walk = func(c *cli.Command) {
			c.DisableSliceFlagSeparator = true // each item is one value, commas and all
			for _, sub := range c.Commands {
				// A command with its own input or output (such as
				// Writer: os.Stdout) would read or write the protocol
				// stream while "mcp" serves: all use the root's.
				sub.Reader, sub.Writer, sub.ErrWriter = nil, nil, nil
				walk(sub)
			}
		}
		walk(root)
		return root.Run(ctx, argv)
	}
	return a
}

// allFlags returns the flags of cmd: its Flags, then those of its groups
// of mutually exclusive flags, which urfave/cli adds to them only when it
// runs.
func allFlags(cmd *cli.Command) []cli.Flag {
	fs := slices.Clone(cmd.Flags)
	for _, g := range cmd.MutuallyExclusiveFlags {
		for _, alt := range g.Flags {
			fs = append(fs, alt...)
		}
	}
	return fs
}

// flags describes fs to package clitool: all of them for the command
// itself (own), and those that are not Local for a parent's. Hidden flags
// are left out, and so are flags whose values have another type than
// those clitool serves.
func flags(fs []cli.Flag, own bool) []clitool.Flag {
	var out []clitool.Flag
	for _, f := range fs {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() || len(f.Names()) == 0 {
			continue
		}
		if l, ok := f.(cli.LocalFlag); ok && l.IsLocal() && !own {
			continue
		}
		sf := clitool.Flag{Name: f.Names()[0]}
		if b, ok := f.(*cli.BoolWithInverseFlag); ok {
			sf.Value = b.Value // its Get needs a parsed value
		} else {
			sf.Value = f.Get() // the default, in a tree not yet run
		}
		if s, ok := f.(*cli.StringFlag); ok {
			sf.Path = s.TakesFile
		}
		if d, ok := f.(cli.DocGenerationFlag); ok {
			sf.Usage, sf.FromEnv = d.GetUsage(), len(d.GetEnvVars()) > 0
		}
		if r, ok := f.(cli.RequiredFlag); ok {
			sf.Required = r.IsRequired()
		}
		out = append(out, sf)
	}
	return out
}
