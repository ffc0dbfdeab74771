package mcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
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

// httpSession is a legacy client's session.
type httpSession struct {
	id       string
	ss       *session
	dispatch sync.Mutex // one message is dispatched at a time

	active  atomic.Int64 // requests and streams in progress
	last    atomic.Int64 // when the last of them ended, in Unix nanoseconds
	stream  bool         // the GET stream is open; under HTTPHandler.mu
	expires int64        // Unix milliseconds when a signed id expires; 0 for never

	resume resumable // the response streams a client may resume (revision 2025-11-25)
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

// probe is what the handler reads of a message before the session does:
// the method and id the session decodes, and the members of the params
// that route a request (see probeParams).
type probe struct {
	Method string
	ID     json.RawMessage
	Params struct {
		Name json.RawMessage `json:"name"`
		URI  json.RawMessage `json:"uri"`
		Meta struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
}

// id returns the message's id if it is a legal one, else the null id.
func (p *probe) id() msgID {
	if validID(p.ID) {
		return msgID{raw: string(p.ID)}
	}
	return nullID
}

// probeParams decodes the members of m's params that the handler reads,
// when it needs them: always for a request of revision 2026-07-28 (its
// header says so), else only when the params may have a _meta member,
// whose protocol version makes a request modern. The params of most
// legacy requests are so left to the session alone.
func (p *probe) probeParams(m *message, headerModern bool) {
	if headerModern || mayHaveMeta(m.Params) {
		json.Unmarshal(m.Params, &p.Params) // what does not decode is the session's to answer
	}
}

// mayHaveMeta reports whether json.Unmarshal may find a member "_meta" in
// params: it matches names without regard to case, and the folds of
// "_meta" are its ASCII cases alone (no other rune folds to one of its
// letters), unless an escape spells the name.
func mayHaveMeta(params []byte) bool {
	if bytes.IndexByte(params, '\\') >= 0 {
		return true
	}
	for b := params; ; {
		i := bytes.Index(b, []byte(`"_`))
		if i < 0 {
			return false
		}
		b = b[i+2:]
		if len(b) >= 5 && bytes.EqualFold(b[:5], []byte(`meta"`)) {
			return true
		}
	}
}

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, nullID, CodeInvalidRequest,
			fmt.Sprintf("unsupported Content-Type %q: send a JSON-RPC message as application/json", r.Header.Get("Content-Type")))
		return
	}
	jsonOK, sseOK := accepts(r.Header.Values("Accept"))
	if !jsonOK && !sseOK {
		writeError(w, http.StatusNotAcceptable, nullID, CodeInvalidRequest,
			"not acceptable: the Accept header must list application/json and text/event-stream")
		return
	}
	body, status, msg := h.readBody(w, r)
	if status != 0 {
		writeError(w, status, nullID, CodeInvalidRequest, msg)
		return
	}
	// The body is decoded once, as the session reads it; the handler
	// routes the request by what that gives.
	d := decodeMessage(body)
	var syntax *json.SyntaxError
	if err := d.err; errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || (err != nil && len(body) == 0) {
		writeError(w, http.StatusBadRequest, nullID, CodeParseError, "parse error: "+err.Error())
		return
	}
	batch := len(body) > 0 && body[0] == '['
	headerV := r.Header.Get(headerVersion)
	headerModern := headerV != "" && !slices.Contains(legacyVersions, headerV)
	var p probe
	if !batch {
		p.Method, p.ID = d.m.Method, d.m.ID
		p.probeParams(&d.m, headerModern)
	}
	bodyV := p.Params.Meta.ProtocolVersion
	modern := !batch && ((bodyV != "" && !slices.Contains(legacyVersions, bodyV)) ||
		(headerModern && p.Method != "initialize"))
	if modern {
		h.postModern(w, r, body, d, &p, jsonOK, sseOK)
		return
	}
	h.postLegacy(w, r, body, d, &p, batch, jsonOK, sseOK)
}

