package clitool

import (
	"context"
	"fmt"

	"github.com/mcpship/mcpship/mcp"
)

// The help of every adapter's "mcp" subcommand.
const (
	MCPUsage       = "serve this program's commands as MCP tools over stdio"
	MCPDescription = "Speaks MCP (JSON-RPC 2.0, one message per line) on standard input and output.\n" +
		"AI assistants start it; people rarely run it by hand."
	TransportUsage  = "transport to serve on; only `stdio` today"
	AllowWriteUsage = "also serve the commands that change things"
)

// Serve is the work of an app's "mcp" subcommand, once its flags are
// parsed: it refuses arguments and any transport but stdio as usage
// errors, then serves tools of app until the input ends.
func Serve(ctx context.Context, app App, version string, tools []Tool, opts Options, transport string, allowWrite bool, args []string, stdio *mcp.StdioOptions) error {
	if len(args) > 0 {
		return Usagef("mcp takes no arguments, got %q", args[0])
	}
	if transport != "stdio" {
		return Usagef("unsupported --transport %q: only \"stdio\" is available", transport)
	}
	opts.AllowWrite = opts.AllowWrite || allowWrite
	srv := mcp.NewServer(mcp.Implementation{Name: app.Name, Version: version}, nil)
	if err := AddTools(srv, app, tools, opts); err != nil {
		return err
	}
	return srv.ServeStdio(ctx, stdio)
}

// Usagef returns a usage error: its ExitCode method returns 64
// (EX_USAGE), which urfave/cli's exit handling in both versions honours,
// and which a Cobra app's main can read with errors.As.
func Usagef(format string, args ...any) error {
	return usageError(fmt.Sprintf(format, args...))
}

// FlagError returns err, an error of parsing flags, as a usage error
// that names a flag as it is written, --frob (the flag package says
// -frob).
func FlagError(err error) error { return usageError(LongFlags(err.Error())) }

type usageError string

func (e usageError) Error() string { return string(e) }
func (usageError) ExitCode() int   { return 64 }
