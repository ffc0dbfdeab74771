// Package bridge serves a stdio MCP server command to HTTP clients: it
// starts the command, initialises it once, and forwards the requests of
// an [mcp.Server] to it (as its proxy, internal/mcpproxy), so that
// [mcp.HTTPHandler] serves it in both eras with its safety defaults and
// sessions. A child that exits is started again with backoff; while it is
// down, requests fail at once. Request ids are the bridge's own on the
// child's side, so that many clients share one child; a child per legacy
// session, or per value of the headers passed to its environment, is
// kept apart from the others. docs/http.md describes it for users.
package bridge

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpship/mcpship/internal/mcpproxy"
	"github.com/mcpship/mcpship/internal/procgroup"
	"github.com/mcpship/mcpship/mcp"
)

// Defaults of [Options].
const (
	DefaultCallTimeout  = 5 * time.Minute
	DefaultStartTimeout = time.Minute
	DefaultMaxChildren  = 16
	DefaultIdleTimeout  = 10 * time.Minute
)

// Backoff between starts of a child that exited: it doubles from
// firstBackoff up to maxBackoff with each exit that came less than
// stableAfter after its start, and starts again from firstBackoff after a
// run that lasted longer. crashLoop such exits in a row are a crash loop,
// logged as one, and wait maxBackoff.
const (
	firstBackoff = 250 * time.Millisecond
	maxBackoff   = 30 * time.Second
	stableAfter  = 30 * time.Second
	crashLoop    = 5
)

// supervision holds the times by which a bridge supervises its children;
// its own tests shorten them (Options.supervision).
type supervision struct {
	firstBackoff, maxBackoff, stableAfter time.Duration
	crashLoop                             int
	// stopGrace is how long a child that is stopped has to exit once its
	// input is closed, and again after SIGTERM, before it is killed.
	stopGrace time.Duration
	// pingTimeout bounds the wait for the ping that follows a request
	// that timed out (StartTimeout, when less, bounds it too).
	pingTimeout time.Duration
}

var defaultSupervision = supervision{firstBackoff: firstBackoff, maxBackoff: maxBackoff, stableAfter: stableAfter, crashLoop: crashLoop,
	stopGrace: 2 * time.Second, pingTimeout: 10 * time.Second}

// EnvHeader passes the value of the request header Header to the child's
// environment variable Var.
type EnvHeader struct {
	Header string
	Var    string
}

// Options configure a [Bridge].
type Options struct {
	// Command is the server command and its arguments.
	Command []string
	// CallTimeout bounds each request to the child; past it the request
	// is cancelled and fails. Default DefaultCallTimeout.
	CallTimeout time.Duration
	// StartTimeout bounds how long a child may take to answer initialize.
	// Default DefaultStartTimeout.
	StartTimeout time.Duration
	// PerSession gives each legacy session a child of its own, and each
	// stateless request a child no other request uses meanwhile, for
	// servers that serve one client at a time.
	PerSession bool
	// MaxChildren bounds the children running at once. Default
	// DefaultMaxChildren.
	MaxChildren int
	// IdleTimeout stops a child that has had no request for this long;
	// the first child, shared by requests without the EnvHeaders, is
	// kept. Default DefaultIdleTimeout.
	IdleTimeout time.Duration
	// EnvHeaders are the request headers passed to the child's
	// environment. Requests whose values differ never share a child, and
	// the variables are never inherited from mcpship's own environment.
	EnvHeaders []EnvHeader
	// Logger gets the diagnostics; Stderr, what the children write there.
	Logger *slog.Logger
	Stderr io.Writer

	supervision *supervision // nil for defaultSupervision
}

