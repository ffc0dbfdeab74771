package cliadapter

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/mcp"
)

// Commands returns the subcommands a host app adds to itself: "mcp",
// which serves the chosen commands over stdio, and "init" when opts.Init
// is set.
func Commands(newApp func() *cli.App, opts Options) []*cli.Command {
	cmds := []*cli.Command{mcpCommand(newApp, opts)}
	if opts.Init != nil {
		cmds = append(cmds, opts.Init())
	}
	return cmds
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
