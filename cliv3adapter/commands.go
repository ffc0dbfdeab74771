package cliv3adapter

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/mcpship/mcpship/internal/clitool"
	"github.com/mcpship/mcpship/mcp"
	"github.com/mcpship/mcpship/registercmd"
)

// Commands returns the subcommands a host app adds to its root: "mcp",
// which serves the chosen commands over stdio or HTTP, and "init", "remove" and
// "doctor", which register "PROGRAM mcp" with AI assistants, take it out
// again and check that it answers. When a tool is not marked ReadOnly, init has
// --allow-write, which registers "PROGRAM mcp --allow-write".
//
// Mistakes on the command line are errors whose ExitCode is 64, which
// cli.HandleExitCoder, the default exit handler, exits with.
func Commands(newRoot func() *cli.Command, opts Options) []*cli.Command {
	serve := &cli.Command{
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
		OnUsageError: func(_ context.Context, _ *cli.Command, err error, _ bool) error {
			return clitool.FlagError(err)
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o, tools := opts.shared()
			root := cmd.Root()
			stdio := &mcp.StdioOptions{Stdin: root.Reader, Stdout: root.Writer, RedirectStdout: opts.RedirectStdout}
			transport := clitool.Transport{Name: cmd.String("transport"), Listen: cmd.String("listen"), TokenFile: cmd.String("auth-token-file"),
				AllowOrigins: cmd.StringSlice("allow-origin"), SessionKeyFile: cmd.String("session-key-file"), DrainTimeout: cmd.Duration("drain-timeout"),
				DrainGrace: cmd.Duration("drain-grace"), Stderr: root.ErrWriter}
			return clitool.Serve(ctx, sharedApp(newRoot), root.Version, tools, o, transport, cmd.Bool("allow-write"), cmd.Args().Slice(), stdio)
		},
	}
	return append([]*cli.Command{serve}, registration(opts)...)
}

// registration returns init, remove and doctor: commands that take their
// arguments unparsed and hand them to registercmd.Run, help flags and all.
func registration(opts Options) []*cli.Command {
	p := registercmd.Program{Args: []string{"mcp"}}
	for _, t := range opts.Tools {
		if !t.ReadOnly {
			p.Flags = []registercmd.Flag{{Name: "allow-write", Bool: true, Usage: "register 'mcp --allow-write', which also serves the commands that change things"}}
		}
	}
	var out []*cli.Command
	for _, c := range registercmd.Commands(p) {
		out = append(out, &cli.Command{
			Name:            c.Name,
			Usage:           c.Usage,
			Description:     c.Description,
			SkipFlagParsing: true,
			Action: func(ctx context.Context, cmd *cli.Command) error {
				root := cmd.Root()
				return registercmd.Run(ctx, p, root.Name, c.Name, cmd.Args().Slice(), root.Writer, root.ErrWriter)
			},
		})
	}
	return out
}
