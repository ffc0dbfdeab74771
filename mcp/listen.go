package mcp

import (
	"encoding/json"
	"strings"

	"github.com/mcpship/mcpship/internal/mcpproxy"
)

// Revision 2026-07-28 has no GET stream and no resources/subscribe: a
// client asks for the notifications that belong to no request with
// subscriptions/listen, a request whose response is a stream that stays
// open. The server first acknowledges it with the part of the filter it
// can honour, then sends the notifications the filter admits, each with
// the request's id in _meta, until the client cancels it (closing the
// HTTP response, or notifications/cancelled over stdio) or the server
// ends it.

// metaSubscriptionID is the _meta key that ties a notification to the
// subscriptions/listen request whose stream carries it.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// defaultMaxListens bounds the subscriptions/listen streams a server keeps
// open at once, over every transport.
const defaultMaxListens = 1024

// subscriptionFilter is the "notifications" member of subscriptions/listen:
// what the client asks to receive and, in the acknowledgement, what the
// server agreed to send.
type subscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

func (f *subscriptionFilter) empty() bool {
	return !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0
}

// admits reports whether a notification goes on a stream of this filter;
// uri is the resource of notifications/resources/updated. An update of a
// resource under one subscribed to (file:///dir/a under file:///dir)
// passes, as the revision allows. Nothing else passes: log messages
// belong to requests, and the revision forbids sending what was not asked.
func (f *subscriptionFilter) admits(method, uri string) bool {
	switch method {
	case "notifications/tools/list_changed":
		return f.ToolsListChanged
	case "notifications/prompts/list_changed":
		return f.PromptsListChanged
	case "notifications/resources/list_changed":
		return f.ResourcesListChanged
	case "notifications/resources/updated":
		for _, s := range f.ResourceSubscriptions {
			if uri == s || strings.HasPrefix(uri, strings.TrimSuffix(s, "/")+"/") {
				return true
			}
		}
	}
	return false
}

// offered returns the part of want that the capabilities announced
// promise: list changes where they say listChanged, resource updates
// where resources say subscribe.
func (ss *session) offered(want subscriptionFilter) subscriptionFilter {
	var caps struct {
		Tools, Prompts *struct {
			ListChanged bool `json:"listChanged"`
		}
		Resources *struct {
			ListChanged bool `json:"listChanged"`
			Subscribe   bool `json:"subscribe"`
		}
	}
	if b, err := json.Marshal(ss.announced()); err == nil {
		_ = json.Unmarshal(b, &caps)
	}
	var got subscriptionFilter
	got.ToolsListChanged = want.ToolsListChanged && caps.Tools != nil && caps.Tools.ListChanged
	got.PromptsListChanged = want.PromptsListChanged && caps.Prompts != nil && caps.Prompts.ListChanged
	got.ResourcesListChanged = want.ResourcesListChanged && caps.Resources != nil && caps.Resources.ListChanged
	if caps.Resources != nil && caps.Resources.Subscribe {
		seen := map[string]bool{}
		for _, uri := range want.ResourceSubscriptions {
			if uri != "" && !seen[uri] {
				seen[uri] = true
				got.ResourceSubscriptions = append(got.ResourceSubscriptions, uri)
			}
		}
	}
	return got
}

// listener is an open subscriptions/listen stream.
type listener struct {
	id     msgID
	filter subscriptionFilter // as acknowledged
	queue  chan note          // what Notify and the proxy send, not yet written
}

// note is a notification waiting for a listener's stream.
type note struct {
	method string
	params json.RawMessage // nil for none
}

// offer queues a notification for the stream when the filter admits it,
// and reports whether it was queued; a stream that has fallen
// streamBacklog behind drops it.
func (s *Server) offer(l *listener, method, uri string, params json.RawMessage) bool {
	if !l.filter.admits(method, uri) {
		return false
	}
	select {
	case l.queue <- note{method, params}:
		return true
	default:
		s.log.Warn("notification dropped: a subscriptions/listen stream is not reading", "method", method)
		return false
	}
}

// addListener keeps l among the server's open listens; false when as many
// as the limit are open.
func (s *Server) addListener(l *listener) bool {
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	if len(s.streams.listeners) >= s.maxListens {
		return false
	}
	if s.streams.listeners == nil {
		s.streams.listeners = map[*listener]bool{}
	}
	s.streams.listeners[l] = true
	return true
}

func (s *Server) removeListener(l *listener) {
	s.streams.mu.Lock()
	delete(s.streams.listeners, l)
	s.streams.mu.Unlock()
}

