package mcp

import (
	"encoding/json"
	"sync"
)

// streamBacklog is how many notifications wait for a GET stream that is
// slow to take them; past it, more are dropped.
const streamBacklog = 64

// sessionEnder is a [Forwarder] told when a legacy session ends, so that
// it can let go of what it kept for it (subscriptions, a log level).
type sessionEnder interface {
	EndSession(id string)
}

// streams are the open GET streams of legacy HTTP sessions, by session id.
type streams struct {
	mu sync.Mutex
	m  map[string]chan []byte
}

func (s *Server) listen(session string) chan []byte {
	ch := make(chan []byte, streamBacklog)
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	if s.streams.m == nil {
		s.streams.m = map[string]chan []byte{}
	}
	s.streams.m[session] = ch
	return ch
}

func (s *Server) unlisten(session string, ch chan []byte) {
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	if s.streams.m[session] == ch {
		delete(s.streams.m, session)
	}
}

// Notify sends a notification, such as notifications/tools/list_changed,
// on the GET stream of the legacy HTTP session whose id is session, or
// of every session when session is "". It reports whether a stream took
// it: a session without an open GET stream (and a client of revision
// 2026-07-28, which has none) does not get it, nor one whose stream has
// fallen far behind. A [Forwarder] uses it to pass on the other server's
// notifications that belong to no request; a Forwarder that also has a
// method EndSession(id string) is told when a legacy session ends.
func (s *Server) Notify(session, method string, params any) bool {
	b, err := json.Marshal(&notification{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		s.log.Error("notification not sent: its params do not encode as JSON", "method", method, "err", err)
		return false
	}
	b = append(b, '\n')
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
	return sent
}
