package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// A Forwarder is another MCP server that a [Server] passes requests to
// ([ServerOptions.Forward]), such as a stdio server command that mcpship
// serves over HTTP. The Server still answers initialize, ping and
// server/discover itself, with the Forwarder's capabilities, and speaks
// both eras of the protocol to its clients; every other request goes to
// Forward in the legacy form (revision 2026-07-28's _meta keys taken out
// of its params, which [ForwardRequest.ModernParams] keeps), and its
// result comes back as it is, with what revision 2026-07-28 adds to a
// result added. A 2026-07-28 request for a method that revision removed
// (logging/setLevel, resources/subscribe and resources/unsubscribe) is
// answered method not found instead, and the Mcp-Param headers of a
// 2026-07-28 tools/call are checked against the input schema of the
// tool, as the Forwarder's tools/list gives it.
//
// The Server serves revision 2026-07-28's subscriptions/listen itself,
// acknowledging what the Forwarder's capabilities promise (list changes
// where they say listChanged, resource updates where resources say
// subscribe). A Forwarder that also has a method
//
//	Listen(ctx context.Context, r *ForwardRequest) (stop func(), err error)
//
// is given each listen whose acknowledgement is not empty, before the
// acknowledgement goes out: r.Params holds the filter the client sent, and
// [ForwardRequest.Notify] sends a notification on the stream when the
// acknowledged filter admits it. stop, when not nil, is called once the
// stream ends; an error ends the listen with it instead of the
// acknowledgement.
type Forwarder interface {
	// Capabilities returns the capabilities to announce: the JSON object
	// of the other server's initialize result.
	Capabilities() json.RawMessage
	// Forward sends one request and returns its result, a JSON object.
	// An [*Error] is passed to the client as it is; any other error
	// becomes an internal error whose message is the error's.
	Forward(ctx context.Context, r *ForwardRequest) (json.RawMessage, error)
}

// ForwardRequest is one request that a [Server] passes to its
// [Forwarder].
type ForwardRequest struct {
	// Method and Params are the request's. Params is nil when it had none.
	Method string
	Params json.RawMessage
	// ModernParams are the params of a request of revision 2026-07-28 as
	// the client sent them, _meta keys of that revision included, for a
	// Forwarder whose other server speaks that revision too; nil for a
	// legacy request.
	ModernParams json.RawMessage
	// ProtocolVersion is the revision the client speaks, and
	// ClientCapabilities the JSON object of capabilities it declared.
	ProtocolVersion    string
	ClientCapabilities json.RawMessage
	// Session is the id of the legacy HTTP session the request came in;
	// "" for a stateless request (revision 2026-07-28) and over stdio.
	Session string
	// Header holds the HTTP request's headers; nil over stdio.
	Header http.Header

	ss       *session
	to       sink
	listen   *listener // of a subscriptions/listen; nil for a request
	logLevel int32     // lowest level of log messages sent (revision 2026-07-28's _meta); -1 for any
	mu       sync.Mutex
	done     bool
}

// Notify sends the client a notification about the request, such as
// notifications/progress; over HTTP it goes in the request's response.
// Notifications after Forward has returned are dropped, and so is
// notifications/message for a request of revision 2026-07-28 that did not
// ask for log messages at its level (_meta's logLevel). For a
// subscriptions/listen given to the Forwarder's Listen, it sends a
// notification on the listen's stream if the acknowledged filter admits
// it (see [Server.Notify]), until the stream ends.
func (r *ForwardRequest) Notify(method string, params any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.ss == nil {
		return
	}
	if r.listen != nil {
		raw, err := encodeParams(params)
		if err != nil {
			r.ss.srv.log.Error("notification not sent: its params do not encode as JSON", "method", method, "err", err)
			return
		}
		r.ss.srv.offer(r.listen, method, resourceURI(raw), raw)
		return
	}
	if method == "notifications/message" && r.logLevel >= 0 {
		var p struct {
			Level LogLevel `json:"level"`
		}
		if b, err := json.Marshal(params); err != nil || json.Unmarshal(b, &p) != nil || p.Level.rank() < r.logLevel {
			return
		}
	}
	r.ss.logEncoding(r.to.put(&notification{JSONRPC: "2.0", Method: method, Params: params}, false))
}

// Request sends the client a request about r, such as the other
// server's sampling/createMessage, and returns the client's result. Only
// a legacy client can answer one: over HTTP it goes on the event stream
// of r's response, and the client posts its answer in its session. For a
// stateless request (revision 2026-07-28), or a client that accepts only
// JSON responses, it fails with [CodeMethodNotFound]; once Forward has
// returned, with [CodeInternalError].
func (r *ForwardRequest) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if r.ss == nil {
		return nil, errorf(CodeMethodNotFound, "%s: no client is asking (the server lists the tools for itself)", method)
	}
	if r.ss.stateless {
		return nil, errorf(CodeMethodNotFound, "%s: a client of revision 2026-07-28 takes no requests from the server", method)
	}
	id, ch := r.ss.expect()
	defer r.ss.unexpect(id)
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return nil, errorf(CodeInternalError, "%s: the request it was about has ended", method)
	}
	var p any
	if len(params) > 0 {
		p = params
	}
	err := r.to.put(&serverRequest{JSONRPC: "2.0", ID: id, Method: method, Params: p}, false)
	r.mu.Unlock()
	if errors.Is(err, errNoStream) {
		return nil, errorf(CodeMethodNotFound, "%s: the client accepts only JSON responses, which carry no requests", method)
	}
	if err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if len(m.Error) > 0 {
			var e Error
			if json.Unmarshal(m.Error, &e) != nil {
				return nil, errorf(CodeInternalError, "%s: the client's error is malformed: %s", method, m.Error)
			}
			return nil, &e
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.ss.ctx.Done():
		return nil, errorf(CodeInternalError, "%s: the client's session ended", method)
	}
}