// Bridge runs the children of one server command; it is the proxy
// (internal/mcpproxy) of the [mcp.Server] that serves them.
type Bridge struct {
	opts Options
	sup  supervision
	log  *slog.Logger

	init json.RawMessage // the first child's initialize result
	caps json.RawMessage // the capabilities announced

	mu       sync.Mutex
	children map[string]*child
	first    *child // shared by requests without the EnvHeaders; never idle-stopped
	closed   bool
	sweeper  *time.Ticker
	stop     chan struct{}

	srv       atomic.Pointer[mcp.Server] // see NewServer
	smu       sync.Mutex
	sessions  map[string]*sessionState      // legacy sessions, by id
	listeners map[*child]map[*listener]bool // 2026-07-28 listens, by the child they listen to

	modern   bool     // the command speaks revision 2026-07-28 too (see speaksModern)
	stateKey [32]byte // authenticates the requestState of pending calls
	pmu      sync.Mutex
	pending  map[string]*pendingCall // by id
}

// StartError is a server command that could not be started or did not
// speak MCP; NotFound is set when the command does not exist.
type StartError struct {
	NotFound bool
	msg      string
}

func (e *StartError) Error() string { return e.msg }

// Start starts the command once and initialises it, so that what it
// offers is known before any client asks, and returns the bridge.
func Start(opts Options) (*Bridge, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("bridge: no command")
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.MaxChildren <= 0 {
		opts.MaxChildren = DefaultMaxChildren
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if _, err := exec.LookPath(opts.Command[0]); err != nil {
		return nil, &StartError{NotFound: true, msg: fmt.Sprintf("cannot run the server command %q: %v; give a program on PATH, or its path, after --", opts.Command[0], unwrapExec(err))}
	}
	sup := defaultSupervision
	if opts.supervision != nil {
		sup = *opts.supervision
	}
	b := &Bridge{opts: opts, sup: sup, log: opts.Logger, children: map[string]*child{}, stop: make(chan struct{}), sessions: map[string]*sessionState{},
		listeners: map[*child]map[*listener]bool{}, pending: map[string]*pendingCall{}}
	rand.Read(b.stateKey[:])
	key := b.key(nil, "")
	if opts.PerSession {
		key = b.key(nil, "borrow") + "#0" // the first a stateless request borrows
	}
	first := b.newChild(key, nil)
	cl, res, err := b.launch(first)
	if err != nil {
		return nil, &StartError{msg: err.Error()}
	}
	b.init = res
	b.caps = capabilities(res)
	b.modern = cl.modern
	b.children[first.key] = first
	b.first = first
	first.up(cl)
	b.sweeper = time.NewTicker(max(min(opts.IdleTimeout/4, 30*time.Second), 50*time.Millisecond))
	go b.sweep()
	return b, nil
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// Info returns the server's name and version and its instructions, from
// its initialize result.
func (b *Bridge) Info() (mcp.Implementation, string) {
	var r struct {
		ServerInfo   mcp.Implementation `json:"serverInfo"`
		Instructions string             `json:"instructions"`
	}
	_ = json.Unmarshal(b.init, &r)
	if r.ServerInfo.Name == "" {
		r.ServerInfo.Name = b.opts.Command[0]
	}
	return r.ServerInfo, r.Instructions
}

// Capabilities implements [mcpproxy.Proxy]: the child's, as it announced
// them (its notifications reach the sessions that they concern).
func (b *Bridge) Capabilities() json.RawMessage { return b.caps }

// capabilities returns the capabilities of an initialize result.
func capabilities(res json.RawMessage) json.RawMessage {
	var r struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(res, &r) != nil || len(r.Capabilities) == 0 || r.Capabilities[0] != '{' {
		return json.RawMessage("{}")
	}
	return r.Capabilities
}

// Serve implements [mcpproxy.Proxy]: it sends the request to the child
// that serves it, starting that child when it runs none, within
// CallTimeout.
func (b *Bridge) Serve(ctx context.Context, r *mcpproxy.Request) (json.RawMessage, error) {
	if b.asks(r) {
		return b.forwardAsking(ctx, r)
	}
	c, release, err := b.childFor(r)
	if err != nil {
		return nil, err
	}
	defer release()
	if r.Session != "" {
		b.joined(c, r.Session)
	}
	cl, err := c.get(ctx)
	if err != nil {
		return nil, err
	}
	if res, done, err := b.local(ctx, c, cl, r); done {
		return res, err
	}
	params := r.Params
	if r.ModernParams != nil && cl.modern {
		params = modernParams(r.ModernParams)
	}
	params, token := c.progress(r, params)
	if token != "" {
		defer c.forgetProgress(token)
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	var res json.RawMessage
	var p any
	if len(params) > 0 {
		p = params
	}
	// The request's claim on the child's log and progress messages ends
	// when its answer is read (answered), so that a message the child
	// writes after the answer is no longer the request's; leave again
	// for a call that ended otherwise.
	c.enter(r)
	err = cl.Call(context.WithValue(ctx, callKey{}, &call{r: r, token: token}), r.Method, p, &res)
	c.leave(r)
	if err != nil {
		return nil, b.callError(ctx, c, cl, r.Method, err)
	}
	return res, nil
}

// callError returns the error to answer for a request to the child that
// failed with err.
func (b *Bridge) callError(ctx context.Context, c *child, cl *proc, method string, err error) error {
	var rpcErr *mcp.Error
	switch {
	case errors.As(err, &rpcErr):
		return rpcErr
	case errors.Is(err, context.DeadlineExceeded):
		go c.check(cl)
		return &mcp.Error{Code: mcp.CodeInternalError, Message: fmt.Sprintf(
			"the server command did not answer %s within %v (mcpship serve --call-timeout); the request was cancelled", method, b.opts.CallTimeout)}
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, mcp.ErrConnectionClosed):
		<-c.downed(cl)
		return &mcp.Error{Code: mcp.CodeInternalError, Message: "the server command exited during the request: " + c.downReason()}
	}
	return err
}

// Close stops every child.
func (b *Bridge) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	close(b.stop)
	b.sweeper.Stop()
	children := b.children
	b.children = map[string]*child{}
	b.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range children {
		wg.Add(1)
		go func() { defer wg.Done(); c.shutdown() }()
	}
	wg.Wait()
}

// key is the key of the child for the given environment and session.
func (b *Bridge) key(env []string, session string) string {
	if len(env) == 0 && session == "" {
		return "shared"
	}
	h := sha256.New()
	for _, e := range env {
		h.Write([]byte(e))
		h.Write([]byte{0})
	}
	return session + "/" + hex.EncodeToString(h.Sum(nil))
}

// envFor returns the environment entries the request's headers give, in
// a fixed order; a header not sent sets nothing.
func (b *Bridge) envFor(h http.Header) []string {
	var env []string
	for _, eh := range b.opts.EnvHeaders {
		if v := h.Values(eh.Header); len(v) > 0 {
			env = append(env, eh.Var+"="+strings.Join(v, ", "))
		}
	}
	sort.Strings(env)
	return env
}

// childFor returns the child that serves r and a function to call when
// the request is done with it.
func (b *Bridge) childFor(r *mcpproxy.Request) (*child, func(), error) {
	env := b.envFor(r.Header)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, nil, &mcp.Error{Code: mcp.CodeInternalError, Message: "the server is shutting down"}
	}
	if !b.opts.PerSession && r.Session != "" && relayed(r.ClientCapabilities, false) != nil {
		// A client that can sample or elicit gets a child of its own,
		// which may send it those requests.
		c, err := b.keep(b.key(env, "session:"+r.Session), env, relayed(r.ClientCapabilities, true))
		if err != nil {
			return nil, nil, err
		}
		c.session = r.Session
		c.busy++
		return c, b.release(c), nil
	}
	if caps := relayed(r.ClientCapabilities, true); !b.modern && r.ModernParams != nil && caps != nil && !b.opts.PerSession {
		// A 2026-07-28 client that can give input sees what a legacy
		// child offers a client with its capabilities (its tools/list
		// may depend on them); its calls that may ask go to pending
		// calls (see asks).
		c, err := b.keep(b.key(env, "caps:"+string(caps)), env, caps)
		if err != nil {
			return nil, nil, err
		}
		c.busy++
		return c, b.release(c), nil
	}
	if !b.opts.PerSession {
		c, err := b.keep(b.key(env, ""), env, nil)
		if err != nil {
			return nil, nil, err
		}
		c.busy++
		return c, b.release(c), nil
	}
	if r.Session != "" {
		c, err := b.keep(b.key(env, "session:"+r.Session), env, relayed(r.ClientCapabilities, true))
		if err != nil {
			return nil, nil, err
		}
		c.session = r.Session
		c.busy++
		return c, b.release(c), nil
	}
	// A stateless request borrows a child that no session owns and no
	// other request uses.
	return b.borrow(b.key(env, "borrow"), env, nil)
}