// listen opens a subscriptions/listen stream (revision 2026-07-28): it
// runs as a call does, on a goroutine of its own, without taking one of
// the calls' places, until the client cancels it or the server ends it.
func (ss *session) listen(id msgID, params json.RawMessage, meta *requestMeta) {
	var p struct {
		Notifications json.RawMessage `json:"notifications"`
	}
	var want subscriptionFilter
	if json.Unmarshal(params, &p) != nil || len(p.Notifications) == 0 || p.Notifications[0] != '{' || json.Unmarshal(p.Notifications, &want) != nil {
		ss.reply(id, nil, errorf(CodeInvalidParams, `invalid params: subscriptions/listen needs "notifications", an object of what to receive: "toolsListChanged", "promptsListChanged" and "resourcesListChanged" (booleans) and "resourceSubscriptions" (an array of resource URIs)`))
		return
	}
	l := &listener{id: id, filter: ss.offered(want), queue: make(chan note, streamBacklog)}
	ss.mu.Lock()
	stopping := ss.stopping
	ss.mu.Unlock()
	if stopping {
		ss.reply(id, nil, errorf(CodeInternalError, "the server is shutting down; subscriptions/listen was not opened"))
		return
	}
	if !ss.srv.addListener(l) {
		ss.reply(id, nil, errorf(CodeInternalError, "too many subscriptions: %d subscriptions/listen streams are open, the most this server keeps; cancel one, or try again later", ss.srv.maxListens))
		return
	}
	c := &listening{task: ss.newTask(id, "subscriptions/listen", true), l: l}
	var fr *mcpproxy.Request
	if ss.srv.opts.proxy != nil && !l.filter.empty() {
		fr = &mcpproxy.Request{Method: "subscriptions/listen", Params: legacyParams(params), ModernParams: params, ProtocolVersion: meta.ProtocolVersion,
			ClientCapabilities: meta.ClientCapabilities, Header: ss.env.header, Client: &proxyClient{ss: ss, to: ss.to, listen: l}}
	}
	ss.mu.Lock()
	ss.inflight[id.key()] = &c.task
	ss.calls.Add(1) // under mu, so never concurrent with stop's Wait
	ss.mu.Unlock()
	c.to.open()
	go ss.runListen(c, fr)
}

// listening is an open subscriptions/listen: a request that the server
// answers when the stream ends.
type listening struct {
	task
	l *listener
}

// runListen serves a listen stream: the proxy's part, the
// acknowledgement, then the notifications, until the client cancels it
// (nothing more is sent) or the server ends it (over stdio with
// notifications/cancelled, over HTTP with the request's result, which
// closes the stream).
func (ss *session) runListen(c *listening, fr *mcpproxy.Request) {
	l, to := c.l, c.to
	defer func() {
		ss.srv.removeListener(l)
		ss.mu.Lock()
		delete(ss.inflight, c.id.key())
		ss.mu.Unlock()
		c.cancel()
		to.done()
		ss.calls.Done()
	}()
	if fr != nil {
		stop, err := ss.srv.opts.proxy.Listen(c.ctx, fr)
		if stop != nil {
			defer stop()
		}
		defer fr.Client.(*proxyClient).end()
		if err != nil {
			ss.logEncoding(to.put(newResponse(c.id, nil, asError(err)), false))
			return
		}
	}
	idMeta := map[string]any{metaSubscriptionID: c.id}
	ss.logEncoding(to.put(&notification{JSONRPC: "2.0", Method: "notifications/subscriptions/acknowledged",
		Params: map[string]any{"_meta": idMeta, "notifications": &l.filter}}, false))
	closed := &struct {
		ResultType string         `json:"resultType"`
		Meta       map[string]any `json:"_meta"`
	}{"complete", idMeta}
	if l.filter.empty() {
		// Nothing to listen for: the subscription ends at once.
		ss.logEncoding(to.put(newResponse(c.id, closed, nil), false))
		return
	}
	for {
		select {
		case n := <-l.queue:
			ss.sendNote(c, n)
		case <-c.ctx.Done():
			return // cancelled by the client, or it went away
		case <-ss.closing:
			ss.endListen(c, closed)
			return
		case <-ss.teardown:
			ss.endListen(c, closed)
			return
		}
	}
}

// endListen sends what is queued, then tells the client that the server
// ended its subscription.
func (ss *session) endListen(c *listening, closed any) {
	for queued := true; queued; {
		select {
		case n := <-c.l.queue:
			ss.sendNote(c, n)
		default:
			queued = false
		}
	}
	if ss.stdio != nil {
		ss.logEncoding(c.to.put(&notification{JSONRPC: "2.0", Method: "notifications/cancelled",
			Params: map[string]any{"requestId": c.id, "reason": "the server closed the subscription"}}, false))
		return
	}
	ss.logEncoding(c.to.put(newResponse(c.id, closed, nil), false))
}

// sendNote sends a queued notification on a listen's stream.
func (ss *session) sendNote(c *listening, n note) {
	params, ok := withSubscriptionID(n.params, c.id)
	if !ok {
		ss.srv.log.Warn("notification not sent: its params are not a JSON object", "method", n.method)
		return
	}
	ss.logEncoding(c.to.put(&notification{JSONRPC: "2.0", Method: n.method, Params: params}, false))
}

// withSubscriptionID returns params with the subscription's id in _meta;
// false when params are not a JSON object.
func withSubscriptionID(params json.RawMessage, id msgID) (json.RawMessage, bool) {
	m := map[string]json.RawMessage{}
	if len(params) > 0 && string(params) != "null" {
		if json.Unmarshal(params, &m) != nil {
			return nil, false
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := m["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return nil, false
	}
	meta[metaSubscriptionID] = json.RawMessage(id.raw)
	var err error
	if m["_meta"], err = json.Marshal(meta); err != nil {
		return nil, false
	}
	b, err := json.Marshal(m)
	return b, err == nil
}

// resourceURI returns the uri member of a notification's params.
func resourceURI(params json.RawMessage) string {
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(params, &p)
	return p.URI
}