// readBody reads the body up to the limit; on failure it returns the
// status and message to answer with.
func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int, string) {
	max := h.opts.MaxBodyBytes
	tooLarge := fmt.Sprintf("request body too large: the limit is %d bytes", max)
	if r.ContentLength > max {
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	}
	size := 512
	if r.ContentLength > 0 {
		size = int(r.ContentLength) + 1
	}
	buf := make([]byte, 0, size)
	body, err := readAll(http.MaxBytesReader(w, r.Body, max), buf)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	case err != nil:
		return nil, http.StatusBadRequest, "reading the request body: " + err.Error()
	}
	return body, 0, ""
}

// readAll is io.ReadAll into buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// accepts reports whether an Accept header admits JSON and event
// streams. No header, or */*, admits both.
func accepts(values []string) (jsonOK, sseOK bool) {
	if len(values) == 0 {
		return true, true
	}
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			case "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	return jsonOK, sseOK
}

// postModern serves a request of revision 2026-07-28: it checks the
// headers against the body and answers it in a session of its own.
func (h *HTTPHandler) postModern(w http.ResponseWriter, r *http.Request, body []byte, d *decoded, p *probe, jsonOK, sseOK bool) {
	id := p.id()
	headerV, bodyV := r.Header.Get(headerVersion), p.Params.Meta.ProtocolVersion
	switch {
	case bodyV != "" && headerV != bodyV:
		writeError(w, http.StatusBadRequest, id, CodeHeaderMismatch,
			fmt.Sprintf("header mismatch: MCP-Protocol-Version header %q does not match _meta[%q] %q", headerV, metaProtocolVersion, bodyV))
		return
	case !slices.Contains(modernVersions, headerV):
		writeJSON(w, http.StatusBadRequest, newResponse(id, nil, &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
			Data: map[string]any{"supported": allVersions, "requested": headerV}}))
		return
	}
	if p.ID == nil {
		// A notification: this revision defines none over HTTP, nor
		// headers for them; it is accepted.
	} else if m := r.Header.Get(headerMethod); m != p.Method {
		msg := fmt.Sprintf("header mismatch: Mcp-Method header %q does not match the body's method %q", m, p.Method)
		if m == "" {
			msg = fmt.Sprintf("header mismatch: the Mcp-Method header is missing; send Mcp-Method: %s", p.Method)
		}
		writeError(w, http.StatusBadRequest, id, CodeHeaderMismatch, msg)
		return
	}
	if msg := checkName(r.Header, p); msg != "" && p.ID != nil {
		writeError(w, http.StatusBadRequest, id, CodeHeaderMismatch, msg)
		return
	}
	if msg := h.checkParams(r.Context(), r.Header, body, p); msg != "" && p.ID != nil {
		writeError(w, http.StatusBadRequest, id, CodeHeaderMismatch, msg)
		return
	}
	if p.Method == "subscriptions/listen" && p.ID != nil && !sseOK {
		writeError(w, http.StatusNotAcceptable, id, CodeInvalidRequest,
			"not acceptable: subscriptions/listen answers with an event stream; list text/event-stream in Accept")
		return
	}
	release, ok := h.admit(w, p)
	if !ok {
		return
	}
	defer release()
	ss := newSessionCtx(h.srv, r.Context())
	ss.teardown = h.done
	defer ss.cancel()
	defer context.AfterFunc(h.stop, ss.cancel)()
	ss.stateless = true
	ss.maxCalls = math.MaxInt
	ss.inputKey = h.stateKey
	ss.header = r.Header
	ex := newExchange(h, w, true, jsonOK, sseOK)
	if c := ss.dispatchMessage(body, d, ex); c != nil {
		ss.run(c)
	}
	ex.wait(r.Context())
	ex.finish()
}

// checkName compares the Mcp-Name header with the name or uri of the
// request's params, for the methods that have one.
func checkName(hdr http.Header, p *probe) string {
	var field json.RawMessage
	switch methods[p.Method].nameParam {
	case "name":
		field = p.Params.Name
	case "uri":
		field = p.Params.URI
	default:
		return ""
	}
	var want string
	if json.Unmarshal(field, &want) != nil {
		return "" // the session answers a name that is not a string
	}
	vals, sent := hdr[http.CanonicalHeaderKey(headerName)]
	if !sent || len(vals) == 0 {
		return fmt.Sprintf("header mismatch: the Mcp-Name header is missing; send Mcp-Name: %s", want)
	}
	got, err := headerValue(strings.TrimSpace(vals[0]))
	if err != nil {
		return "header mismatch: the Mcp-Name header " + err.Error()
	}
	if got != want {
		return fmt.Sprintf("header mismatch: Mcp-Name header %q does not match the body's %q", got, want)
	}
	return ""
}

