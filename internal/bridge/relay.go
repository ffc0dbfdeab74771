package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpship/mcpship/internal/mcpproxy"
	"github.com/mcpship/mcpship/mcp"
)

// levels are the log levels, lowest first.
var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// noLevel is the rank of a session that set no log level.
const noLevel = -1

// sessionState is what the bridge keeps for a legacy session: the log
// level it set, the resources it subscribed to, and the children that
// served it, whose notifications it gets.
type sessionState struct {
	level    int
	subs     map[string]bool
	children map[*child]bool
}

// EndSession implements [mcpproxy.Proxy]: it lets go of what the bridge kept for a legacy session that
// ended: its subscriptions, which are cancelled at a shared child that
// no other session needs them from, and its log level.
func (b *Bridge) EndSession(id string) {
	b.smu.Lock()
	st := b.sessions[id]
	delete(b.sessions, id)
	var unsub []func()
	if st != nil {
		for c := range st.children {
			if c.session != "" {
				continue // stopped with its session
			}
			for uri := range st.subs {
				if !b.subscribed(c, uri) {
					unsub = append(unsub, func() { c.send("resources/unsubscribe", map[string]string{"uri": uri}) })
				}
			}
			if lv, changed := b.childLevel(c); changed {
				unsub = append(unsub, func() { c.send("logging/setLevel", map[string]string{"level": lv}) })
			}
		}
	}
	b.smu.Unlock()
	for _, f := range unsub {
		go f()
	}
	b.mu.Lock()
	var own []*child
	for key, c := range b.children {
		if c.session == id {
			delete(b.children, key)
			own = append(own, c)
		}
	}
	b.mu.Unlock()
	for _, c := range own {
		go c.shutdown()
	}
}

// state returns the state of session, made when new; the caller holds smu.
func (b *Bridge) state(session string) *sessionState {
	st := b.sessions[session]
	if st == nil {
		st = &sessionState{level: noLevel, subs: map[string]bool{}, children: map[*child]bool{}}
		b.sessions[session] = st
	}
	return st
}

// joined records that c serves a request of session.
func (b *Bridge) joined(c *child, session string) {
	b.smu.Lock()
	b.state(session).children[c] = true
	b.smu.Unlock()
}

// subscribed reports whether a session that c serves, or a listen of
// revision 2026-07-28 that it serves, is subscribed to uri; the caller
// holds smu.
func (b *Bridge) subscribed(c *child, uri string) bool {
	for _, st := range b.sessions {
		if st.children[c] && st.subs[uri] {
			return true
		}
	}
	for l := range b.listeners[c] {
		if l.uris[uri] {
			return true
		}
	}
	return false
}

// childLevel returns the level a shared child is to log at: the lowest
// that a session it serves set, and whether that differs from the one it
// was last set to. The caller holds smu.
func (b *Bridge) childLevel(c *child) (string, bool) {
	low := noLevel
	for _, st := range b.sessions {
		if st.children[c] && st.level != noLevel && (low == noLevel || st.level < low) {
			low = st.level
		}
	}
	if low == noLevel || low == c.level {
		return "", false
	}
	c.level = low
	return levels[low], true
}

// local answers the requests whose effect on a shared child the bridge
// keeps per session: logging/setLevel and resources/(un)subscribe. It
// reports false for the others, and for a child of one session, which
// gets them as they are.
func (b *Bridge) local(ctx context.Context, c *child, cl *proc, r *mcpproxy.Request) (json.RawMessage, bool, error) {
	switch r.Method {
	case "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
	default:
		return nil, false, nil
	}
	if r.Session == "" {
		// Revision 2026-07-28 has none of these methods: the mcp package
		// answers them method not found itself.
		return nil, false, nil
	}
	var p struct {
		Level string `json:"level"`
		URI   string `json:"uri"`
	}
	_ = json.Unmarshal(r.Params, &p)
	var send []any // method, params pairs for the child
	b.smu.Lock()
	st := b.state(r.Session)
	switch r.Method {
	case "logging/setLevel":
		rank := slices.Index(levels, p.Level)
		if rank < 0 {
			b.smu.Unlock()
			return nil, true, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "logging/setLevel: unknown level " + p.Level + "; use one of " + strings.Join(levels, ", ")}
		}
		st.level = rank
		if c.session != "" {
			b.smu.Unlock()
			return nil, false, nil
		}
		if lv, changed := b.childLevel(c); changed {
			send = append(send, r.Method, map[string]string{"level": lv})
		}
	case "resources/subscribe":
		if p.URI == "" {
			b.smu.Unlock()
			return nil, false, nil // the child says what is wrong
		}
		first := !b.subscribed(c, p.URI)
		st.subs[p.URI] = true
		if c.session != "" {
			b.smu.Unlock()
			return nil, false, nil
		}
		if first {
			send = append(send, r.Method, r.Params)
		}
	case "resources/unsubscribe":
		delete(st.subs, p.URI)
		if c.session != "" {
			b.smu.Unlock()
			return nil, false, nil
		}
		if !b.subscribed(c, p.URI) {
			send = append(send, r.Method, r.Params)
		}
	}
	b.smu.Unlock()
	for i := 0; i < len(send); i += 2 {
		ctx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
		var res json.RawMessage
		err := cl.Call(ctx, send[i].(string), send[i+1], &res)
		cancel()
		if err != nil {
			return nil, true, err
		}
	}
	return json.RawMessage("{}"), true, nil
}

