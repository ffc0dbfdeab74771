package cliadapter

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/mcp"
	"github.com/mcpship/mcpship/registercmd"
)

// Commands returns the subcommands a host app adds to itself: "mcp",
// which serves the chosen commands over stdio, and, when opts.Init is set,
// "init", "remove" and "doctor", which register "mcp" with AI assistants.
func Commands(newApp func() *cli.App, opts Options) []*cli.Command {
	cmds := []*cli.Command{mcpCommand(newApp, opts)}
	if opts.Init {
		p := program(opts)
		cmds = append(cmds, registercmd.Init(p), registercmd.Remove(p), registercmd.Doctor(&p))
	}
	return cmds
}

// program is what init registers: the running binary with "mcp", and
// with "--allow-write" when the app has tools that change things and init
// is asked to serve them.
func program(opts Options) registercmd.Program {
	p := registercmd.Program{Args: []string{"mcp"}}
	if opts.AllowWrite || !slices.ContainsFunc(opts.Tools, func(t Tool) bool { return t.Write }) {
		return p
	}
	p.Flags = []cli.Flag{&cli.BoolFlag{Name: "allow-write", Usage: "register 'mcp --allow-write', which also serves the commands that change things"}}
	p.FlagArgs = func(c *cli.Context, _ registercmd.Dest) ([]string, error) {
		if c.Bool("allow-write") {
			return []string{"--allow-write"}, nil
		}
		return nil, nil
	}
	return p
}

// mcpCommand returns the "mcp" subcommand.
func mcpCommand(newApp func() *cli.App, opts Options) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve this program's commands as MCP tools over stdio",
		Description: "Speaks MCP (JSON-RPC 2.0, one message per line) on standard input and output.\n" +
			"AI assistants start it; people rarely run it by hand.",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "transport", Value: "stdio", Usage: "transport to serve on; only `stdio` today"},
			&cli.BoolFlag{Name: "allow-write", Usage: "also serve the commands that change things"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("mcp takes no arguments, got %q", c.Args().First()), 64)
			}
			if t := c.String("transport"); t != "stdio" {
				return cli.Exit(fmt.Sprintf("unsupported --transport %q: only \"stdio\" is available", t), 64)
			}
			o := opts
			o.AllowWrite = o.AllowWrite || c.Bool("allow-write")
			srv := mcp.NewServer(mcp.Implementation{Name: c.App.Name, Version: c.App.Version}, nil)
			if err := AddTools(srv, newApp, o); err != nil {
				return err
			}
			in, out := c.App.Reader, c.App.Writer
			if out == os.Stdout {
				// Stray prints to os.Stdout would corrupt the protocol
				// stream: send them to standard error while serving.
				os.Stdout = os.Stderr
				defer func() { os.Stdout = out.(*os.File) }()
			}
			signal.Ignore(syscall.SIGPIPE)
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			return srv.Serve(ctx, in, out)
		},
	}
}