// expect returns the id of a request to the client and the channel its
// response comes on.
func (ss *session) expect() (string, chan *message) {
	ch := make(chan *message, 1)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.expected == nil {
		ss.expected = map[string]chan *message{}
	}
	ss.sent++
	id := "mcpship-forward-" + strconv.FormatInt(ss.sent, 10)
	ss.expected[id] = ch
	return id, ch
}

func (ss *session) unexpect(id string) {
	ss.mu.Lock()
	delete(ss.expected, id)
	ss.mu.Unlock()
}

// response passes a response from the client to the request of the
// server that it answers; one that answers none is dropped.
func (ss *session) response(m *message) {
	var id string
	if json.Unmarshal(m.ID, &id) != nil {
		return
	}
	ss.mu.Lock()
	ch := ss.expected[id]
	delete(ss.expected, id)
	ss.mu.Unlock()
	if ch != nil {
		ch <- &message{Result: bytes.Clone(m.Result), Error: bytes.Clone(m.Error)}
	}
}

// forward starts a request that goes to the Forwarder. It runs as a
// tools/call does, on a goroutine of its own, and a client's
// notifications/cancelled cancels it; meta is nil for a legacy request.
func (ss *session) forward(id ID, method string, params json.RawMessage, meta *requestMeta) {
	fr := &ForwardRequest{Method: method, Params: params, ProtocolVersion: ss.version,
		ClientCapabilities: ss.clientCaps, Session: ss.sid, Header: ss.header, ss: ss, to: ss.to, logLevel: -1}
	if meta != nil {
		fr.ProtocolVersion, fr.ClientCapabilities = meta.ProtocolVersion, meta.ClientCapabilities
		fr.Params, fr.ModernParams = legacyParams(params), params
		// Revision 2026-07-28: log messages only for a request that asks,
		// at or above the level it asks for.
		fr.logLevel = levelOff
		if meta.LogLevel != nil {
			fr.logLevel = meta.LogLevel.rank()
		}
	}
	req := &CallRequest{Name: method, Arguments: params, ss: ss, to: ss.to, id: id}
	ctx, cancel := context.WithCancel(ss.ctx)
	ss.start(&call{fwd: fr, req: req, modern: meta != nil, batch: ss.batch, ctx: ctx, cancel: cancel})
}

// runForward runs a forwarded request and answers it.
func (ss *session) runForward(c *call) {
	fr := c.fwd
	res, rpcErr := ss.invokeForward(c.ctx, fr)
	fr.mu.Lock()
	fr.done = true
	fr.mu.Unlock()
	ss.finishCall(c, func() *response {
		if rpcErr != nil {
			return newResponse(c.req.id, nil, rpcErr)
		}
		if fr.Method == "tools/list" {
			ss.srv.sawToolList(res)
		}
		if c.modern {
			res = ss.modernResult(fr.Method, res)
		}
		return newResponse(c.req.id, res, nil)
	})
}

// invokeForward calls the Forwarder, turning a panic into an internal
// error.
func (ss *session) invokeForward(ctx context.Context, fr *ForwardRequest) (res json.RawMessage, rpcErr *Error) {
	defer func() {
		if p := recover(); p != nil {
			ss.srv.log.Error("forwarder panicked", "method", fr.Method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, rpcErr = nil, errorf(CodeInternalError, "internal error: %s failed unexpectedly (panic: %v)", fr.Method, p)
		}
	}()
	if ctx.Err() != nil {
		return nil, errorf(CodeInternalError, "%s was cancelled before it started", fr.Method)
	}
	res, err := ss.srv.opts.Forward.Forward(ctx, fr)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, errorf(CodeInternalError, "%v", err)
	}
	if len(bytes.TrimSpace(res)) == 0 || res[0] != '{' {
		return nil, errorf(CodeInternalError, "internal error: the result of %s is not a JSON object", fr.Method)
	}
	return res, nil
}

// legacyParams returns params without the _meta keys of revision
// 2026-07-28, which a server of an earlier revision does not know.
func legacyParams(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) != nil {
		return params
	}
	for k := range meta {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") {
			delete(meta, k)
		}
	}
	if len(meta) == 0 {
		delete(p, "_meta")
	} else {
		p["_meta"], _ = json.Marshal(meta)
	}
	if len(p) == 0 {
		return nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return b
}

// modernResult adds to a forwarded result what revision 2026-07-28
// requires: its resultType, the server's info in _meta and, on the
// results of lists, a ttlMs of 0 and a private cacheScope (what the other
// server answers may depend on who asks).
func (ss *session) modernResult(method string, res json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(res, &m) != nil {
		return res
	}
	if _, ok := m["resultType"]; !ok {
		m["resultType"] = json.RawMessage(`"complete"`)
	}
	if methods[method].cached {
		if _, ok := m["ttlMs"]; !ok {
			m["ttlMs"] = json.RawMessage("0")
		}
		if _, ok := m["cacheScope"]; !ok {
			m["cacheScope"] = json.RawMessage(`"private"`)
		}
	}
	meta := map[string]any{}
	_ = json.Unmarshal(m["_meta"], &meta)
	meta[metaServerInfo] = ss.srv.info
	m["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(m)
	if err != nil {
		return res
	}
	return b
}

// announced returns the capabilities initialize and server/discover
// announce: the Forwarder's, or this server's own.
func (ss *session) announced() any {
	if f := ss.srv.opts.Forward; f != nil {
		if caps := f.Capabilities(); len(caps) > 0 {
			return caps
		}
		return struct{}{}
	}
	return ss.srv.capabilities()
}
