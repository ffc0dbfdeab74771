package mcp

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Resumable streams (revision 2025-11-25, SEP-1699). In a legacy session
// of that revision, the event stream that answers a POST starts with a
// priming event (an id, no data, and how long to wait before
// reconnecting), and each event carries an id, NUMBER_SEQ. When the client
// loses the stream while a call runs, or the call ends it
// ([CallRequest.CloseStream]), the call runs on and its events are kept;
// a GET with Last-Event-ID gets those after that id, and then the rest
// as the call sends them, up to its reply. Clients of earlier revisions
// get streams without ids, as before. What is kept is bounded: the
// streams of maxResumable requests per session, the last maxResumeEvents
// events or maxResumeBytes of each; a session that ends drops them.
const (
	resumableVersion = "2025-11-25"
	resumeRetry      = time.Second
	maxResumable     = 8
	maxResumeEvents  = 256
	maxResumeBytes   = 1 << 20
)

// event is a message sent on a resumable stream.
type event struct {
	seq  int
	data []byte // the message, ending in a newline
}

// frame is the event as written on stream number n.
func (e event) frame(n int) []byte {
	b := make([]byte, 0, len(e.data)+40)
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, '_')
	b = strconv.AppendInt(b, int64(e.seq), 10)
	b = append(b, "\nevent: message\ndata: "...)
	b = append(b, e.data...)
	return append(b, '\n')
}

// keep adds e to the log, dropping the oldest events past the bounds;
// the caller holds mu.
func (ex *exchange) keep(e event) {
	ex.log = append(ex.log, e)
	ex.logBytes += len(e.data)
	for len(ex.log) > 1 && (len(ex.log) > maxResumeEvents || ex.logBytes > maxResumeBytes) {
		ex.logBytes -= len(ex.log[0].data)
		ex.log[0] = event{}
		ex.log = ex.log[1:]
	}
}

// resumable are the streams of a session that a client may resume.
type resumable struct {
	mu      sync.Mutex
	next    int
	streams map[int]*exchange
	cleared bool // the session has ended: nothing more is kept
}

// add makes ex a resumable stream of hs, forgetting the oldest one kept
// when there are maxResumable.
func (rs *resumable) add(ex *exchange, hs *httpSession) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.next++
	ex.hs, ex.streamNo = hs, rs.next
	if rs.streams == nil {
		rs.streams = map[int]*exchange{}
	}
	if len(rs.streams) >= maxResumable {
		oldest := rs.next
		for n := range rs.streams {
			oldest = min(oldest, n)
		}
		delete(rs.streams, oldest)
	}
	rs.streams[ex.streamNo] = ex
}

// take removes and returns the stream that the event id last belongs to,
// with the number of that event; nil when it is not kept.
func (rs *resumable) take(last string) (*exchange, int) {
	no, seq, ok := strings.Cut(last, "_")
	n, err1 := strconv.Atoi(no)
	q, err2 := strconv.Atoi(seq)
	if !ok || err1 != nil || err2 != nil {
		return nil, 0
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	ex := rs.streams[n]
	delete(rs.streams, n)
	if len(rs.streams) == 0 {
		rs.streams = nil
	}
	return ex, q
}

func (rs *resumable) put(ex *exchange) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.cleared {
		return // the session has ended
	}
	if rs.streams == nil {
		rs.streams = map[int]*exchange{}
	}
	rs.streams[ex.streamNo] = ex
}

func (rs *resumable) remove(ex *exchange) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.streams[ex.streamNo] == ex {
		delete(rs.streams, ex.streamNo)
	}
	if len(rs.streams) == 0 {
		rs.streams = nil // an idle session keeps no map
	}
}

func (rs *resumable) clear() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.streams, rs.cleared = nil, true
}

// detach keeps a resumable stream for the client to resume when the
// POST r's response no longer carries it: its client went away, the call
// ended the stream, or a GET took it over. The calls go on; release runs
// once they end. It reports whether the stream was kept, or taken over;
// if not, the handler answers.
func (ex *exchange) detach(r *http.Request, release func()) bool {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	mine := ex.owner == r
	if ex.hs == nil || !ex.streaming || ex.ended || (mine && !ex.detached && r.Context().Err() == nil) {
		return false
	}
	if mine {
		ex.detached, ex.w = true, nil
		ex.hs.resume.put(ex)
	}
	if !ex.kept {
		ex.kept = true
		if ex.calls == 0 {
			release()
		} else {
			// The calls still count as served (Shutdown waits for them)
			// and keep the session in use.
			h, hs := ex.h, ex.hs
			h.running.Add(1)
			hs.active.Add(1)
			ex.onIdle = func() {
				release()
				h.unuse(hs)
				h.running.Add(-1)
			}
		}
	}
	return true
}

// closeStream ends the response that carries the stream, when the client
// can resume it: what the calls send from now on is kept for a GET with
// Last-Event-ID.
func (ex *exchange) closeStream() {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.hs == nil || ex.ended || ex.detached || ex.calls == 0 {
		return
	}
	ex.stream() // the priming event gives the client an id to resume from
	http.NewResponseController(ex.w).Flush()
	ex.detached = true
	close(ex.cut)
}

// resumeOn carries a kept stream on a GET's response: the events after
// the one numbered after, then the rest as the calls send them, until
// they end (the stream is delivered) or the client goes away again (it is
// kept again).
func (ex *exchange) resumeOn(w http.ResponseWriter, r *http.Request, after int) {
	ex.mu.Lock()
	ex.w, ex.owner, ex.detached, ex.cut = w, r, false, make(chan struct{})
	startStream(w)
	for _, e := range ex.log {
		if e.seq > after {
			w.Write(e.frame(ex.streamNo))
		}
	}
	http.NewResponseController(w).Flush()
	open := ex.calls > 0
	ex.mu.Unlock()
	if open {
		ex.wait(r.Context())
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	switch {
	case ex.owner != r: // another GET took it over
	case ex.calls > 0 || r.Context().Err() != nil:
		ex.detached, ex.w = true, nil
		ex.hs.resume.put(ex)
	default:
		ex.ended = true
	}
}
