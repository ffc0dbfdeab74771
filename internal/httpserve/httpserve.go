// Package httpserve runs an MCP server over HTTP for a command line: the
// listener, the safety rules that depend on it (loopback unless a token
// is set), the bearer token and the session key from files, the health
// check at /healthz, and draining on SIGINT and SIGTERM. The protocol is [mcp.HTTPHandler]'s;
// mcpship serve and the adapters' "mcp" commands share this package, so
// their flags and messages are one.
package httpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpship/mcpship/mcp"
)

// Defaults of the flags.
const (
	DefaultListen       = "127.0.0.1:8080"
	DefaultDrainTimeout = 30 * time.Second
	DefaultDrainGrace   = 5 * time.Second
	// TokenEnv names the variable that holds the token when no file does.
	TokenEnv = "MCPSHIP_AUTH_TOKEN"
	// Path is where the MCP endpoint is served.
	Path = "/mcp"
	// HealthPath answers 200 while the server takes new calls, 503 once
	// it drains or while Options.Health says it is down.
	HealthPath = "/healthz"
	// MinSessionKeyBytes is the shortest key --session-key-file may hold.
	MinSessionKeyBytes = 32
)

// The help of the flags, shared by every command that serves over HTTP.
const (
	TransportUsage    = "the `NAME` of the transport to serve on: stdio or http"
	ListenUsage       = "with --transport http, the `ADDR` (host:port) to listen on; a non-loopback address needs a token"
	TokenFileUsage    = "with --transport http, require the bearer token in `FILE` (else $" + TokenEnv + ")"
	AllowOriginUsage  = "with --transport http, also allow browser requests from `ORIGIN` (repeatable); localhost origins are always allowed"
	SessionKeyUsage   = "with --transport http, sign legacy session ids with the key in `FILE` (at least 32 bytes), so that replicas sharing it serve each other's sessions"
	DrainTimeoutUsage = "with --transport http, on SIGTERM how long running calls may finish before they are cancelled; new calls get 503 meanwhile"
	DrainGraceUsage   = "with --transport http, once /healthz has been probed, how long after SIGTERM the server keeps its port open, answering 503, so that the load balancer's health check takes it out before it stops listening"
)