// borrow returns a child whose key begins with prefix that no request
// uses, started with caps when it is new. The caller holds mu.
func (b *Bridge) borrow(prefix string, env []string, caps json.RawMessage) (*child, func(), error) {
	for key, c := range b.children {
		if strings.HasPrefix(key, prefix) && c.busy == 0 {
			c.busy++
			return c, b.release(c), nil
		}
	}
	for n := 0; ; n++ {
		key := fmt.Sprintf("%s#%d", prefix, n)
		if _, taken := b.children[key]; !taken {
			c, err := b.keep(key, env, caps)
			if err != nil {
				return nil, nil, err
			}
			c.busy++
			return c, b.release(c), nil
		}
	}
}

// relayed returns the capabilities of a client that a child of its own
// declares: sampling and elicitation, and with roots set roots too; nil
// when it has none of them.
func relayed(clientCaps json.RawMessage, roots bool) json.RawMessage {
	var caps map[string]json.RawMessage
	if json.Unmarshal(clientCaps, &caps) != nil {
		return nil
	}
	keep := map[string]json.RawMessage{}
	for _, name := range []string{"sampling", "elicitation", "roots"} {
		if v, ok := caps[name]; ok && (roots || name != "roots") {
			keep[name] = v
		}
	}
	if len(keep) == 0 {
		return nil
	}
	b, err := json.Marshal(keep)
	if err != nil {
		return nil
	}
	return b
}

