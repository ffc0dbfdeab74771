package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/mcpship/mcpship/internal/mcpproxy"
)

func init() {
	mcpproxy.WithProxy = func(o *ServerOptions, p mcpproxy.Proxy) { o.proxy = p }
	mcpproxy.NotifySession = (*Server).notify
	mcpproxy.WithClientHooks = func(o *ClientOptions, onRequest mcpproxy.OnRequest, onResponse mcpproxy.OnResponse) {
		o.onRequest, o.onResponse = onRequest, onResponse
	}
}

// proxyClient is the client of a request that the server passes to its
// proxy (internal/mcpproxy): what the proxy sends it goes to the session
// the request came in, on the request's sink.
type proxyClient struct {
	ss       *session // nil for a request the server makes itself
	to       sink
	listen   *listener // of a subscriptions/listen; nil for a request
	logLevel int32     // lowest level of log messages sent (revision 2026-07-28's _meta); -1 for any
	mu       sync.Mutex
	done     bool
}

// end drops what the proxy sends about the request from now on.
func (pc *proxyClient) end() {
	pc.mu.Lock()
	pc.done = true
	pc.mu.Unlock()
}

// Notify implements mcpproxy.Client.
func (pc *proxyClient) Notify(method string, params any) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.done || pc.ss == nil {
		return
	}
	if pc.listen != nil {
		raw, err := encodeParams(params)
		if err != nil {
			pc.ss.srv.log.Error("notification not sent: its params do not encode as JSON", "method", method, "err", err)
			return
		}
		pc.ss.srv.offer(pc.listen, method, resourceURI(raw), raw)
		return
	}
	if method == "notifications/message" && pc.logLevel >= 0 {
		var p struct {
			Level LogLevel `json:"level"`
		}
		if b, err := json.Marshal(params); err != nil || json.Unmarshal(b, &p) != nil || p.Level.rank() < pc.logLevel {
			return
		}
	}
	pc.ss.logEncoding(pc.to.put(&notification{JSONRPC: "2.0", Method: method, Params: params}, false))
}

// Request implements mcpproxy.Client.
func (pc *proxyClient) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if pc.ss == nil {
		return nil, errorf(CodeMethodNotFound, "%s: no client is asking (the server lists the tools for itself)", method)
	}
	if pc.ss.env.stateless {
		return nil, errorf(CodeMethodNotFound, "%s: a client of revision 2026-07-28 takes no requests from the server", method)
	}
	id, ch := pc.ss.peer.ask("mcpship-forward-")
	defer pc.ss.peer.forget(id)
	pc.mu.Lock()
	if pc.done {
		pc.mu.Unlock()
		return nil, errorf(CodeInternalError, "%s: the request it was about has ended", method)
	}
	var p any
	if len(params) > 0 {
		p = params
	}
	err := pc.to.put(&serverRequest{JSONRPC: "2.0", ID: id, Method: method, Params: p}, false)
	pc.mu.Unlock()
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
	case <-pc.ss.ctx.Done():
		return nil, errorf(CodeInternalError, "%s: the client's session ended", method)
	}
}

// forward starts a request that goes to the proxy. It runs as a
// tools/call does, on a goroutine of its own, and a client's
// notifications/cancelled cancels it; meta is nil for a legacy request.
func (ss *session) forward(id msgID, method string, params json.RawMessage, meta *requestMeta) {
	pc := &proxyClient{ss: ss, to: ss.to, logLevel: -1}
	r := &mcpproxy.Request{Method: method, Params: params, ProtocolVersion: ss.version,
		ClientCapabilities: ss.clientCaps, Session: ss.env.sid, Header: ss.env.header, Client: pc}
	if meta != nil {
		r.ProtocolVersion, r.ClientCapabilities = meta.ProtocolVersion, meta.ClientCapabilities
		r.Params, r.ModernParams = legacyParams(params), params
		// Revision 2026-07-28: log messages only for a request that asks,
		// at or above the level it asks for.
		pc.logLevel = levelOff
		if meta.LogLevel != nil {
			pc.logLevel = meta.LogLevel.rank()
		}
	}
	p := &proxied{task: ss.newTask(id, method, meta != nil), r: r}
	p.size = len(params)
	p.run = func() { ss.runProxied(p) }
	ss.start(&p.task)
}

// proxied is a request for the proxy that has not been answered.
type proxied struct {
	task
	r *mcpproxy.Request
}

