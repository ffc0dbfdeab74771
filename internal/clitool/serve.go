package clitool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpship/mcpship/internal/httpserve"
	"github.com/mcpship/mcpship/internal/spill"
	"github.com/mcpship/mcpship/mcp"
)

// The help of every adapter's "mcp" subcommand.
const (
	MCPUsage       = "serve this program's commands as MCP tools over stdio or HTTP"
	MCPDescription = "Speaks MCP (JSON-RPC 2.0, one message per line) on standard input and output.\n" +
		"AI assistants start it; people rarely run it by hand.\n" +
		"With --transport http, serves the Streamable HTTP transport at http://ADDR/mcp instead:\n" +
		"on loopback (" + httpserve.DefaultListen + ") unless --listen says otherwise, and then only with a token (--auth-token-file)."
	TransportUsage    = httpserve.TransportUsage
	ListenUsage       = httpserve.ListenUsage + " (default " + httpserve.DefaultListen + ")"
	TokenFileUsage    = httpserve.TokenFileUsage
	AllowOriginUsage  = httpserve.AllowOriginUsage
	SessionKeyUsage   = httpserve.SessionKeyUsage
	DrainTimeoutUsage = httpserve.DrainTimeoutUsage + " (default 30s)"
	DrainGraceUsage   = httpserve.DrainGraceUsage + " (default 5s)"
	AllowWriteUsage   = "also serve the commands that change things"
)

// Transport is what the transport flags of an app's "mcp" command say.
type Transport struct {
	Name           string // --transport: "stdio" or "http"
	Listen         string // --listen; "" for the default
	TokenFile      string // --auth-token-file
	AllowOrigins   []string
	SessionKeyFile string        // --session-key-file
	DrainTimeout   time.Duration // --drain-timeout; 0 for the default
	DrainGrace     time.Duration // --drain-grace; 0 for the default
	Stderr         io.Writer     // where the HTTP server says where it listens, and serve what it leaves out
}

// Serve is the work of an app's "mcp" subcommand, once its flags are
// parsed: it refuses arguments and transports other than stdio and http
// as usage errors, then serves tools of app until the input ends (stdio)
// or a signal stops it (http).
func Serve(ctx context.Context, app App, version string, tools []Tool, opts Options, transport Transport, allowWrite bool, args []string, stdio *mcp.StdioOptions) error {
	if len(args) > 0 {
		return Usagef("mcp takes no arguments, got %q", args[0])
	}
	switch transport.Name {
	case "stdio":
		for flag, set := range map[string]bool{"listen": transport.Listen != "", "auth-token-file": transport.TokenFile != "", "allow-origin": len(transport.AllowOrigins) > 0,
			"session-key-file": transport.SessionKeyFile != "", "drain-timeout": transport.DrainTimeout != 0,
			"drain-grace": transport.DrainGrace != 0} {
			if set {
				return Usagef("--%s needs --transport http", flag)
			}
		}
	case "http":
		if transport.DrainTimeout < 0 {
			return Usagef("--drain-timeout must be positive, got %v", transport.DrainTimeout)
		}
		if transport.DrainGrace < 0 {
			return Usagef("--drain-grace must be positive, got %v", transport.DrainGrace)
		}
	default:
		return Usagef("unsupported --transport %q: use \"stdio\" or \"http\"", transport.Name)
	}
	opts.AllowWrite = opts.AllowWrite || allowWrite
	if left := notReadOnly(tools); len(left) > 0 && !opts.AllowWrite && transport.Stderr != nil {
		fmt.Fprintf(transport.Stderr, "%s mcp: not serving %s, not marked ReadOnly (they may change things); run %q to serve them too\n",
			app.Name, strings.Join(left, ", "), app.Name+" mcp --allow-write")
	}
	// The whole output of the results cut to their budget is kept as
	// resources of the session; removed when Serve returns.
	opts.Outputs = spill.New(0, 0)
	defer opts.Outputs.Close()
	srv := mcp.NewServer(mcp.Implementation{Name: app.Name, Version: version}, &mcp.ServerOptions{Resources: opts.Outputs})
	if err := AddTools(srv, app, tools, opts); err != nil {
		return err
	}
	if transport.Name == "stdio" {
		return srv.ServeStdio(ctx, stdio)
	}
	err := httpserve.Serve(ctx, srv, httpserve.Options{
		Listen:         transport.Listen,
		TokenFile:      transport.TokenFile,
		SessionKeyFile: transport.SessionKeyFile,
		DrainTimeout:   transport.DrainTimeout,
		DrainGrace:     transport.DrainGrace,
		HTTP:           mcp.HTTPOptions{AllowedOrigins: transport.AllowOrigins},
		Stderr:         transport.Stderr,
	})
	var usage *httpserve.UsageError
	if errors.As(err, &usage) {
		return Usagef("%s", usage.Error())
	}
	return err
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

// notReadOnly returns the commands of the tools not marked ReadOnly.
func notReadOnly(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		if !t.ReadOnly {
			name := t.Command
			if name == "" {
				name = "(root)"
			}
			out = append(out, strconv.Quote(name))
		}
	}
	return out
}
