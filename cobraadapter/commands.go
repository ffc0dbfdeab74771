package cobraadapter

import (
	"github.com/spf13/cobra"

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
// Errors that are mistakes on the command line have an ExitCode method
// that returns 64; a main that exits with that code, else 1, keeps the
// conventions of mcpship's own commands.
func Commands(newRoot func() *cobra.Command, opts Options) []*cobra.Command {
	serve := &cobra.Command{
		Use:   "mcp",
		Short: clitool.MCPUsage,
		Long:  clitool.MCPDescription,
		Args:  cobra.ArbitraryArgs, // refused, with the exit code of a usage error, by clitool.Serve
		RunE: func(cmd *cobra.Command, args []string) error {
			name, _ := cmd.Flags().GetString("transport")
			listen, _ := cmd.Flags().GetString("listen")
			tokenFile, _ := cmd.Flags().GetString("auth-token-file")
			origins, _ := cmd.Flags().GetStringArray("allow-origin")
			keyFile, _ := cmd.Flags().GetString("session-key-file")
			drain, _ := cmd.Flags().GetDuration("drain-timeout")
			grace, _ := cmd.Flags().GetDuration("drain-grace")
			transport := clitool.Transport{Name: name, Listen: listen, TokenFile: tokenFile, AllowOrigins: origins,
				SessionKeyFile: keyFile, DrainTimeout: drain, DrainGrace: grace, Stderr: cmd.ErrOrStderr()}
			allowWrite, _ := cmd.Flags().GetBool("allow-write")
			o, tools := opts.shared()
			stdio := &mcp.StdioOptions{Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), RedirectStdout: opts.RedirectStdout}
			return clitool.Serve(cmd.Context(), sharedApp(newRoot), cmd.Root().Version, tools, o, transport, allowWrite, args, stdio)
		},
	}
	serve.Flags().String("transport", "stdio", clitool.TransportUsage)
	serve.Flags().String("listen", "", clitool.ListenUsage)
	serve.Flags().String("auth-token-file", "", clitool.TokenFileUsage)
	serve.Flags().StringArray("allow-origin", nil, clitool.AllowOriginUsage)
	serve.Flags().String("session-key-file", "", clitool.SessionKeyUsage)
	serve.Flags().Duration("drain-timeout", 0, clitool.DrainTimeoutUsage)
	serve.Flags().Duration("drain-grace", 0, clitool.DrainGraceUsage)
	serve.Flags().Bool("allow-write", false, clitool.AllowWriteUsage)
	serve.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return clitool.Usagef("%v", err) })
	return append([]*cobra.Command{serve}, registration(opts)...)
}

// registration returns init, remove and doctor: commands that take their
// arguments unparsed and hand them to registercmd.Run, help flags and all.
func registration(opts Options) []*cobra.Command {
	p := registercmd.Program{Args: []string{"mcp"}}
	for _, t := range opts.Tools {
		if !t.ReadOnly {
			p.Flags = []registercmd.Flag{{Name: "allow-write", Bool: true, Usage: "register 'mcp --allow-write', which also serves the commands that change things"}}
		}
	}
	var out []*cobra.Command
	for _, c := range registercmd.Commands(p) {
		run := func(cmd *cobra.Command, args []string) error {
			return registercmd.Run(cmd.Context(), p, cmd.Root().Name(), c.Name, args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		}
		cmd := &cobra.Command{Use: c.Name, Short: c.Usage, Long: c.Description, DisableFlagParsing: true, RunE: run}
		cmd.SetHelpFunc(func(cmd *cobra.Command, _ []string) { _ = run(cmd, []string{"--help"}) })
		out = append(out, cmd)
	}
	return out
}