// send sends a request of the bridge's own to the child, such as an
// unsubscribe for a session that ended, and logs a failure.
func (c *child) send(method string, params any) {
	c.mu.Lock()
	cl := c.client
	c.mu.Unlock()
	if cl == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(c.b.opts.CallTimeout, 30*time.Second))
	defer cancel()
	if err := cl.Call(ctx, method, params, nil); err != nil {
		c.b.log.Debug("the server command refused a request of the bridge's", "method", method, "err", err)
	}
}

// restore gives a child started again what its sessions and listens asked
// of the one before: their subscriptions and log level.
func (c *child) restore() {
	b := c.b
	b.smu.Lock()
	uris := map[string]bool{}
	level := noLevel
	for _, st := range b.sessions {
		if !st.children[c] {
			continue
		}
		for uri := range st.subs {
			uris[uri] = true
		}
		if st.level != noLevel && (level == noLevel || st.level < level) {
			level = st.level
		}
	}
	for l := range b.listeners[c] {
		for uri := range l.uris {
			uris[uri] = true
		}
	}
	b.smu.Unlock()
	if level != noLevel {
		c.send("logging/setLevel", map[string]string{"level": levels[level]})
	}
	for uri := range uris {
		c.send("resources/subscribe", map[string]string{"uri": uri})
	}
}

// relay passes on a notification of the child's that is about no one
// request: a list change to each session the child serves, a resource
// update to those subscribed to the resource, and a log message to the
// request it belongs to or the sessions whose level admits it.
func (c *child) relay(method string, params json.RawMessage) {
	b := c.b
	srv := b.srv.Load()
	if srv == nil {
		return
	}
	var p struct {
		URI   string `json:"uri"`
		Level string `json:"level"`
	}
	_ = json.Unmarshal(params, &p)
	switch {
	case strings.HasSuffix(method, "/list_changed"):
		for _, s := range b.served(c, func(*sessionState) bool { return true }) {
			notifySession(srv, s, method, params)
		}
		b.toListeners(c, method, params)
	case method == "notifications/resources/updated":
		for _, s := range b.served(c, func(st *sessionState) bool { return st.subs[p.URI] }) {
			notifySession(srv, s, method, params)
		}
		b.toListeners(c, method, params)
	case method == "notifications/message":
		rank := slices.Index(levels, p.Level)
		admits := func(st *sessionState) bool { return st.level != noLevel && rank >= st.level }
		r := c.requestOf()
		if r != nil && r.Session == "" {
			// Revision 2026-07-28: the request's own, which mcp sends
			// when its _meta asks for the level; never on a listen.
			r.Notify(method, params)
			return
		}
		if r != nil {
			b.smu.Lock()
			st := b.sessions[r.Session]
			ok := st == nil || st.level == noLevel || rank >= st.level
			b.smu.Unlock()
			if ok {
				r.Notify(method, params)
			}
			return
		}
		if c.session != "" {
			admits = func(st *sessionState) bool { return st.level == noLevel || rank >= st.level }
		}
		for _, s := range b.served(c, admits) {
			notifySession(srv, s, method, params)
		}
	default:
		b.log.Debug("notification from the server command not passed on", "method", method)
	}
}

