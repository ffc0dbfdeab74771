package main

import (
	"context"
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
			&cli.BoolFlag{Name: "require-sandbox", Usage: requireSandboxUsage},
			&cli.DurationFlag{Name: "progress-interval", Value: manifest.DefaultProgressInterval, Usage: "after this long without a new stderr line, a running manifest command sends a heartbeat to a call that asked for progress"},
			&cli.DurationFlag{Name: "call-timeout", Value: bridge.DefaultCallTimeout, Usage: "with a server command after --, fail a request it has not answered in this long"},
			&cli.DurationFlag{Name: "start-timeout", Value: bridge.DefaultStartTimeout, Usage: "with a server command after --, how long it may take to start and answer initialize"},
			&cli.BoolFlag{Name: "child-per-session", Usage: "with a server command after --, start one for each legacy session and each stateless request running, for servers that serve one client at a time"},
			&cli.IntFlag{Name: "max-children", Value: bridge.DefaultMaxChildren, Usage: "with a server command after --, the most of its processes running at once"},
			&cli.DurationFlag{Name: "child-idle-timeout", Value: bridge.DefaultIdleTimeout, Usage: "with a server command after --, stop a process of it (but the first) idle this long"},
			&cli.StringSliceFlag{Name: "env-from-header", Usage: "with a server command after --, pass request header `HEADER=VAR` to its environment variable VAR (repeatable); requests with different values never share a process"},
			&cli.StringSliceFlag{Name: "allow-unsafe-env", Usage: "with --env-from-header, let a request header set `VAR` though it changes what the server loads, finds, runs or trusts (LD_*, DYLD_*, PATH and *PATH, *HOME, interpreter options such as NODE_OPTIONS, shell and git variables, proxies, MCPSHIP_*), refused otherwise (repeatable)"},
		},
		OnUsageError: usageError,
		Action:       serve,
	}
}

func serve(c *cli.Context) error {
	o, err := readServeOptions(c)
	if err != nil {
		return err
	}
	return runServe(c.Context, o)
}

// runServe serves what o chooses: the server command after "--" over
// HTTP, the tools of the manifests, or mcpship's own read-only tools.
func runServe(ctx context.Context, o serveOptions) error {
	logger := slog.New(slog.NewTextHandler(o.stderr, &slog.HandlerOptions{Level: o.logLevel}))
	limitMemory(o.maxMessageBytes)
	switch {
	case len(o.command) > 0:
		return serveBridge(ctx, o, logger)
	case len(o.manifests) > 0:
		return serveManifests(ctx, o, logger)
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "mcpship", Version: release.Current().Version}, o.serverOptions(logger))
	if err := addSelfTools(srv); err != nil {
		return err
	}
	if err := checkSandbox(srv, logger, o.requireSandbox); err != nil {
		return err
	}
	defer catchSignals()()
	return serveError(listen(ctx, srv, o, logger))
}

// serveManifests serves the tools that o's manifests declare.
func serveManifests(ctx context.Context, o serveOptions, logger *slog.Logger) error {
	ms, err := loadManifests(o.manifests, o.sets)
	if err != nil {
		return err
	}
	// Manifest tools keep the whole output of the results they cut, as
	// resources of the session; removed when serve returns.
	outputs := spill.New(0, 0)
	defer outputs.Close()
	opts := o.serverOptions(logger)
	opts.Resources = outputs
	srv := mcp.NewServer(mcp.Implementation{Name: "mcpship", Version: release.Current().Version}, opts)
	for _, m := range ms {
		m.ProgressInterval = o.progressInterval
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
	if err := checkSandbox(srv, logger, o.requireSandbox); err != nil {
		return err
	}
	defer catchSignals()()
	err = listen(ctx, srv, o, logger)
	for _, m := range ms {
		m.Wait() // cancelled calls stop their process groups first
	}
	return serveError(err)
}

// serveBridge serves the stdio MCP server command over HTTP
// (internal/bridge): it starts the command first, so that one that does
// not run or does not speak MCP fails here, before anything listens.
func serveBridge(ctx context.Context, o serveOptions, logger *slog.Logger) error {
	bo := o.bridge
	bo.Logger, bo.Stderr = logger, o.stderr
	b, err := bridge.Start(bo)
	var start *bridge.StartError
	if errors.As(err, &start) && start.NotFound {
		return usagef("%s", err.Error())
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer b.Close()
	srv := b.NewServer(*o.serverOptions(logger))
	defer catchSignals()()
	h := o.httpOptions(logger)
	h.Health = b.Health
	h.Serving = []any{"command", o.command[0]}
	return serveError(httpserve.Serve(ctx, srv, h))
}

func (o serveOptions) serverOptions(logger *slog.Logger) *mcp.ServerOptions {
	return &mcp.ServerOptions{MaxMessageBytes: o.maxMessageBytes, MaxConcurrentCalls: o.maxCalls, Logger: logger}
}

func (o serveOptions) httpOptions(logger *slog.Logger) httpserve.Options {
	h := o.http
	h.Logger, h.Stderr = logger, o.stderr
	return h
}

// catchSignals catches SIGINT and SIGTERM until the function it returns
// is called. Serving stops catching them when it returns (ServeStdio and
// the HTTP server), and another signal while the calls are being stopped
// (a second Ctrl-C) would end mcpship with its commands' children still
// running; the wait is bounded by the grace periods.
func catchSignals() (stop func()) {
	caught := make(chan os.Signal, 1)
	signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
	return func() { signal.Stop(caught) }
}

// listen serves srv over o's transport until the client goes or a
// signal comes.
func listen(ctx context.Context, srv *mcp.Server, o serveOptions, logger *slog.Logger) error {
	if o.transport == "http" {
		return httpserve.Serve(ctx, srv, o.httpOptions(logger))
	}
	logger.Info("serving", "transport", "stdio", "tools", len(srv.Tools()), "version", release.Current().Version)
	// Standard output belongs to the protocol: mcpship is a program, so
	// a stray print anywhere in the process goes to standard error.
	return srv.ServeStdio(ctx, &mcp.StdioOptions{Stdin: o.stdin, Stdout: o.stdout, RedirectStdout: true})
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