// admit takes a call slot for a tools/call; when none is free it answers
// 503 and returns false.
func (h *HTTPHandler) admit(w http.ResponseWriter, p *probe) (release func(), ok bool) {
	if p.Method != "tools/call" {
		return func() {}, true
	}
	select {
	case h.calls <- struct{}{}:
		return func() { <-h.calls }, true
	default:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, p.id(), CodeInternalError,
			fmt.Sprintf("server busy: %d tool calls are running, the most it runs at once; try again shortly", h.opts.MaxConcurrentCalls))
		return nil, false
	}
}

// postLegacy serves a message of revisions 2025-03-26 to 2025-11-25 in
// its session, minting one at initialize.
func (h *HTTPHandler) postLegacy(w http.ResponseWriter, r *http.Request, body []byte, d *decoded, p *probe, batch, jsonOK, sseOK bool) {
	id := p.id()
	if v := r.Header.Get(headerVersion); v != "" && p.Method != "initialize" && !slices.Contains(legacyVersions, v) {
		writeJSON(w, http.StatusBadRequest, newResponse(id, nil, &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
			Data: map[string]any{"supported": allVersions, "requested": v}}))
		return
	}
	sid := r.Header.Get(headerSessionID)
	var hs *httpSession
	switch {
	case sid != "":
		if hs = h.use(w, id, sid); hs == nil {
			return
		}
	case !batch && p.Method == "initialize":
		if hs = h.newSession(); hs == nil {
			w.Header().Set("Retry-After", "5")
			writeError(w, http.StatusServiceUnavailable, id, CodeInternalError,
				fmt.Sprintf("too many sessions: all %d that this server keeps are in use; try again later", h.opts.MaxSessions))
			return
		}
	default:
		writeError(w, http.StatusBadRequest, id, CodeInvalidRequest,
			"bad request: the Mcp-Session-Id header is missing; send initialize first and then the session id it returns, or (revision 2026-07-28) carry _meta and the MCP-Protocol-Version header")
		return
	}
	release, ok := h.admit(w, p)
	if !ok {
		if sid == "" {
			h.discard(hs)
		} else {
			h.unuse(hs)
		}
		return
	}
	detached := false
	defer func() {
		if !detached {
			release()
		}
	}()
	ex := newExchange(h, w, false, jsonOK, sseOK)
	hs.dispatch.Lock()
	if sid != "" && sseOK && hs.ss.version == resumableVersion {
		ex.owner = r
		hs.resume.add(ex, hs)
	}
	hs.ss.header = r.Header
	c := hs.ss.dispatchMessage(body, d, ex)
	initialized := hs.ss.initialized
	hs.dispatch.Unlock()
	if sid == "" {
		var err error
		if initialized {
			hs.id, hs.expires, err = h.mintID(hs.ss)
			hs.dispatch.Lock()
			hs.ss.sid = hs.id
			hs.dispatch.Unlock()
		}
		if !initialized {
			h.discard(hs)
		} else if err != nil {
			h.discard(hs)
			ex.ended = true // the reply is dropped: the session was not kept
			writeError(w, http.StatusOK, id, CodeInvalidParams, "invalid params: "+err.Error())
			return
		} else if h.add(hs) {
			w.Header().Set(headerSessionID, hs.id)
		} else {
			ex.ended = true // the reply is dropped: the session was not kept
			w.Header().Set("Retry-After", "5")
			writeError(w, http.StatusServiceUnavailable, id, CodeInternalError,
				fmt.Sprintf("too many sessions: all %d that this server keeps are in use; try again later", h.opts.MaxSessions))
			return
		}
	}
	if c != nil && ex.hs != nil {
		// The response may end before the call (the client went away, or
		// the call closed its stream), which runs on.
		go hs.ss.run(c)
	} else if c != nil {
		hs.ss.run(c)
	}
	ex.wait(r.Context())
	if detached = ex.detach(r, release); detached {
		h.unuse(hs)
		return
	}
	if initialized || sid != "" {
		// Before the answer, so that the client's next request finds the
		// session idle, as it is.
		h.unuse(hs)
	}
	ex.finish()
}

