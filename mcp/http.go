package mcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPOptions configure an [HTTPHandler]. The zero value of each field
// picks the default documented on it.
type HTTPOptions struct {
	// AuthToken, when not empty, is the bearer token every request must
	// carry ("Authorization: Bearer TOKEN"); others get 401.
	AuthToken string
	// AllowedOrigins are the browser origins ("https://app.example.com")
	// allowed besides those of localhost. A request with another Origin
	// header gets 403; one without passes.
	AllowedOrigins []string
	// MaxBodyBytes is the largest request body read; a larger one gets
	// 413. Default 4 MiB.
	MaxBodyBytes int64
	// MaxConcurrentCalls bounds the tool calls running at once across all
	// clients; a call past it gets 503 with Retry-After. Default 64.
	MaxConcurrentCalls int
	// MaxSessions bounds the sessions of legacy clients (revisions
	// 2025-03-26 to 2025-11-25) kept at once. An initialize past it ends
	// the session idle longest, whose client gets 404 and initializes
	// again; when every session has a request or stream open, it gets
	// 503. Default 1024.
	MaxSessions int
	// SessionIdleTimeout ends a legacy session that has had no request or
	// stream open for this long; its client gets 404 and initializes
	// again. Default 30 minutes. With a SessionKey it only frees the
	// memory this handler keeps for the session: the id stays valid.
	SessionIdleTimeout time.Duration
	// SessionKey, when set, makes the handler mint session ids that carry
	// the state a legacy session negotiated at initialize, authenticated
	// with HMAC-SHA256 under this key, so that handlers sharing the key
	// (replicas behind a load balancer) serve each other's sessions. An
	// id that is forged, altered or expired gets 404. It must be at least
	// 32 bytes (NewHTTPHandler panics on a shorter one). docs/http.md
	// says what stays with one replica: the GET stream, cancelling a call,
	// a log level set with logging/setLevel, and a DELETE.
	SessionKey []byte
	// SessionLifetime is how long an id minted with SessionKey stays
	// valid, however busy its session; then its client gets 404 and
	// initializes again. Default 24 hours.
	SessionLifetime time.Duration
	// KeepAlive is how long a call may run before its response becomes an
	// event stream, and how often a comment is written on it while the
	// call runs, so that proxies and clients see the connection alive.
	// Default 10 seconds.
	KeepAlive time.Duration
}

// HTTPHandler serves a [Server] over the Streamable HTTP transport, at
// whatever path it is mounted (by convention /mcp). It serves both eras
// of the protocol, deciding per request: clients of revisions 2025-03-26
// to 2025-11-25 get sessions (Mcp-Session-Id, minted at initialize, ended
// by DELETE or after SessionIdleTimeout) and a GET stream; requests of
// revision 2026-07-28 are stateless, each answered on its own. A reply is
// JSON, or an event stream when a call sends notifications or runs long.
//
// Before anything else it checks, in order: the Host header of a request
// that came in on a loopback address (DNS rebinding), the Origin header,
// and the bearer token when [HTTPOptions.AuthToken] is set. docs/http.md
// describes every status it answers with.
type HTTPHandler struct {
	srv     *Server
	opts    HTTPOptions
	token   [sha256.Size]byte
	origins []string
	calls   chan struct{} // a slot per running tool call
	// stateKey authenticates request states (InputRequired) when
	// replicas share SessionKey; nil for the server's own key.
	stateKey []byte

	mu       sync.RWMutex // over sessions, revoked and sweeper
	sessions map[string]*httpSession
	revoked  map[string]int64 // signed ids ended by DELETE here, with their expiry
	sweeper  *time.Timer

	closing atomic.Bool
	done    chan struct{}   // closed by Shutdown: streams end
	running atomic.Int64    // requests being served
	stop    context.Context // done when Shutdown gives up waiting: every call is cancelled
	cancel  context.CancelFunc
}

// NewHTTPHandler returns a handler that serves s. o may be nil.
func NewHTTPHandler(s *Server, o *HTTPOptions) *HTTPHandler {
	h := &HTTPHandler{srv: s, sessions: map[string]*httpSession{}, revoked: map[string]int64{}, done: make(chan struct{})}
	h.stop, h.cancel = context.WithCancel(context.Background())
	if o != nil {
		h.opts = *o
	}
	o = &h.opts
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.MaxConcurrentCalls <= 0 {
		o.MaxConcurrentCalls = 64
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 1024
	}
	if o.SessionIdleTimeout <= 0 {
		o.SessionIdleTimeout = 30 * time.Minute
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 10 * time.Second
	}
	if o.SessionKey != nil && len(o.SessionKey) < minSessionKeyBytes {
		panic(fmt.Sprintf("mcp: HTTPOptions.SessionKey has %d bytes; it needs at least %d", len(o.SessionKey), minSessionKeyBytes))
	}
	o.SessionKey = bytes.Clone(o.SessionKey)
	if o.SessionKey != nil {
		m := hmac.New(sha256.New, o.SessionKey)
		m.Write([]byte("mcpship request state key"))
		h.stateKey = m.Sum(nil)
	}
	if o.SessionLifetime <= 0 {
		o.SessionLifetime = 24 * time.Hour
	}
	if o.AuthToken != "" {
		h.token = sha256.Sum256([]byte(o.AuthToken))
	}
	for _, origin := range o.AllowedOrigins {
		h.origins = append(h.origins, strings.TrimSuffix(strings.ToLower(origin), "/"))
	}
	h.calls = make(chan struct{}, o.MaxConcurrentCalls)
	return h
}