func (b *Bridge) release(c *child) func() {
	return func() {
		b.mu.Lock()
		c.busy--
		c.lastUsed = time.Now()
		b.mu.Unlock()
	}
}

// keep returns the child of key, started with the client capabilities
// caps when it is new, making room for a new one when
// MaxChildren run: the one idle longest is stopped, or, when every child
// is in use, the request fails at once. The caller holds mu.
func (b *Bridge) keep(key string, env []string, caps json.RawMessage) (*child, error) {
	if c := b.children[key]; c != nil {
		return c, nil
	}
	if len(b.children) >= b.opts.MaxChildren {
		var oldest *child
		for _, c := range b.children {
			if c.busy == 0 && c != b.first && (oldest == nil || c.lastUsed.Before(oldest.lastUsed)) {
				oldest = c
			}
		}
		if oldest == nil {
			return nil, &mcp.Error{Code: mcp.CodeInternalError, Message: fmt.Sprintf(
				"too many server processes: all %d (mcpship serve --max-children) are in use; try again shortly", b.opts.MaxChildren)}
		}
		delete(b.children, oldest.key)
		b.log.Info("server process limit reached; the one idle longest was stopped", "limit", b.opts.MaxChildren)
		go oldest.shutdown()
	}
	c := b.newChild(key, env)
	c.caps = caps
	b.children[key] = c
	return c, nil
}

// sweep stops the children idle for IdleTimeout, but the first.
func (b *Bridge) sweep() {
	for {
		select {
		case <-b.stop:
			return
		case <-b.sweeper.C:
		}
		cutoff := time.Now().Add(-b.opts.IdleTimeout)
		b.mu.Lock()
		var idle []*child
		for key, c := range b.children {
			if c != b.first && c.busy == 0 && c.lastUsed.Before(cutoff) {
				delete(b.children, key)
				idle = append(idle, c)
			}
		}
		b.mu.Unlock()
		for _, c := range idle {
			b.log.Info("idle server process stopped", "idle", b.opts.IdleTimeout)
			go c.shutdown()
		}
	}
}