// newSession returns a session that is not yet kept, or nil when as many
// as MaxSessions are kept and all of them are in use.
func (h *HTTPHandler) newSession() *httpSession {
	if !h.makeRoom() {
		return nil
	}
	ss := newSessionCtx(h.srv, h.stop)
	ss.maxCalls = math.MaxInt
	return &httpSession{ss: ss}
}

// makeRoom makes sure a session can be kept: when MaxSessions are, it ends
// those idle past the timeout and then, if none was, the one idle longest
// (its client gets 404 and initializes again). It reports false when
// every kept session is in use.
func (h *HTTPHandler) makeRoom() bool {
	h.mu.Lock()
	full := len(h.sessions) >= h.opts.MaxSessions
	h.mu.Unlock()
	if !full {
		return true
	}
	h.sweep()
	h.mu.Lock()
	var oldest *httpSession
	if len(h.sessions) >= h.opts.MaxSessions {
		for _, hs := range h.sessions {
			if hs.active.Load() == 0 && (oldest == nil || hs.last.Load() < oldest.last.Load()) {
				oldest = hs
			}
		}
		if oldest == nil {
			h.mu.Unlock()
			return false
		}
		delete(h.sessions, oldest.id)
	}
	h.mu.Unlock()
	if oldest != nil {
		h.srv.log.Info("session limit reached; the session idle longest was ended", "limit", h.opts.MaxSessions)
		oldest.end()
	}
	return true
}

// add keeps a new session, in use by the request that made it; false when
// MaxSessions are kept already.
func (h *HTTPHandler) add(hs *httpSession) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sessions) >= h.opts.MaxSessions || h.closing.Load() {
		hs.ss.cancel()
		return false
	}
	hs.active.Store(1)
	h.sessions[hs.id] = hs
	if h.sweeper == nil {
		h.sweeper = time.AfterFunc(h.sweepEvery(), h.sweepAndRearm)
	}
	return true
}

func (h *HTTPHandler) discard(hs *httpSession) { hs.ss.cancel() }

// use returns the session of sid, marked in use: one kept here, or with
// a SessionKey, one that sid carries (minted here or by another replica),
// which is kept from then on. Otherwise it answers (404, or 503 when
// every place is in use) and returns nil; reqID is the id to answer.
func (h *HTTPHandler) use(w http.ResponseWriter, reqID msgID, sid string) *httpSession {
	// Under the read lock, so that sweep, which holds the write lock, sees
	// every session in use as such.
	h.mu.RLock()
	hs := h.sessions[sid]
	if hs != nil {
		hs.active.Add(1)
	}
	h.mu.RUnlock()
	if hs != nil && !expired(hs.expires) {
		return hs
	}
	if hs != nil {
		h.unuse(hs) // the sweeper ends it
	} else if hs = h.restore(sid); hs != nil {
		if h.adopt(&hs) {
			return hs
		}
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, reqID, CodeInternalError,
			fmt.Sprintf("too many sessions: all %d that this server keeps are in use; try again later", h.opts.MaxSessions))
		return nil
	}
	writeError(w, http.StatusNotFound, reqID, CodeInvalidRequest, "session not found: it ended or expired; send initialize to start a new one")
	return nil
}

// restore returns the session a signed id carries, not yet kept, or nil
// when the id is not one of this key's, has expired or was ended here.
func (h *HTTPHandler) restore(sid string) *httpSession {
	st, ok := h.verifyID(sid)
	if !ok {
		return nil
	}
	h.mu.RLock()
	_, revoked := h.revoked[sid]
	h.mu.RUnlock()
	if revoked {
		return nil
	}
	ss := newSessionCtx(h.srv, h.stop)
	ss.maxCalls = math.MaxInt
	ss.initialized = true
	ss.version = st.Version
	ss.clientCaps = st.Caps
	ss.sid = sid
	return &httpSession{id: sid, ss: ss, expires: st.Expires}
}

