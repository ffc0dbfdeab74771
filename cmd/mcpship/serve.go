package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/cliadapter"
	"github.com/mcpship/mcpship/internal/bridge"
	"github.com/mcpship/mcpship/internal/httpserve"
	"github.com/mcpship/mcpship/internal/manifest"
	"github.com/mcpship/mcpship/internal/spill"
	"github.com/mcpship/mcpship/mcp"
	"github.com/mcpship/mcpship/release"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve tools to an MCP client over stdio or HTTP",
		Description: "Speaks MCP (JSON-RPC 2.0, one message per line) on standard input and output.\n" +
			"Nothing but protocol messages is written to standard output; logs go to standard error.\n" +
			"With --transport http, serves the Streamable HTTP transport at http://ADDR/mcp instead (docs/http.md):\n" +
			"on loopback unless --listen says otherwise, and then only with a bearer token (--auth-token-file).\n" +
			"With --manifest, it serves the tools the manifests declare; without, mcpship's own read-only commands.\n" +
			"With --transport http and a command after --, it serves that stdio MCP server over HTTP: it starts the\n" +
			"command, starts it again when it exits, and shares it between clients (docs/http.md, \"Any stdio server\").",
		ArgsUsage: "[-- COMMAND [ARGS...]]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "transport", Value: "stdio", Usage: httpserve.TransportUsage},
			&cli.StringFlag{Name: "listen", Value: httpserve.DefaultListen, Usage: httpserve.ListenUsage},
			&cli.StringFlag{Name: "auth-token-file", Usage: httpserve.TokenFileUsage},
			&cli.StringSliceFlag{Name: "allow-origin", Usage: httpserve.AllowOriginUsage},
			&cli.Int64Flag{Name: "max-body-bytes", Value: 4 << 20, Usage: "with --transport http, the largest request body; a larger one gets 413"},
			&cli.IntFlag{Name: "max-sessions", Value: 1024, Usage: "with --transport http, the most sessions of legacy clients kept at once; past it, the one idle longest ends"},
			&cli.DurationFlag{Name: "session-idle-timeout", Value: 30 * time.Minute, Usage: "with --transport http, end a legacy client's session idle this long (with --session-key-file, only forget it here)"},
			&cli.StringFlag{Name: "session-key-file", Usage: httpserve.SessionKeyUsage},
			&cli.DurationFlag{Name: "session-lifetime", Value: 24 * time.Hour, Usage: "with --session-key-file, how long a session id stays valid, however busy"},
			&cli.DurationFlag{Name: "drain-timeout", Value: httpserve.DefaultDrainTimeout, Usage: httpserve.DrainTimeoutUsage},
			&cli.DurationFlag{Name: "drain-grace", Value: httpserve.DefaultDrainGrace, Usage: httpserve.DrainGraceUsage},
			&cli.IntFlag{Name: "max-message-bytes", Value: mcp.DefaultMaxMessageBytes, Usage: "longest message accepted; a longer one gets an error reply"},
			&cli.IntFlag{Name: "max-concurrent-calls", Value: 16, Usage: "tool calls run at once; over stdio more wait their turn; over HTTP more get 503, and the default is 64"},
			&cli.StringFlag{Name: "log-level", Value: "warn", Usage: "stderr log level: debug, info, warn or error"},
			&cli.StringSliceFlag{Name: "manifest", KeepSpace: true, Usage: "serve the tools `FILE` declares; see docs/manifest.md (repeatable)"},
			&cli.GenericFlag{Name: "set", Value: &listFlag{}, Usage: "session default `NAME=VALUE` for an input a call leaves out; NAME is INPUT or TOOL.INPUT (repeatable)"},
			&cli.DurationFlag{Name: "progress-interval", Value: manifest.DefaultProgressInterval, Usage: "after this long without a new stderr line, a running manifest command sends a heartbeat to a call that asked for progress"},
			&cli.DurationFlag{Name: "call-timeout", Value: bridge.DefaultCallTimeout, Usage: "with a server command after --, fail a request it has not answered in this long"},
			&cli.DurationFlag{Name: "start-timeout", Value: bridge.DefaultStartTimeout, Usage: "with a server command after --, how long it may take to start and answer initialize"},
			&cli.BoolFlag{Name: "child-per-session", Usage: "with a server command after --, start one for each legacy session and each stateless request running, for servers that serve one client at a time"},
			&cli.IntFlag{Name: "max-children", Value: bridge.DefaultMaxChildren, Usage: "with a server command after --, the most of its processes running at once"},
			&cli.DurationFlag{Name: "child-idle-timeout", Value: bridge.DefaultIdleTimeout, Usage: "with a server command after --, stop a process of it (but the first) idle this long"},
			&cli.StringSliceFlag{Name: "env-from-header", Usage: "with a server command after --, pass request header `HEADER=VAR` to its environment variable VAR (repeatable); requests with different values never share a process"},
		},
		OnUsageError: usageError,
		Action:       serve,
	}
}

