package mcp

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

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

// newSession returns a session that is not yet kept, or nil when as many
// as MaxSessions are kept and all of them are in use.
func (h *HTTPHandler) newSession() *httpSession {
	if !h.makeRoom() {
		return nil
	}
	ss := newSessionCtx(h.srv, h.stop)
	ss.queue.maxCalls = math.MaxInt
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
	ss.queue.maxCalls = math.MaxInt
	ss.initialized = true
	ss.version = st.Version
	ss.clientCaps = st.Caps
	ss.env.sid = sid
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
	events := h.srv.openGetStream(hs.id)
	defer h.srv.closeGetStream(hs.id, events)
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