// served returns the sessions c serves for which keep holds.
func (b *Bridge) served(c *child, keep func(*sessionState) bool) []string {
	b.smu.Lock()
	defer b.smu.Unlock()
	var out []string
	for id, st := range b.sessions {
		if st.children[c] && keep(st) {
			out = append(out, id)
		}
	}
	return out
}

// requestOf returns the request a log message of the child belongs to:
// the latest it is answering when every request it is answering is of
// one legacy session, or the only one, of revision 2026-07-28 (stateless,
// so no other request's). Otherwise nil: the message belongs to no one
// request.
func (c *child) requestOf() *mcpproxy.Request {
	c.activeMu.Lock()
	defer c.activeMu.Unlock()
	n := len(c.active)
	if n == 0 {
		return nil
	}
	last := c.active[n-1]
	if n == 1 {
		return last
	}
	for _, r := range c.active {
		if r.Session == "" || r.Session != last.Session {
			return nil
		}
	}
	return last
}

// listener is a subscriptions/listen (revision 2026-07-28) that a child
// serves: its list changes and the updates of its resources go to it,
// and mcp passes on those that the listen's filter admits.
type listener struct {
	r    *mcpproxy.Request
	uris map[string]bool // the resources it subscribed the child to
}

// Listen implements [mcpproxy.Proxy]: the child that
// serves the request's headers is kept running while the listen lasts,
// subscribed once to each resource the listen names that no session or
// other listen of it holds, and unsubscribed from those that no one holds
// any more when the listen ends (stop).
func (b *Bridge) Listen(ctx context.Context, r *mcpproxy.Request) (func(), error) {
	var p struct {
		Notifications struct {
			ResourceSubscriptions []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	_ = json.Unmarshal(r.Params, &p)
	c, release, err := b.childFor(r)
	if err != nil {
		return nil, err
	}
	cl, err := c.get(ctx)
	if err != nil {
		release()
		return nil, err
	}
	l := &listener{r: r, uris: map[string]bool{}}
	var subscribe []string
	b.smu.Lock()
	if canSubscribe(b.caps) {
		for _, uri := range p.Notifications.ResourceSubscriptions {
			if uri == "" || l.uris[uri] {
				continue
			}
			if !b.subscribed(c, uri) {
				subscribe = append(subscribe, uri)
			}
			l.uris[uri] = true
		}
	}
	if b.listeners[c] == nil {
		b.listeners[c] = map[*listener]bool{}
	}
	b.listeners[c][l] = true
	b.smu.Unlock()
	stop := func() {
		b.smu.Lock()
		delete(b.listeners[c], l)
		if len(b.listeners[c]) == 0 {
			delete(b.listeners, c)
		}
		var unsub []string
		for uri := range l.uris {
			if !b.subscribed(c, uri) {
				unsub = append(unsub, uri)
			}
		}
		b.smu.Unlock()
		for _, uri := range unsub {
			c.send("resources/unsubscribe", map[string]string{"uri": uri})
		}
		release()
	}
	for _, uri := range subscribe {
		ctx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
		err := cl.Call(ctx, "resources/subscribe", map[string]string{"uri": uri}, nil)
		cancel()
		if err != nil {
			stop()
			var rpcErr *mcp.Error
			if errors.As(err, &rpcErr) {
				return nil, &mcp.Error{Code: rpcErr.Code, Message: "the server command refused resources/subscribe of " + uri + ": " + rpcErr.Message}
			}
			return nil, fmt.Errorf("subscribing the server command to %s: %v", uri, err)
		}
	}
	return stop, nil
}

// canSubscribe reports whether capabilities say resources: subscribe.
func canSubscribe(caps json.RawMessage) bool {
	var c struct {
		Resources struct {
			Subscribe bool `json:"subscribe"`
		} `json:"resources"`
	}
	return json.Unmarshal(caps, &c) == nil && c.Resources.Subscribe
}

// toListeners passes a notification of c to the listens it serves; mcp
// sends it on those whose filter admits it.
func (b *Bridge) toListeners(c *child, method string, params json.RawMessage) {
	b.smu.Lock()
	var rs []*mcpproxy.Request
	for l := range b.listeners[c] {
		rs = append(rs, l.r)
	}
	b.smu.Unlock()
	for _, r := range rs {
		r.Notify(method, params)
	}
}
