package main

import (
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/bridge"
	"github.com/mcpship/mcpship/internal/httpserve"
	"github.com/mcpship/mcpship/mcp"
)

// serveOptions are serve's flags, read and checked once: a mistake in
// any of them is a usage error before anything starts.
type serveOptions struct {
	// command is the stdio server command after "--", served over HTTP
	// through a bridge; empty to serve mcpship's tools.
	command   []string
	transport string // "stdio" or "http"
	// manifests are the --manifest files; none serves mcpship's own
	// tools. sets are the --set defaults for their inputs.
	manifests, sets  []string
	progressInterval time.Duration
	requireSandbox   bool // refuse read-only tools left outside the sandbox
	maxMessageBytes  int
	maxCalls         int // over stdio; http.HTTP.MaxConcurrentCalls over HTTP
	logLevel         slog.Level
	http             httpserve.Options // with --transport http, but Logger and Stderr
	bridge           bridge.Options    // with a command, but Logger and Stderr

	stdin          io.Reader
	stdout, stderr io.Writer
}

// httpOnlyFlags are the flags of serving over HTTP.
var httpOnlyFlags = []string{"listen", "auth-token-file", "allow-origin", "max-body-bytes", "max-sessions", "session-idle-timeout",
	"session-key-file", "session-lifetime", "drain-timeout", "drain-grace"}

// bridgeFlags are the flags of serving a server command.
var bridgeFlags = []string{"call-timeout", "start-timeout", "child-per-session", "max-children", "child-idle-timeout", "env-from-header", "allow-unsafe-env"}

// readServeOptions reads serve's flags and arguments into options, and
// checks them.
func readServeOptions(c *cli.Context) (serveOptions, error) {
	o := serveOptions{
		command:          c.Args().Slice(),
		transport:        c.String("transport"),
		manifests:        c.StringSlice("manifest"),
		sets:             []string(*c.Generic("set").(*listFlag)),
		progressInterval: c.Duration("progress-interval"),
		requireSandbox:   c.Bool("require-sandbox"),
		maxMessageBytes:  c.Int("max-message-bytes"),
		maxCalls:         c.Int("max-concurrent-calls"),
		http:             httpFlags(c),
		bridge:           bridgeOptions(c),
		stdin:            c.App.Reader,
		stdout:           c.App.Writer,
		stderr:           c.App.ErrWriter,
	}
	dashes, _ := c.App.Metadata["dashes"].(bool)
	for _, check := range []func() error{
		func() error { return o.checkCommand(c, dashes) },
		func() error { return o.checkTransport(c) },
		o.checkLimits,
		func() error { return o.checkBridge(c) },
	} {
		if err := check(); err != nil {
			return o, err
		}
	}
	if err := o.logLevel.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return o, usagef("invalid --log-level %q: use debug, info, warn or error", c.String("log-level"))
	}
	if len(o.sets) > 0 && len(o.manifests) == 0 {
		return o, usagef("--set needs --manifest: it gives defaults to manifest inputs")
	}
	return o, nil
}

// checkCommand checks the server command after "--" against the flags
// that go with it or without it.
func (o *serveOptions) checkCommand(c *cli.Context, dashes bool) error {
	switch command := o.command; {
	case dashes && len(command) == 0:
		return usagef("-- needs the server command after it: mcpship serve --transport http -- COMMAND [ARGS...]")
	case !dashes && len(command) > 0:
		return usagef("serve takes no arguments, got %q; to serve a stdio server command, put it after --: mcpship serve --transport http -- COMMAND [ARGS...]", command[0])
	case len(command) > 0 && o.transport != "http":
		return usagef("a server command after -- is served over HTTP: add --transport http (mcpship serve --transport http -- %s)", strings.Join(command, " "))
	case len(command) > 0 && o.requireSandbox:
		return usagef("--require-sandbox confines the tools of --manifest; a server command after -- runs its tools in its own process, which mcpship does not confine")
	case len(command) > 0 && (len(o.manifests) > 0 || c.IsSet("set")):
		return usagef("--manifest and --set serve mcpship's own tools; a server command after -- serves that server's: give one or the other")
	case len(command) > 0:
		return nil
	}
	for _, name := range bridgeFlags {
		if c.IsSet(name) {
			return usagef("--%s needs a server command after --: mcpship serve --transport http --%s ... -- COMMAND [ARGS...]", name, name)
		}
	}
	return nil
}