func serve(c *cli.Context) error {
	command := c.Args().Slice()
	dashes, _ := c.App.Metadata["dashes"].(bool)
	switch {
	case dashes && len(command) == 0:
		return usagef("-- needs the server command after it: mcpship serve --transport http -- COMMAND [ARGS...]")
	case !dashes && len(command) > 0:
		return usagef("serve takes no arguments, got %q; to serve a stdio server command, put it after --: mcpship serve --transport http -- COMMAND [ARGS...]", command[0])
	case len(command) > 0 && c.String("transport") != "http":
		return usagef("a server command after -- is served over HTTP: add --transport http (mcpship serve --transport http -- %s)", strings.Join(command, " "))
	case len(command) > 0 && (len(c.StringSlice("manifest")) > 0 || c.IsSet("set")):
		return usagef("--manifest and --set serve mcpship's own tools; a server command after -- serves that server's: give one or the other")
	case len(command) == 0:
		for _, name := range bridgeFlags {
			if c.IsSet(name) {
				return usagef("--%s needs a server command after --: mcpship serve --transport http --%s ... -- COMMAND [ARGS...]", name, name)
			}
		}
	}
	transport := c.String("transport")
	switch transport {
	case "stdio":
		for _, name := range []string{"listen", "auth-token-file", "allow-origin", "max-body-bytes", "max-sessions", "session-idle-timeout",
			"session-key-file", "session-lifetime", "drain-timeout", "drain-grace"} {
			if c.IsSet(name) {
				return usagef("--%s needs --transport http", name)
			}
		}
	case "http":
		if n := c.Int64("max-body-bytes"); n < 1024 {
			return usagef("--max-body-bytes %d is too small: use at least 1024", n)
		}
		if n := c.Int("max-sessions"); n < 1 {
			return usagef("--max-sessions must be at least 1, got %d", n)
		}
		for _, name := range []string{"session-idle-timeout", "session-lifetime", "drain-timeout", "drain-grace"} {
			if d := c.Duration(name); d <= 0 {
				return usagef("--%s must be positive, got %v", name, d)
			}
		}
		if c.IsSet("session-lifetime") && !c.IsSet("session-key-file") {
			return usagef("--session-lifetime needs --session-key-file: without a key, sessions end when idle (--session-idle-timeout)")
		}
	default:
		return usagef("unsupported --transport %q: use \"stdio\" or \"http\"", transport)
	}
	if n := c.Int("max-message-bytes"); n < 1024 {
		return usagef("--max-message-bytes %d is too small: use at least 1024", n)
	}
	if n := c.Int("max-concurrent-calls"); n < 1 {
		return usagef("--max-concurrent-calls must be at least 1, got %d", n)
	}
	if d := c.Duration("progress-interval"); d <= 0 {
		return usagef("--progress-interval must be positive, got %v", d)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return usagef("invalid --log-level %q: use debug, info, warn or error", c.String("log-level"))
	}
	logger := slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: level}))
	limitMemory(c.Int("max-message-bytes"))

	info := release.Current()
	if len(command) > 0 {
		return serveCommandOverHTTP(c, command, logger)
	}
	files := c.StringSlice("manifest")
	opts := &mcp.ServerOptions{
		MaxMessageBytes:    c.Int("max-message-bytes"),
		MaxConcurrentCalls: c.Int("max-concurrent-calls"),
		Logger:             logger,
	}
	// Manifest tools keep the whole output of the results they cut, as
	// resources of the session; removed when serve returns.
	var outputs *spill.Store
	if len(files) > 0 {
		outputs = spill.New(0, 0)
		defer outputs.Close()
		opts.Resources = outputs
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "mcpship", Version: info.Version}, opts)
	sets := []string(*c.Generic("set").(*listFlag))
	var ms []*manifest.Manifest
	if len(files) > 0 {
		var err error
		if ms, err = loadManifests(files, sets); err != nil {
			return err
		}
		for _, m := range ms {
			m.ProgressInterval = c.Duration("progress-interval")
			m.Logger = logger
			m.Outputs = outputs
			// What makes calls fail here, such as a program not on PATH,
			// goes to the client's log, and doctor shows it.
			if w := m.Warnings(); w != nil {
				for _, p := range w.List {
					logger.Warn(strings.TrimPrefix(p.Message, "warning: "), "manifest", w.File, "at", p.Path)
				}
			}
		}
		if err := addManifestTools(srv, ms); err != nil {
			return err
		}
	} else if len(sets) > 0 {
		return usagef("--set needs --manifest: it gives defaults to manifest inputs")
	} else if err := addSelfTools(srv); err != nil {
		return err
	}

	// SIGINT and SIGTERM stay caught until the calls' processes are
	// stopped: ServeStdio (and the HTTP server) stop catching them when
	// they return, and another signal while the calls are being stopped (a
	// second Ctrl-C) would end mcpship with its commands' children still
	// running. The wait is bounded by the grace periods.
	caught := make(chan os.Signal, 1)
	signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(caught)
	var err error
	if transport == "http" {
		err = httpserve.Serve(c.Context, srv, httpOptions(c, logger))
	} else {
		logger.Info("serving", "transport", "stdio", "tools", len(srv.Tools()), "version", info.Version)
		// Standard output belongs to the protocol: mcpship is a program, so
		// a stray print anywhere in the process goes to standard error.
		err = srv.ServeStdio(c.Context, &mcp.StdioOptions{Stdin: c.App.Reader, Stdout: c.App.Writer, RedirectStdout: true})
	}
	for _, m := range ms {
		m.Wait() // cancelled calls stop their process groups first
	}
	return serveError(err)
}