// launch starts the command for c and initialises it, within
// StartTimeout. It returns the client and the initialize result.
func (b *Bridge) launch(c *child) (*proc, json.RawMessage, error) {
	name := b.opts.Command[0]
	cmd := exec.Command(name, b.opts.Command[1:]...)
	cmd.Env = b.environ(c.env)
	cmd.Stderr = b.opts.Stderr
	procgroup.Set(cmd)
	opts := &mcp.ClientOptions{
		Info:             mcp.Implementation{Name: "mcpship-bridge", Version: "1"},
		OnNotification:   c.notification,
		Logger:           b.log.With("command", name),
		TerminateTimeout: b.sup.stopGrace,
	}
	withClientHooks(opts, c.request, c.answered)
	cl, err := mcp.StartCommand(cmd, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot start the server command %q: %v", name, unwrapExec(err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.StartTimeout)
	defer cancel()
	var res json.RawMessage
	caps := json.RawMessage("{}")
	if c.caps != nil {
		caps = c.caps
	}
	err = cl.Call(ctx, "initialize", map[string]any{
		"protocolVersion": mcp.LatestLegacyVersion,
		"capabilities":    caps,
		"clientInfo":      mcp.Implementation{Name: "mcpship-bridge", Version: "1"},
	}, &res)
	if err == nil {
		var r struct {
			ProtocolVersion string          `json:"protocolVersion"`
			Capabilities    json.RawMessage `json:"capabilities"`
		}
		if json.Unmarshal(res, &r) != nil || r.ProtocolVersion == "" {
			err = errors.New("its initialize result has no protocolVersion")
		}
	}
	if err == nil {
		err = cl.Notify("notifications/initialized", nil)
	}
	pr := &proc{Client: cl, pid: cmd.Process.Pid}
	if err == nil {
		pr.modern = speaksModern(ctx, cl)
		return pr, res, nil
	}
	if errors.Is(err, mcp.ErrConnectionClosed) {
		// Writing found the command gone: wait for its exit status.
		select {
		case <-cl.Done():
		case <-time.After(5 * time.Second):
		}
	}
	var why string
	select {
	case <-cl.Done():
		why = "it exited before it answered initialize"
		if werr := cl.Close(); werr != nil {
			why = fmt.Sprintf("it exited (%v) before it answered initialize", werr)
		}
		procgroup.Kill(pr.pid)
	default:
		go stopProc(pr)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		why = fmt.Sprintf("it did not answer initialize within %v (mcpship serve --start-timeout)", b.opts.StartTimeout)
	case why != "":
	default:
		why = fmt.Sprintf("initialize failed: %v", err)
	}
	msg := fmt.Sprintf("the server command %q does not speak MCP over stdio: %s", name, why)
	if s := strings.TrimSpace(cl.Stderr()); s != "" {
		msg += "; its stderr ended with: " + lastLine(s)
	}
	return nil, nil, errors.New(msg)
}

// environ is mcpship's environment without the EnvHeaders' variables,
// plus env.
func (b *Bridge) environ(env []string) []string {
	var out []string
	for _, e := range os.Environ() {
		name, _, _ := strings.Cut(e, "=")
		declared := false
		for _, eh := range b.opts.EnvHeaders {
			if strings.EqualFold(name, eh.Var) {
				declared = true
			}
		}
		if !declared {
			out = append(out, e)
		}
	}
	return append(out, env...)
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// ParseEnvHeader reads HEADER=VAR: a request header name and the name of
// an environment variable.
func ParseEnvHeader(spec string) (EnvHeader, error) {
	header, name, ok := strings.Cut(spec, "=")
	switch {
	case !ok:
		return EnvHeader{}, errors.New("use HEADER=VAR, such as X-Api-Key=API_KEY")
	case !validHeader(header):
		return EnvHeader{}, fmt.Errorf("%q is not a header name: use letters, digits and '-'", header)
	case !validVar(name):
		return EnvHeader{}, fmt.Errorf("%q is not an environment variable name: use letters, digits and '_', not starting with a digit", name)
	}
	return EnvHeader{Header: http.CanonicalHeaderKey(header), Var: name}, nil
}

func validHeader(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func validVar(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