// Options configure [Serve].
type Options struct {
	// Listen is the address to listen on; default DefaultListen.
	Listen string
	// TokenFile holds the bearer token; when empty, $MCPSHIP_AUTH_TOKEN.
	TokenFile string
	// SessionKeyFile, when set, holds the key that signs session ids
	// (mcp.HTTPOptions.SessionKey).
	SessionKeyFile string
	// HTTP are the handler's options; Serve sets AuthToken and
	// SessionKey.
	HTTP mcp.HTTPOptions
	// DrainTimeout bounds how long running calls may finish after a
	// signal; default DefaultDrainTimeout.
	DrainTimeout time.Duration
	// DrainGrace is how long after a signal the listener stays open,
	// answering /healthz and new calls with 503, when /healthz has been
	// probed since the start (something balances or orchestrates the
	// server and must see it drain before it stops listening); default
	// DefaultDrainGrace. It runs alongside DrainTimeout, not after it.
	DrainGrace time.Duration
	// Logger gets the diagnostics; Stderr, the line that tells where the
	// server listens.
	Logger *slog.Logger
	Stderr io.Writer
	// Ready, if set, is called with the address once listening.
	Ready func(addr net.Addr)
	// Health, if set, is asked by each probe of HealthPath while the
	// server is not draining: a reason makes it answer 503 with the
	// reason and Retry-After (retry rounded up to a second, at least
	// one), as while the server command of a bridge is down. The reason
	// is shown without a token.
	Health func() (reason string, retry time.Duration)
	// Serving are the attributes of the "serving" log line that say what
	// is served; default the number of tools.
	Serving []any
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
	b, err := readSecretFile("--auth-token-file", file, "choose the token", "write the token into it, readable only by the user that serves (chmod 400)")
	if err != nil {
		return "", err
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

// SessionKey returns the key in file: its bytes, or when it is text (as
// "openssl rand -hex 32" writes), the text without the white space around
// it. It refuses a file that is missing, unreadable, not a regular file,
// writable by every user, or holds fewer than MinSessionKeyBytes bytes.
// No error shows the key.
func SessionKey(file string) ([]byte, error) {
	howTo := fmt.Sprintf("write a key of at least %d random bytes into it, for example: openssl rand -hex 32 > %s", MinSessionKeyBytes, file)
	b, err := readSecretFile("--session-key-file", file, "forge sessions", howTo)
	if err != nil {
		return nil, err
	}
	if text(b) {
		b = bytes.TrimSpace(b)
	}
	if len(b) < MinSessionKeyBytes {
		return nil, usagef("--session-key-file %s holds a key of %d bytes, fewer than the %d it needs: %s", file, len(b), MinSessionKeyBytes, howTo)
	}
	return b, nil
}

// readSecretFile reads the file of a secret given to flag: a regular file
// that not every user may write, of at most 64 KiB. howTo says how to
// make one; risk, what a user who could write it could do. It looks at the file before it opens it, so a FIFO or device
// is refused rather than blocking or read without end.
func readSecretFile(flag, file, risk, howTo string) ([]byte, error) {
	fail := func(err error) ([]byte, error) {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, usagef("%s %s does not exist: %s", flag, file, howTo)
		case errors.Is(err, fs.ErrPermission):
			return nil, usagef("%s %s cannot be read: permission denied; make it readable by the user that serves (chmod 400 and chown)", flag, file)
		}
		return nil, usagef("%s %s cannot be read: %v", flag, file, unwrapPath(err))
	}
	before, err := os.Stat(file)
	if err != nil {
		return fail(err)
	}
	if !before.Mode().IsRegular() {
		return nil, usagef("%s %s is not a regular file: %s", flag, file, howTo)
	}
	f, err := os.Open(file)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if !fi.Mode().IsRegular() || !os.SameFile(before, fi) {
		return nil, usagef("%s %s changed while it was read: try again", flag, file)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o002 != 0 {
		return nil, usagef("%s %s is writable by every user, who could then %s: chmod o-w %s (or 400)", flag, file, risk, file)
	}
	const most = 64 << 10
	b, err := io.ReadAll(io.LimitReader(f, most+1))
	switch {
	case err != nil:
		return fail(err)
	case len(b) > most:
		return nil, usagef("%s %s is larger than 64 KiB: it should hold only the secret; %s", flag, file, howTo)
	}
	return b, nil
}

// text reports whether b is printable UTF-8 text, lines and spaces
// allowed.
func text(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// unwrapPath drops the operation and path of a *fs.PathError, which the
// messages name already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Serve serves srv over HTTP at Path until ctx is done or the process gets
// SIGINT or SIGTERM, then drains: /healthz answers 503, new requests get
// 503 with Retry-After (a load balancer sends them to another replica),
// every answer closes its connection, GET streams end, running calls get
// DrainTimeout to finish, then they are cancelled. If /healthz has been
// probed, the listener stays open for DrainGrace too, so that the prober
// sees the 503 before connections are refused. A second signal cancels
// the calls and ends the wait at once.
func Serve(ctx context.Context, srv *mcp.Server, o Options) error {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	if o.DrainGrace <= 0 {
		o.DrainGrace = DefaultDrainGrace
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
	hopts := o.HTTP
	hopts.AuthToken = token
	if o.SessionKeyFile != "" {
		if hopts.SessionKey, err = SessionKey(o.SessionKeyFile); err != nil {
			return err
		}
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
	h := mcp.NewHTTPHandler(srv, &hopts)
	var draining, probed atomic.Bool
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	mux.HandleFunc(HealthPath, func(w http.ResponseWriter, r *http.Request) {
		probed.Store(true)
		health(w, r, draining.Load(), o.Health)
	})
	mux.HandleFunc("/", notFound)
	hs := &http.Server{
		Handler:           closeWhileDraining(mux, &draining),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelDebug),
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	what := o.Serving
	if what == nil {
		what = []any{"tools", len(srv.Tools())}
	}
	o.Logger.Info("serving", append([]any{"transport", "http", "addr", addr.String(), "auth", token != ""}, what...)...)
	// The address line comes last: scripts and tests wait for it, and
	// then read what was logged before it.
	fmt.Fprintf(o.Stderr, "serving MCP on http://%s%s\n", addr, Path)
	if o.Ready != nil {
		o.Ready(addr)
	}
	select {
	case err := <-served:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	case s := <-sig:
		o.Logger.Info("draining: new calls get 503; running calls may finish", "signal", s.String(), "bound", o.DrainTimeout)
	}
	// Draining: the listener stays open, so that a load balancer sees
	// /healthz fail and new requests refused with 503 rather than a
	// connection refused, until the calls running have finished and,
	// if something probes /healthz, the grace has passed. Closing it
	// sooner resets the connections that the kernel has accepted for
	// it but the server has not: a balancer that has not yet seen the
	// 503 of /healthz sends requests on them, and those fail after
	// they were sent, where no balancer may retry them.
	draining.Store(true)
	bound, cancel := context.WithTimeout(context.Background(), o.DrainTimeout)
	defer cancel()
	grace := time.Duration(0)
	if probed.Load() {
		grace = o.DrainGrace
		o.Logger.Info("draining: the port stays open while the health check takes the server out", "grace", grace)
	}
	graced := time.NewTimer(grace)
	defer graced.Stop()
	again := make(chan struct{})
	go func() {
		select {
		case <-sig:
			o.Logger.Warn("second signal: cancelling the running calls")
			close(again)
			cancel()
		case <-bound.Done():
		}
	}()
	if err := h.Shutdown(bound); err != nil {
		o.Logger.Warn("calls still running when draining ended were cancelled", "waited", o.DrainTimeout)
	}
	select {
	case <-graced.C:
	case <-again:
	}
	// The cancelled calls have answered; close the connections, idle
	// first, those still busy after a moment.
	closing, stop := context.WithTimeout(context.Background(), 2*time.Second)
	defer stop()
	if hs.Shutdown(closing) != nil {
		hs.Close()
	}
	return nil
}

// closeWhileDraining answers each request on a connection that it then
// closes, once draining: a balancer that keeps connections to the server
// open to reuse them learns with that answer not to, rather than finding
// the connection closed under the next request it sends.
func closeWhileDraining(next http.Handler, draining *atomic.Bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if draining.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// health answers the health check: 200 while the server takes new calls,
// 503 once it drains or while down gives a reason. It tells nothing else,
// so it needs no token.
func health(w http.ResponseWriter, r *http.Request, draining bool, down func() (string, time.Duration)) {
	var why string
	var retry time.Duration
	if down != nil && !draining {
		why, retry = down()
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/plain; charset=utf-8")
	hdr.Set("Cache-Control", "no-store")
	switch {
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		hdr.Set("Allow", "GET, HEAD")
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, "method not allowed: use GET\n")
	case draining:
		hdr.Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "draining: the server is shutting down and takes no new calls\n")
	case why != "":
		hdr.Set("Retry-After", strconv.FormatInt(max(int64((retry+time.Second-1)/time.Second), 1), 10))
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, why+"\n")
	default:
		io.WriteString(w, "ok\n")
	}
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