// checkTransport checks --transport and the flags of serving over HTTP.
func (o *serveOptions) checkTransport(c *cli.Context) error {
	switch o.transport {
	case "stdio":
		for _, name := range httpOnlyFlags {
			if c.IsSet(name) {
				return usagef("--%s needs --transport http", name)
			}
		}
		return nil
	case "http":
	default:
		return usagef("unsupported --transport %q: use \"stdio\" or \"http\"", o.transport)
	}
	h := o.http.HTTP
	switch {
	case h.MaxBodyBytes < 1024:
		return usagef("--max-body-bytes %d is too small: use at least 1024", h.MaxBodyBytes)
	case h.MaxSessions < 1:
		return usagef("--max-sessions must be at least 1, got %d", h.MaxSessions)
	}
	if err := positive(c, "session-idle-timeout", "session-lifetime", "drain-timeout", "drain-grace"); err != nil {
		return err
	}
	if c.IsSet("session-lifetime") && !c.IsSet("session-key-file") {
		return usagef("--session-lifetime needs --session-key-file: without a key, sessions end when idle (--session-idle-timeout)")
	}
	return nil
}

// checkLimits checks the limits of every mode.
func (o *serveOptions) checkLimits() error {
	switch {
	case o.maxMessageBytes < 1024:
		return usagef("--max-message-bytes %d is too small: use at least 1024", o.maxMessageBytes)
	case o.maxCalls < 1:
		return usagef("--max-concurrent-calls must be at least 1, got %d", o.maxCalls)
	case o.progressInterval <= 0:
		return usagef("--progress-interval must be positive, got %v", o.progressInterval)
	}
	return nil
}

// checkBridge checks the flags of serving a server command, and reads
// its --env-from-header.
func (o *serveOptions) checkBridge(c *cli.Context) error {
	if len(o.command) == 0 {
		return nil
	}
	if err := positive(c, "call-timeout", "start-timeout", "child-idle-timeout"); err != nil {
		return err
	}
	if o.bridge.MaxChildren < 1 {
		return usagef("--max-children must be at least 1, got %d", o.bridge.MaxChildren)
	}
	allowed, used := map[string]bool{}, map[string]bool{}
	for _, name := range c.StringSlice("allow-unsafe-env") {
		allowed[strings.ToUpper(name)] = true
	}
	for _, spec := range c.StringSlice("env-from-header") {
		eh, err := bridge.ParseEnvHeader(spec)
		if err != nil {
			return usagef("--env-from-header %q: %v", spec, err)
		}
		if err := checkEnvVar(spec, eh.Var, allowed); err != nil {
			return err
		}
		used[strings.ToUpper(eh.Var)] = true
		o.bridge.EnvHeaders = append(o.bridge.EnvHeaders, eh)
	}
	for name := range allowed {
		if !used[name] {
			return usagef("--allow-unsafe-env %s names no variable of an --env-from-header: give it with the --env-from-header HEADER=%s it allows", name, name)
		}
	}
	return nil
}

// checkEnvVar refuses an --env-from-header spec whose variable changes
// what the server loads, finds, runs or trusts, unless --allow-unsafe-env
// names it.
func checkEnvVar(spec, name string, allowed map[string]bool) error {
	why := unsafeEnv(name)
	if why == "" || allowed[strings.ToUpper(name)] {
		return nil
	}
	return usagef("--env-from-header %q: %s %s, so any HTTP client could change what the server runs; "+
		"pass the header to a variable the server reads as data (such as API_KEY), "+
		"or if the server must take %s from each request, add --allow-unsafe-env %s", spec, name, why, name, name)
}

// positive is a usage error for the first of the duration flags names
// that is not positive.
func positive(c *cli.Context, names ...string) error {
	for _, name := range names {
		if d := c.Duration(name); d <= 0 {
			return usagef("--%s must be positive, got %v", name, d)
		}
	}
	return nil
}

// httpFlags are the options of serving over HTTP that the flags give.
func httpFlags(c *cli.Context) httpserve.Options {
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
	}
}

// bridgeOptions are the options of serving a server command that the
// flags give, but its --env-from-header.
func bridgeOptions(c *cli.Context) bridge.Options {
	return bridge.Options{
		Command:      c.Args().Slice(),
		CallTimeout:  c.Duration("call-timeout"),
		StartTimeout: c.Duration("start-timeout"),
		PerSession:   c.Bool("child-per-session"),
		MaxChildren:  c.Int("max-children"),
		IdleTimeout:  c.Duration("child-idle-timeout"),
	}
}
