package cliadapter

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/mcp"
)

// Commands returns the subcommand a host app adds to itself: "mcp",
// which serves the chosen commands over stdio. The commands that register
// it with AI assistants are in package registercmd (see
// [github.com/mcpship/mcpship/registercmd.Commands]), so that an app without them does not link the
// config editors.
func Commands(newApp func() *cli.App, opts Options) []*cli.Command {
	return []*cli.Command{mcpCommand(newApp, opts)}
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
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return cli.Exit(err.Error(), 64) },
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
			return srv.ServeStdio(c.Context, &mcp.StdioOptions{Stdin: c.App.Reader, Stdout: c.App.Writer, RedirectStdout: opts.RedirectStdout})
		},
	}
}