// adopt keeps a restored session, in use; when another request kept the
// same one meanwhile, *hs becomes that one. It reports false when every
// place is in use.
func (h *HTTPHandler) adopt(hs **httpSession) bool {
	if !h.makeRoom() {
		(*hs).ss.cancel()
		return false
	}
	h.mu.Lock()
	if kept := h.sessions[(*hs).id]; kept != nil {
		kept.active.Add(1)
		h.mu.Unlock()
		(*hs).ss.cancel()
		*hs = kept
		return true
	}
	h.mu.Unlock()
	return h.add(*hs)
}

func (h *HTTPHandler) unuse(hs *httpSession) {
	hs.last.Store(time.Now().UnixNano())
	hs.active.Add(-1)
}

func (h *HTTPHandler) sweepEvery() time.Duration {
	return max(h.opts.SessionIdleTimeout/4, 100*time.Millisecond)
}

func (h *HTTPHandler) sweepAndRearm() {
	h.sweep()
	h.mu.Lock()
	defer h.mu.Unlock()
	if (len(h.sessions) == 0 && len(h.revoked) == 0) || h.closing.Load() {
		h.sweeper = nil
		return
	}
	h.sweeper.Reset(h.sweepEvery())
}

// sweep ends the sessions idle for longer than SessionIdleTimeout.
func (h *HTTPHandler) sweep() {
	cutoff := time.Now().Add(-h.opts.SessionIdleTimeout).UnixNano()
	h.mu.Lock()
	var idle []*httpSession
	for id, hs := range h.sessions {
		if hs.active.Load() == 0 && (hs.last.Load() < cutoff || expired(hs.expires)) {
			delete(h.sessions, id)
			idle = append(idle, hs)
		}
	}
	for x, exp := range h.revoked {
		if expired(exp) {
			delete(h.revoked, x)
		}
	}
	h.mu.Unlock()
	for _, hs := range idle {
		h.srv.log.Info("idle session ended", "idle", h.opts.SessionIdleTimeout)
		hs.end()
	}
}

// end stops the session: nothing more is dispatched, running calls are
// cancelled and its stream ends.
func (hs *httpSession) end() {
	if p := hs.ss.srv.opts.proxy; p != nil && hs.id != "" {
		defer p.EndSession(hs.id)
	}
	hs.resume.clear()
	hs.ss.mu.Lock()
	hs.ss.stopping = true
	hs.ss.mu.Unlock()
	hs.ss.cancel()
}

// legacySession returns the session a GET or DELETE names; on failure it
// has answered.
func (h *HTTPHandler) legacySession(w http.ResponseWriter, r *http.Request) *httpSession {
	sid := r.Header.Get(headerSessionID)
	v := r.Header.Get(headerVersion)
	if sid == "" || (v != "" && !slices.Contains(legacyVersions, v)) {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, nullID, CodeInvalidRequest,
			fmt.Sprintf("method %s not allowed without a session: revision 2026-07-28 has no sessions and no GET stream; send requests with POST", r.Method))
		return nil
	}
	return h.use(w, nullID, sid)
}

// get serves a legacy session's stream of messages from the server: the
// notifications given to [Server.Notify] for it, and comments, which keep
// it open, until the client closes it or the session ends.
func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	hs := h.legacySession(w, r)
	if hs == nil {
		return
	}
	defer h.unuse(hs)
	if _, sseOK := accepts(r.Header.Values("Accept")); !sseOK {
		writeError(w, http.StatusNotAcceptable, nullID, CodeInvalidRequest, "not acceptable: the GET stream is text/event-stream; list it in Accept")
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		if ex, seq := hs.resume.take(last); ex != nil {
			ex.resumeOn(w, r, seq)
			return
		}
	}
	// Draining lets in a GET that resumes a stream in case its call
	// runs here; one that does not would open a stream that ends at
	// once, which a client counts as a failed reconnection. 503 sends it
	// to another replica instead.
	if h.closing.Load() {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, nullID, CodeInternalError, "the server is shutting down; try again later")
		return
	}
	h.mu.Lock()
	busy := hs.stream
	hs.stream = true
	h.mu.Unlock()
	if busy {
		writeError(w, http.StatusConflict, nullID, CodeInvalidRequest, "conflict: the session's GET stream is open already")
		return
	}
	defer func() {
		h.mu.Lock()
		hs.stream = false
		h.mu.Unlock()
	}()
	rc := http.NewResponseController(w)
	startStream(w)
	if hs.ss.version == resumableVersion {
		// A priming event, with an id of its own: a client that counts
		// the ends of this stream without a new event id as failed
		// reconnections (the Go SDK gives up after five) sees each
		// stream, here or on another replica, as one that went on.
		// The id resumes nothing (take knows no such stream), so a
		// reconnection with it opens a new stream.
		fmt.Fprintf(w, "id: get_%d\nretry: %d\ndata:\n\n", time.Now().UnixNano(), resumeRetry.Milliseconds())
	}
	if rc.Flush() != nil {
		return
	}
	events := h.srv.listen(hs.id)
	defer h.srv.unlisten(hs.id, events)
	tick := time.NewTicker(h.opts.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-hs.ss.ctx.Done():
			return
		case <-h.done:
			return
		case b := <-events:
			if _, err := w.Write(append(append([]byte("event: message\ndata: "), b...), '\n')); err != nil || rc.Flush() != nil {
				return
			}
		case <-tick.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

// delete ends a legacy session.
func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	hs := h.legacySession(w, r)
	if hs == nil {
		return
	}
	h.mu.Lock()
	hs.active.Add(-1)
	delete(h.sessions, hs.id)
	if hs.expires != 0 {
		h.revoke(hs)
	}
	h.mu.Unlock()
	hs.end()
	w.WriteHeader(http.StatusNoContent)
}

