package cliadapter

import (
	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/clitool"
	"github.com/mcpship/mcpship/mcp"
)

// Commands returns the subcommand a host app adds to itself: "mcp",
// which serves the chosen commands over stdio or HTTP. The commands that register
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
			&cli.StringFlag{Name: "listen", Usage: clitool.ListenUsage},
			&cli.StringFlag{Name: "auth-token-file", Usage: clitool.TokenFileUsage},
			&cli.StringSliceFlag{Name: "allow-origin", Usage: clitool.AllowOriginUsage},
			&cli.StringFlag{Name: "session-key-file", Usage: clitool.SessionKeyUsage},
			&cli.DurationFlag{Name: "drain-timeout", Usage: clitool.DrainTimeoutUsage},
			&cli.DurationFlag{Name: "drain-grace", Usage: clitool.DrainGraceUsage},
			&cli.BoolFlag{Name: "allow-write", Usage: clitool.AllowWriteUsage},
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return clitool.FlagError(err) },
		Action: func(c *cli.Context) error {
			o, tools := opts.shared()
			stdio := &mcp.StdioOptions{Stdin: c.App.Reader, Stdout: c.App.Writer, RedirectStdout: opts.RedirectStdout}
			transport := clitool.Transport{Name: c.String("transport"), Listen: c.String("listen"), TokenFile: c.String("auth-token-file"),
				AllowOrigins: c.StringSlice("allow-origin"), SessionKeyFile: c.String("session-key-file"), DrainTimeout: c.Duration("drain-timeout"),
				DrainGrace: c.Duration("drain-grace"), Stderr: c.App.ErrWriter}
			return clitool.Serve(c.Context, sharedApp(newApp), c.App.Version, tools, o, transport, c.Bool("allow-write"), c.Args().Slice(), stdio)
		},
	}}
}