// runProxied runs a proxied request and answers it.
func (ss *session) runProxied(c *proxied) {
	r := c.r
	res, rpcErr := ss.invokeProxy(c.ctx, r)
	r.Client.(*proxyClient).end()
	ss.finish(&c.task, func() *response {
		if rpcErr != nil {
			return newResponse(c.id, nil, rpcErr)
		}
		if r.Method == "tools/list" {
			ss.srv.sawToolList(res)
		}
		if c.modern {
			res = ss.modernResult(r.Method, res)
		}
		return newResponse(c.id, res, nil)
	})
}

// invokeProxy passes a request to the proxy, turning a panic into an
// internal error.
func (ss *session) invokeProxy(ctx context.Context, r *mcpproxy.Request) (res json.RawMessage, rpcErr *Error) {
	defer func() {
		if p := recover(); p != nil {
			ss.srv.log.Error("proxy panicked", "method", r.Method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, rpcErr = nil, errorf(CodeInternalError, "internal error: %s failed unexpectedly (panic: %v)", r.Method, p)
		}
	}()
	if ctx.Err() != nil {
		return nil, errorf(CodeInternalError, "%s was cancelled before it started", r.Method)
	}
	res, err := ss.srv.opts.proxy.Serve(ctx, r)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, errorf(CodeInternalError, "%v", err)
	}
	if len(bytes.TrimSpace(res)) == 0 || res[0] != '{' {
		return nil, errorf(CodeInternalError, "internal error: the result of %s is not a JSON object", r.Method)
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
// announce: the proxy's, or this server's own.
func (ss *session) announced() any {
	if f := ss.srv.opts.proxy; f != nil {
		if caps := f.Capabilities(); len(caps) > 0 {
			return caps
		}
		return struct{}{}
	}
	return ss.srv.capabilities()
}

// forwardedTools is what a Server with a proxy knows of the other
// server's tools: the arguments each mirrors into Mcp-Param-* headers,
// read from its tools/list, so that the HTTP handler checks the headers
// of a call of a forwarded tool as it checks those of its own tools.
type forwardedTools struct {
	mu      sync.Mutex
	headers map[string][]headerParam // by tool name; nil until listed, or after a list change
	listed  time.Time                // when the proxy was last asked
}

// relistAfter is how soon after asking the proxy for its tools the
// server asks again for a tool it did not list, so that calls of unknown
// tools do not each cost a tools/list.
const relistAfter = time.Second

// maxListPages bounds the pages of one tools/list of the proxy.
const maxListPages = 100

// forwardedHeaders returns the header arguments of the proxy's tool
// name, asking the proxy for its tools (with hdr, the request's
// headers, which may choose what it serves) when it has not listed them,
// or did not list name and was last asked a while ago.
func (s *Server) forwardedHeaders(ctx context.Context, hdr http.Header, name string) []headerParam {
	ft := &s.fwdTools
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if hps, ok := ft.headers[name]; ok {
		return hps
	}
	if ft.headers != nil && time.Since(ft.listed) < relistAfter {
		return nil
	}
	ft.listed = time.Now()
	headers := map[string][]headerParam{}
	cursor := ""
	for range maxListPages {
		var params json.RawMessage
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		res, err := s.opts.proxy.Serve(ctx, &mcpproxy.Request{Method: "tools/list", Params: params,
			ProtocolVersion: LatestLegacyVersion, ClientCapabilities: json.RawMessage("{}"), Header: hdr, Client: &proxyClient{}})
		if err != nil {
			s.log.Debug("the forwarded server's tools could not be listed to check Mcp-Param headers", "err", err)
			break
		}
		cursor = addHeaderParams(headers, res)
		if cursor == "" {
			break
		}
	}
	ft.headers = headers
	return headers[name]
}

// sawToolList records the tools of a tools/list result of the
// proxy's that a client asked for.
func (s *Server) sawToolList(res json.RawMessage) {
	ft := &s.fwdTools
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if ft.headers == nil {
		ft.headers = map[string][]headerParam{}
	}
	addHeaderParams(ft.headers, res)
}

// toolsChanged forgets what the server knew of the proxy's tools,
// whose list changed.
func (s *Server) toolsChanged() {
	ft := &s.fwdTools
	ft.mu.Lock()
	ft.headers = nil
	ft.mu.Unlock()
}

// addHeaderParams adds the header arguments of the tools of a tools/list
// result to headers, and returns the result's nextCursor. A tool whose
// annotations break the transport's rules mirrors nothing: a client
// calls it without Mcp-Param headers.
func addHeaderParams(headers map[string][]headerParam, res json.RawMessage) string {
	var r struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if json.Unmarshal(res, &r) != nil {
		return ""
	}
	for _, t := range r.Tools {
		hps, err := headerParams(t.InputSchema)
		if err != nil {
			hps = nil
		}
		headers[t.Name] = hps
	}
	return r.NextCursor
}