// revoke remembers that a signed session ended here, until its id
// expires, so that this handler answers it with 404. At most MaxSessions
// are remembered: past that, those closest to expiry are forgotten first.
// The caller holds mu.
func (h *HTTPHandler) revoke(hs *httpSession) {
	for len(h.revoked) >= h.opts.MaxSessions {
		first := ""
		for x, exp := range h.revoked {
			if first == "" || exp < h.revoked[first] {
				first = x
			}
		}
		delete(h.revoked, first)
	}
	h.revoked[hs.id] = hs.expires
	if h.sweeper == nil && !h.closing.Load() {
		h.sweeper = time.AfterFunc(h.sweepEvery(), h.sweepAndRearm)
	}
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

// exchange is the sink of one POST: it keeps the reply until the request's
// calls have ended, then answers with it as JSON; a notification, a call
// that runs past KeepAlive, or a client that accepts only event streams
// turns the response into an event stream, which carries the
// notifications, comments while calls run, and the reply.
type exchange struct {
	h      *HTTPHandler
	w      http.ResponseWriter
	modern bool
	jsonOK bool
	sseOK  bool

	mu        sync.Mutex
	calls     int           // calls open
	idle      chan struct{} // closed when calls drops to 0, if wait waits
	reply     []byte        // the reply, while not streaming
	code      int           // its error code, 0 for a result
	streaming bool
	ended     bool // the handler has answered: drop everything
	timer     *time.Timer

	// A stream a client may resume (see resumable): its events carry ids
	// and are kept until it is delivered.
	hs       *httpSession  // the session keeping it; nil if not resumable
	streamNo int           // its number in the session
	seq      int           // the last event id's number
	log      []event       // the events the client may not have got
	logBytes int           // bytes of data in log
	detached bool          // no response carries it: events are only kept
	cut      chan struct{} // closed by CloseStream: the response ends
	onIdle   func()        // run once calls drop to 0, when detached
	kept     bool          // detach has taken over the request's accounting
	owner    *http.Request // the request whose response carries the stream
}

func newExchange(h *HTTPHandler, w http.ResponseWriter, modern, jsonOK, sseOK bool) *exchange {
	return &exchange{h: h, w: w, modern: modern, jsonOK: jsonOK, sseOK: sseOK, cut: make(chan struct{})}
}

func (ex *exchange) put(v any, _ bool) error {
	b, err := encodeLine(v)
	if err != nil {
		return err
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.ended {
		return nil
	}
	if _, note := v.(*notification); note {
		if !ex.sseOK {
			return nil // a client that takes only JSON gets the reply alone
		}
		ex.event(b)
		return nil
	}
	if _, ask := v.(*serverRequest); ask {
		if !ex.sseOK {
			return errNoStream
		}
		ex.event(b)
		return nil
	}
	if ex.streaming || ex.reply != nil {
		ex.event(b)
		return nil
	}
	ex.reply = b
	if r, ok := v.(*response); ok && r.Error != nil {
		ex.code = r.Error.Code
	}
	return nil
}

// event writes b as an event, starting the stream first; the caller holds
// mu.
func (ex *exchange) event(b []byte) {
	ex.stream()
	if ex.reply != nil {
		ex.writeEvent(ex.reply)
		ex.reply = nil
	}
	ex.writeEvent(b)
	if !ex.detached {
		http.NewResponseController(ex.w).Flush()
	}
}

func (ex *exchange) stream() {
	if ex.streaming {
		return
	}
	ex.streaming = true
	if ex.hs == nil {
		startStream(ex.w)
		return
	}
	// A priming event: an id and no data, so that the client can resume
	// even before the first message, and how long to wait before it does.
	startStream(ex.w)
	fmt.Fprintf(ex.w, "id: %d_0\nretry: %d\ndata:\n\n", ex.streamNo, resumeRetry.Milliseconds())
}

func (ex *exchange) writeEvent(b []byte) {
	if ex.hs == nil {
		ex.w.Write(append(append([]byte("event: message\ndata: "), b...), '\n'))
		return
	}
	ex.seq++
	ex.keep(event{ex.seq, b})
	if !ex.detached {
		ex.w.Write(ex.log[len(ex.log)-1].frame(ex.streamNo))
	}
}

func (ex *exchange) open() {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.calls++
	if ex.sseOK && ex.timer == nil {
		ex.timer = time.AfterFunc(ex.h.opts.KeepAlive, ex.keepAlive)
	}
}

func (ex *exchange) done() {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.calls--
	if ex.calls == 0 && ex.idle != nil {
		close(ex.idle)
		ex.idle = nil
	}
	if ex.calls == 0 && ex.onIdle != nil {
		go ex.onIdle()
		ex.onIdle = nil
	}
}

// keepAlive turns the response into a stream while calls run, and writes
// a comment on it every KeepAlive.
func (ex *exchange) keepAlive() {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.ended || ex.calls == 0 {
		return
	}
	if ex.detached {
		ex.timer.Reset(ex.h.opts.KeepAlive)
		return
	}
	if ex.streaming {
		io.WriteString(ex.w, ": keep-alive\n\n")
	} else {
		ex.stream()
	}
	http.NewResponseController(ex.w).Flush()
	ex.timer.Reset(ex.h.opts.KeepAlive)
}

// wait waits for the calls of the exchange to end, ctx, or the call to
// close the stream.
func (ex *exchange) wait(ctx context.Context) {
	ex.mu.Lock()
	if ex.calls == 0 {
		ex.mu.Unlock()
		return
	}
	idle, cut := make(chan struct{}), ex.cut
	ex.idle = idle
	ex.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	case <-cut:
	}
}

// finish answers: the reply as JSON (with the status its error calls for),
// or the end of the stream, or 202 when there is no reply.
func (ex *exchange) finish() {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.ended {
		return
	}
	ex.ended = true
	if ex.timer != nil {
		ex.timer.Stop()
	}
	if ex.hs != nil {
		ex.hs.resume.remove(ex)
	}
	switch {
	case ex.streaming:
		if ex.reply != nil {
			ex.writeEvent(ex.reply)
		}
	case ex.reply != nil && !ex.jsonOK:
		ex.stream()
		ex.writeEvent(ex.reply)
	case ex.reply != nil:
		writeBody(ex.w, ex.status(), ex.reply)
	default:
		ex.w.WriteHeader(http.StatusAccepted)
	}
}

// status is the HTTP status of a JSON reply. Revision 2026-07-28 gives
// errors statuses of their own; earlier revisions answer 200 but for
// messages that are not JSON.
func (ex *exchange) status() int {
	switch {
	case ex.code == CodeParseError:
		return http.StatusBadRequest
	case !ex.modern:
		return http.StatusOK
	case ex.code == CodeMethodNotFound:
		return http.StatusNotFound
	case ex.code == CodeInvalidParams, ex.code == CodeInvalidRequest, ex.code == CodeUnsupportedProtocolVersion,
		ex.code == CodeHeaderMismatch, ex.code == CodeMissingClientCapability:
		return http.StatusBadRequest
	}
	return http.StatusOK
}