func serveError(err error) error {
	var usage *httpserve.UsageError
	if errors.As(err, &usage) {
		return usagef("%s", usage.Error())
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// httpOptions are the options of serving over HTTP that the flags give.
func httpOptions(c *cli.Context, logger *slog.Logger) httpserve.Options {
	calls := 64
	if c.IsSet("max-concurrent-calls") {
		calls = c.Int("max-concurrent-calls")
	}
	return httpserve.Options{
		Listen:         c.String("listen"),
		TokenFile:      c.String("auth-token-file"),
		SessionKeyFile: c.String("session-key-file"),
		DrainTimeout:   c.Duration("drain-timeout"),
		DrainGrace:     c.Duration("drain-grace"),
		HTTP: mcp.HTTPOptions{
			AllowedOrigins:     c.StringSlice("allow-origin"),
			MaxBodyBytes:       c.Int64("max-body-bytes"),
			MaxConcurrentCalls: calls,
			MaxSessions:        c.Int("max-sessions"),
			SessionIdleTimeout: c.Duration("session-idle-timeout"),
			SessionLifetime:    c.Duration("session-lifetime"),
		},
		Logger: logger,
		Stderr: c.App.ErrWriter,
	}
}

// bridgeFlags are the flags of serving a server command.
var bridgeFlags = []string{"call-timeout", "start-timeout", "child-per-session", "max-children", "child-idle-timeout", "env-from-header"}

// serveCommandOverHTTP serves the stdio MCP server command over HTTP
// (internal/bridge): it starts the command first, so that one that does
// not run or does not speak MCP fails here, before anything listens.
func serveCommandOverHTTP(c *cli.Context, command []string, logger *slog.Logger) error {
	for _, name := range []string{"call-timeout", "start-timeout", "child-idle-timeout"} {
		if d := c.Duration(name); d <= 0 {
			return usagef("--%s must be positive, got %v", name, d)
		}
	}
	if n := c.Int("max-children"); n < 1 {
		return usagef("--max-children must be at least 1, got %d", n)
	}
	var headers []bridge.EnvHeader
	for _, spec := range c.StringSlice("env-from-header") {
		eh, err := bridge.ParseEnvHeader(spec)
		if err != nil {
			return usagef("--env-from-header %q: %v", spec, err)
		}
		headers = append(headers, eh)
	}
	b, err := bridge.Start(bridge.Options{
		Command:      command,
		CallTimeout:  c.Duration("call-timeout"),
		StartTimeout: c.Duration("start-timeout"),
		PerSession:   c.Bool("child-per-session"),
		MaxChildren:  c.Int("max-children"),
		IdleTimeout:  c.Duration("child-idle-timeout"),
		EnvHeaders:   headers,
		Logger:       logger,
		Stderr:       c.App.ErrWriter,
	})
	var start *bridge.StartError
	if errors.As(err, &start) && start.NotFound {
		return usagef("%s", err.Error())
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer b.Close()
	serverInfo, instructions := b.Info()
	srv := mcp.NewServer(serverInfo, &mcp.ServerOptions{
		Instructions:       instructions,
		MaxMessageBytes:    c.Int("max-message-bytes"),
		MaxConcurrentCalls: c.Int("max-concurrent-calls"),
		Forward:            b,
		Logger:             logger,
	})
	b.Attach(srv)
	caught := make(chan os.Signal, 1)
	signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(caught)
	o := httpOptions(c, logger)
	o.Health = b.Health
	o.Serving = []any{"command", command[0]}
	return serveError(httpserve.Serve(c.Context, srv, o))
}

// limitMemory sets the runtime's soft memory limit to three times the
// message cap (at least 32 MiB), unless GOMEMLIMIT sets one. A call at the cap keeps two or
// three copies of its message live for a moment (the line read, the
// arguments, their decoded values, the argument list given to the
// program), and without a limit the heap grows to twice what was live
// before it is collected. The limit only makes collections come sooner;
// BENCHMARKS.md has the figures.
func limitMemory(maxMessageBytes int) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	// Never below 32 MiB: with a small cap, a limit under what the
	// runtime itself holds would have it collect without end.
	debug.SetMemoryLimit(max(3*int64(maxMessageBytes), 32<<20))
}

// selfTools are mcpship's own read-only commands, served through the
// in-process adapter when serve has no manifest.
var selfTools = cliadapter.Options{
	Prefix: "mcpship_",
	Tools: []cliadapter.Tool{
		{Command: "version", ReadOnly: true, NoArgs: true, JSON: true, Title: "mcpship version",
			Description: "Report the version, commit, build date and platform of this mcpship server; with json, as a JSON object."},
	},
	ExitCode: exitCode,
}

// addSelfTools registers mcpship's own read-only tools.
func addSelfTools(srv *mcp.Server) error {
	// Each call builds a fresh app; only the commands served are built, so
	// a call does not pay for the rest of mcpship's commands.
	return cliadapter.AddTools(srv, func() *cli.App {
		return newAppWith(nil, io.Discard, io.Discard, []*cli.Command{versionCommand()})
	}, selfTools)
}