// Header names of the transport.
const (
	headerSessionID = "Mcp-Session-Id"
	headerVersion   = "Mcp-Protocol-Version"
	headerMethod    = "Mcp-Method"
	headerName      = "Mcp-Name"
)

// CodeHeaderMismatch answers a revision 2026-07-28 request whose
// Mcp-Method, Mcp-Name or MCP-Protocol-Version header is missing or does
// not match its body.
const CodeHeaderMismatch = -32020

// ServeHTTP implements [http.Handler].
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := h.refuse(r); msg != "" {
		writeError(w, http.StatusForbidden, nullID, CodeInvalidRequest, msg)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		// An allowed browser origin may read the responses (CORS); its
		// preflight carries no token, so it is answered before the check.
		hdr := w.Header()
		hdr.Set("Access-Control-Allow-Origin", origin)
		hdr.Add("Vary", "Origin")
		hdr.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			hdr.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
			if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
				hdr.Set("Access-Control-Allow-Headers", req)
			}
			hdr.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	if msg := h.unauthorized(r); msg != "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpship"`)
		writeError(w, http.StatusUnauthorized, nullID, CodeInvalidRequest, msg)
		return
	}
	h.running.Add(1)
	defer h.running.Add(-1)
	// While draining, a client may still resume a stream of a call that
	// runs here: its result is nowhere else.
	if h.closing.Load() && (r.Method != http.MethodGet || r.Header.Get("Last-Event-ID") == "") {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, nullID, CodeInternalError, "the server is shutting down; try again later")
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, nullID, CodeInvalidRequest,
			fmt.Sprintf("method %s not allowed: send messages with POST", r.Method))
	}
}

// refuse returns why a request may not be served from where it comes
// (its Host and Origin), or "".
func (h *HTTPHandler) refuse(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopbackAddr(a) && !isLoopbackHost(r.Host) {
		return fmt.Sprintf("forbidden: Host %q is not a loopback name; this server listens on loopback and answers only requests to localhost (DNS rebinding protection)", r.Host)
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin) {
		return fmt.Sprintf("forbidden: Origin %q is not allowed: only localhost and the allowed origins (mcpship: --allow-origin) may call this server from a browser", origin)
	}
	return ""
}

// unauthorized returns why a request's token is refused, or "".
func (h *HTTPHandler) unauthorized(r *http.Request) string {
	if h.opts.AuthToken == "" {
		return ""
	}
	got, ok := bearer(r.Header.Get("Authorization"))
	sum := sha256.Sum256([]byte(got))
	switch {
	case !ok:
		return "unauthorized: send the token as \"Authorization: Bearer TOKEN\""
	case subtle.ConstantTimeCompare(sum[:], h.token[:]) != 1:
		return "unauthorized: the bearer token is wrong"
	}
	return ""
}

// bearer returns the token of an Authorization header of the Bearer scheme.
func bearer(v string) (string, bool) {
	scheme, token, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

func (h *HTTPHandler) originAllowed(origin string) bool {
	if u, err := url.Parse(origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" && isLoopbackHost(u.Host) {
		return true
	}
	return slices.Contains(h.origins, strings.TrimSuffix(strings.ToLower(origin), "/"))
}

func isLoopbackAddr(a net.Addr) bool {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.IsLoopback()
	}
	return false
}

// isLoopbackHost reports whether host (with or without a port) names the
// loopback interface: localhost or a loopback address.
func isLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Shutdown stops the handler: new requests get 503 (but a GET that
// resumes a stream of a call still running), GET streams end at once,
// and the calls running get until ctx is done to finish; then they are
// cancelled, get a moment to answer so, and every session ends. It
// returns ctx's error when calls were cancelled.
func (h *HTTPHandler) Shutdown(ctx context.Context) error {
	if h.closing.Swap(true) {
		return nil
	}
	close(h.done)
	var err error
	for h.running.Load() > 0 && err == nil {
		select {
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if err != nil {
		h.cancel()
		for grace := time.Now().Add(2 * time.Second); h.running.Load() > 0 && time.Now().Before(grace); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	h.mu.Lock()
	sessions := h.sessions
	h.sessions = map[string]*httpSession{}
	if h.sweeper != nil {
		h.sweeper.Stop()
		h.sweeper = nil
	}
	h.mu.Unlock()
	for _, hs := range sessions {
		hs.end()
	}
	return err
}

// startStream writes the headers of an event stream and a first comment,
// which makes proxies that hold the headers until data comes pass them on.
func startStream(w http.ResponseWriter) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	hdr.Del("Content-Length")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, ": stream open\n\n")
}

// writeError answers with a JSON-RPC error.
func writeError(w http.ResponseWriter, status int, id msgID, code int, msg string) {
	writeJSON(w, status, newResponse(id, nil, &Error{Code: code, Message: msg}))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := encodeLine(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeBody(w, status, b)
}

func writeBody(w http.ResponseWriter, status int, b []byte) {
	hdr := w.Header()
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}
