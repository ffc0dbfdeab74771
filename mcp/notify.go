package mcp

import (
	"encoding/json"
	"sync"
)

// streamBacklog is how many notifications wait for a GET stream that is
// slow to take them; past it, more are dropped.
const streamBacklog = 64

// streams are the open GET streams of legacy HTTP sessions, by session
// id, and the open subscriptions/listen streams of revision 2026-07-28.
type streams struct {
	mu        sync.Mutex
	m         map[string]chan []byte
	listeners map[*listener]bool
}

// openGetStream opens the GET stream of a legacy HTTP session: the
// channel Notify sends the session's notifications on.
func (s *Server) openGetStream(session string) chan []byte {
	ch := make(chan []byte, streamBacklog)
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	if s.streams.m == nil {
		s.streams.m = map[string]chan []byte{}
	}
	s.streams.m[session] = ch
	return ch
}

// closeGetStream closes the session's GET stream ch, unless another has
// replaced it.
func (s *Server) closeGetStream(session string, ch chan []byte) {
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	if s.streams.m[session] == ch {
		delete(s.streams.m, session)
	}
}

// Notify sends a notification that belongs to no request, such as
// notifications/tools/list_changed. It goes on the GET stream of every
// legacy HTTP session and on every subscriptions/listen stream (revision
// 2026-07-28) whose acknowledged filter admits it: a list change the
// client asked for, or notifications/resources/updated for a resource it
// named (or one under it); other notifications, log messages among them,
// go on no listen stream. It reports whether a stream took it: one that
// has fallen far behind does not.
func (s *Server) Notify(method string, params any) bool { return s.notify("", method, params) }

// notify is Notify for one legacy HTTP session alone when session is not
// "": a proxy passes on the other server's notifications with it
// (internal/mcpproxy).
func (s *Server) notify(session, method string, params any) bool {
	if method == "notifications/tools/list_changed" && s.opts.proxy != nil {
		s.toolsChanged()
	}
	raw, err := encodeParams(params)
	if err != nil {
		s.log.Error("notification not sent: its params do not encode as JSON", "method", method, "err", err)
		return false
	}
	n := &notification{JSONRPC: "2.0", Method: method}
	if raw != nil {
		n.Params = raw
	}
	b, err := json.Marshal(n)
	if err != nil {
		s.log.Error("notification not sent: it does not encode as JSON", "method", method, "err", err)
		return false
	}
	b = append(b, '\n')
	uri := ""
	if method == "notifications/resources/updated" {
		uri = resourceURI(raw)
	}
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	sent := false
	for id, ch := range s.streams.m {
		if session != "" && id != session {
			continue
		}
		select {
		case ch <- b:
			sent = true
		default:
			s.log.Warn("notification dropped: the session's GET stream is not reading", "method", method)
		}
	}
	if session == "" {
		for l := range s.streams.listeners {
			if s.offer(l, method, uri, raw) {
				sent = true
			}
		}
	}
	return sent
}

// encodeParams encodes a notification's params; nil for none.
func encodeParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	if raw, ok := params.(json.RawMessage); ok && len(raw) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(params)
	if err != nil || string(b) == "null" {
		return nil, err
	}
	return b, nil
}
