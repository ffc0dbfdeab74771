package cliadapter

import (
	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/clitool"
	"github.com/mcpship/mcpship/mcp"
)

// Commands returns the subcommand a host app adds to itself: "mcp",
// which serves the chosen commands over stdio. The commands that register
// it with AI assistants are in package registercmd (see
// [github.com/mcpship/mcpship/registercmd.Commands]), so that an app without them does not link the
// config editors.
func Commands(newApp func() *cli.App, opts Options) []*cli.Command {
	return []*cli.Command{{
		Name:        "mcp",
		Usage:       clitool.MCPUsage,
		Description: clitool.MCPDescription,
		ArgsUsage:   " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "transport", Value: "stdio", Usage: clitool.TransportUsage},
			&cli.BoolFlag{Name: "allow-write", Usage: clitool.AllowWriteUsage},
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return clitool.FlagError(err) },
		Action: func(c *cli.Context) error {
			o, tools := opts.shared()
			stdio := &mcp.StdioOptions{Stdin: c.App.Reader, Stdout: c.App.Writer, RedirectStdout: opts.RedirectStdout}
			return clitool.Serve(c.Context, sharedApp(newApp), c.App.Version, tools, o, c.String("transport"), c.Bool("allow-write"), c.Args().Slice(), stdio)
		},
	}}
}
