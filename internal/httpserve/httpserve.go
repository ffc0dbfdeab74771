// Package httpserve runs an MCP server over HTTP for a command line: the
// listener, the safety rules that depend on it (loopback unless a token
// is set), the bearer token from a file or the environment, and graceful
// shutdown on SIGINT and SIGTERM. The protocol is [mcp.HTTPHandler]'s;
// mcpship serve and the adapters' "mcp" commands share this package, so
// their flags and messages are one.
package httpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// Defaults of the flags.
const (
	DefaultListen          = "127.0.0.1:8080"
	DefaultShutdownTimeout = 10 * time.Second
	// TokenEnv names the variable that holds the token when no file does.
	TokenEnv = "MCPSHIP_AUTH_TOKEN"
	// Path is where the MCP endpoint is served.
	Path = "/mcp"
)

// The help of the flags, shared by every command that serves over HTTP.
const (
	TransportUsage   = "the `NAME` of the transport to serve on: stdio or http"
	ListenUsage      = "with --transport http, the `ADDR` (host:port) to listen on; a non-loopback address needs a token"
	TokenFileUsage   = "with --transport http, require the bearer token in `FILE` (else $" + TokenEnv + ")"
	AllowOriginUsage = "with --transport http, also allow browser requests from `ORIGIN` (repeatable); localhost origins are always allowed"
)

// Options configure [Serve].
type Options struct {
	// Listen is the address to listen on; default DefaultListen.
	Listen string
	// TokenFile holds the bearer token; when empty, $MCPSHIP_AUTH_TOKEN.
	TokenFile string
	// HTTP are the handler's options; Serve sets AuthToken.
	HTTP mcp.HTTPOptions
	// ShutdownTimeout bounds how long running calls may finish after a
	// signal; default DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Logger gets the diagnostics; Stderr, the line that tells where the
	// server listens.
	Logger *slog.Logger
	Stderr io.Writer
	// Ready, if set, is called with the address once listening.
	Ready func(addr net.Addr)
}

// UsageError is a mistake on the command line; its exit code is 64.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// ExitCode returns 64 (EX_USAGE).
func (e *UsageError) ExitCode() int { return 64 }

func usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// Token returns the bearer token: the contents of file without the white
// space around it, or $MCPSHIP_AUTH_TOKEN when file is empty; "" when
// neither is set.
func Token(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv(TokenEnv)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", usagef("--auth-token-file: %v", err)
	}
	tok := strings.TrimSpace(string(b))
	switch {
	case tok == "":
		return "", usagef("--auth-token-file %s is empty: write the token into it", file)
	case strings.ContainsAny(tok, " \t\r\n"):
		return "", usagef("--auth-token-file %s holds more than one word: a token has no white space", file)
	}
	return tok, nil
}

// Serve serves srv over HTTP at Path until ctx is done or the process gets
// SIGINT or SIGTERM, then shuts down gracefully: no new connections, GET
// streams end, running calls get ShutdownTimeout to finish, then they are
// cancelled.
func Serve(ctx context.Context, srv *mcp.Server, o Options) error {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	token, err := Token(o.TokenFile)
	if err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		return usagef("invalid --listen %q: use HOST:PORT, such as %s", o.Listen, DefaultListen)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w; choose another address with --listen", o.Listen, err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	if !addr.IP.IsLoopback() && token == "" {
		ln.Close()
		return usagef("refusing to listen on %s without a token: anyone who can reach it could run the tools; "+
			"use --auth-token-file FILE (or $%s), or listen on loopback (127.0.0.1:PORT)", o.Listen, TokenEnv)
	}
	hopts := o.HTTP
	hopts.AuthToken = token
	h := mcp.NewHTTPHandler(srv, &hopts)
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	mux.HandleFunc("/", notFound)
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelDebug),
	}
	sctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(o.Stderr, "serving MCP on http://%s%s\n", addr, Path)
	o.Logger.Info("serving", "transport", "http", "addr", addr.String(), "auth", token != "", "tools", len(srv.Tools()))
	if o.Ready != nil {
		o.Ready(addr)
	}
	select {
	case err := <-served:
		return fmt.Errorf("serve http: %w", err)
	case <-sctx.Done():
	}
	if ctx.Err() == nil {
		o.Logger.Info("stopped by signal; finishing running calls", "bound", o.ShutdownTimeout)
	}
	bound, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	hdone := make(chan error, 1)
	go func() { hdone <- h.Shutdown(bound) }()
	serr := hs.Shutdown(bound)
	if herr := <-hdone; herr != nil {
		o.Logger.Warn("calls still running at shutdown were cancelled", "waited", o.ShutdownTimeout)
	}
	if errors.Is(serr, context.DeadlineExceeded) {
		hs.Close()
	}
	return nil
}

// notFound answers every path but the endpoint, /.well-known/oauth-*
// among them: a 404 there tells clients to use the static token rather
// than look for an OAuth server.
func notFound(w http.ResponseWriter, r *http.Request) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32600, "message": fmt.Sprintf("not found: %s; the MCP endpoint is %s", r.URL.Path, Path)}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	w.Write(append(b, '\n'))
}
