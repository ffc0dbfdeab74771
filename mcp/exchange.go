package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

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
