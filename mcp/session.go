package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// session is the state of one connection served by Serve.
type session struct {
	srv    *Server
	out    *lineWriter
	calls  sync.WaitGroup // tool calls queued or running
	broken chan struct{}  // closed when a write fails
	once   sync.Once

	stopped     atomic.Bool // no more lines are dispatched
	initialized atomic.Bool // initialize has been answered (legacy era)
	version     atomic.Value
	logLevel    atomic.Int32 // legacy logging/setLevel; levelOff when unset

	mu       sync.Mutex
	inflight map[string]*inflight // tools/call by id
	ctx      context.Context      // parent of every call's context
	cancel   context.CancelFunc

	// Tool calls wait in queue for one of at most MaxConcurrentCalls
	// workers. Workers live until the session stops, so a call costs no
	// new goroutine (nor the growth of a new goroutine's stack), and a
	// waiting call holds a few hundred bytes, not a goroutine.
	qmu     sync.Mutex
	queue   []*pendingCall
	workers int           // started
	idle    int           // waiting for work
	wake    chan struct{} // a call was queued; buffered, never blocks
	quit    chan struct{} // closed by stop: idle workers exit

	// Only the goroutine that reads uses these.
	handedOff  bool         // it started or woke a worker
	lr         *lineReader  // the input
	inlineNext *pendingCall // a call to run inline after handle returns

	// The hand-off of reading when a call runs inline for too long: one
	// timer for the session, reset for each inline call.
	takeover *time.Timer
	fired    sync.WaitGroup // the timer is set and takeOver has not returned
	tmu      sync.Mutex
	callDone bool // the inline call has returned; under tmu
	moved    bool // takeOver started another reader; under tmu

	inline  bool       // a call runs inline on the reader; under qmu
	readErr chan error // how reading ended
}

// pendingCall is a checked tools/call waiting for a worker.
type pendingCall struct {
	ctx    context.Context
	rt     *registeredTool
	req    *CallRequest
	modern bool
}

// inflight is a tool call that has not been answered.
type inflight struct {
	cancel    context.CancelFunc
	cancelled bool // the client cancelled it: send nothing more for it
}

func newSession(s *Server, w io.Writer) *session {
	ss := &session{
		srv:      s,
		out:      &lineWriter{w: w},
		wake:     make(chan struct{}, s.opts.MaxConcurrentCalls),
		quit:     make(chan struct{}),
		readErr:  make(chan error, 1),
		broken:   make(chan struct{}),
		inflight: map[string]*inflight{},
	}
	ss.ctx, ss.cancel = context.WithCancel(context.Background())
	ss.logLevel.Store(levelOff)
	return ss
}

// readFrom reads and dispatches messages until the input ends, then
// reports how it ended on readErr. When a call it runs inline outlasts
// inlineFor, another goroutine takes over the reading and this one stops.
func (ss *session) readFrom(lr *lineReader) {
	if err := ss.read(lr); err != errTakenOver {
		ss.readErr <- err
	}
}

var errTakenOver = errors.New("mcp: another goroutine reads now")

func (ss *session) read(lr *lineReader) error {
	ss.lr = lr
	for {
		line, tooLong, err := lr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if ss.stopped.Load() {
			return nil
		}
		if tooLong {
			ss.srv.log.Warn("message over the size limit skipped", "limit", ss.srv.opts.MaxMessageBytes)
			ss.reply(prefixID(line), nil, errorf(CodeInvalidRequest,
				"message exceeds the limit of %d bytes and was skipped", ss.srv.opts.MaxMessageBytes))
			continue
		}
		ss.handle(line)
		if c := ss.inlineNext; c != nil {
			ss.inlineNext = nil
			if !ss.runInline(lr, c) {
				return errTakenOver
			}
			continue
		}
		if ss.handedOff && lr.r.Buffered() == 0 {
			// The next read blocks in the kernel, holding this thread,
			// so the worker just woken would wait for another thread to
			// wake and take it over. Yield, so that it runs here first.
			ss.handedOff = false
			runtime.Gosched()
		}
	}
}

// inlineFor is how long a call run by the reader may take before another
// goroutine takes over the reading.
const inlineFor = 500 * time.Microsecond

// runInline runs a call on the reading goroutine, as a server without
// concurrency would, which saves handing it to a worker and back. If the
// call is still running after inlineFor, a new goroutine goes on reading
// and runInline returns false: this goroutine must not read any more.
func (ss *session) runInline(lr *lineReader, c *pendingCall) (reading bool) {
	ss.tmu.Lock() // everything this goroutine did happens before the takeover
	ss.callDone, ss.moved = false, false
	ss.tmu.Unlock()
	ss.fired.Add(1)
	if ss.takeover == nil {
		ss.takeover = time.AfterFunc(inlineFor, ss.takeOver)
	} else {
		ss.takeover.Reset(inlineFor)
	}
	ss.runCall(c)
	ss.tmu.Lock()
	ss.callDone = true
	ss.tmu.Unlock()
	if ss.takeover.Stop() {
		ss.fired.Done()
	} else {
		ss.fired.Wait() // the timer fired: let takeOver finish first
	}
	ss.tmu.Lock()
	reading = !ss.moved
	ss.tmu.Unlock()
	ss.qmu.Lock()
	ss.inline = false
	ss.qmu.Unlock()
	ss.ensureWorker()
	return reading
}

// takeOver runs when a call has run inline for inlineFor: unless the call
// has just ended, a new goroutine goes on reading.
func (ss *session) takeOver() {
	defer ss.fired.Done()
	ss.tmu.Lock()
	defer ss.tmu.Unlock()
	if !ss.callDone {
		ss.moved = true
		go ss.readFrom(ss.lr)
	}
}

// stop ends the session: no more messages are read, running calls get
// timeout to finish and answer, then the rest are cancelled and nothing
// more is written.
func (ss *session) stop(timeout time.Duration) {
	ss.mu.Lock()
	ss.stopped.Store(true)
	ss.mu.Unlock()
	done := make(chan struct{})
	go func() { ss.calls.Wait(); close(done) }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		ss.srv.log.Warn("calls still running at shutdown were cancelled", "waited", timeout)
	case <-ss.broken:
	}
	ss.cancel()
	ss.out.close()
	close(ss.quit)
}

// dispatch runs a call inline on the reader when nothing else is running,
// no call waits and no more input is buffered (a client making one call
// at a time); otherwise it queues the call for a worker.
func (ss *session) dispatch(c *pendingCall) {
	ss.qmu.Lock()
	if !ss.inline && len(ss.queue) == 0 && ss.idle == ss.workers && ss.lr.r.Buffered() == 0 {
		ss.inline = true
		ss.qmu.Unlock()
		ss.inlineNext = c
		return
	}
	ss.qmu.Unlock()
	ss.enqueue(c)
}

// enqueue queues a call and makes sure a worker will take it: an idle
// one, a new one while fewer than MaxConcurrentCalls run, or else the
// next busy one to finish.
func (ss *session) enqueue(c *pendingCall) {
	ss.qmu.Lock()
	ss.queue = append(ss.queue, c)
	ss.qmu.Unlock()
	if ss.ensureWorker() {
		ss.handedOff = true
	}
}

// ensureWorker makes sure a worker will take the queued calls, and
// reports whether it started or woke one.
func (ss *session) ensureWorker() bool {
	ss.qmu.Lock()
	running := ss.workers - ss.idle
	if ss.inline {
		running++
	}
	spawn := len(ss.queue) > 0 && ss.idle == 0 && running < ss.srv.opts.MaxConcurrentCalls
	if spawn {
		ss.workers++
	}
	wake := len(ss.queue) > 0 && ss.idle > 0
	ss.qmu.Unlock()
	switch {
	case spawn:
		go ss.worker()
	case wake:
		select {
		case ss.wake <- struct{}{}:
		default: // as many wake-ups are pending as there are workers
		}
	}
	return spawn || wake
}

// worker runs queued calls one after another until the session stops.
func (ss *session) worker() {
	ss.qmu.Lock()
	for {
		for len(ss.queue) == 0 {
			ss.idle++
			ss.qmu.Unlock()
			select {
			case <-ss.wake:
			case <-ss.quit:
				return
			}
			ss.qmu.Lock()
			ss.idle--
		}
		c := ss.queue[0]
		ss.queue[0] = nil
		ss.queue = ss.queue[1:]
		ss.qmu.Unlock()
		ss.runCall(c)
		ss.qmu.Lock()
	}
}

// write sends one message; a failure ends the session.
func (ss *session) write(v any) {
	if err := ss.out.write(v); err != nil && !errors.Is(err, errClosed) {
		ss.once.Do(func() {
			ss.srv.log.Error("cannot write to the client; ending the session", "err", err)
			close(ss.broken)
		})
	}
}

func (ss *session) reply(id ID, result any, e *Error) {
	if id.IsZero() {
		id = nullID
	}
	ss.write(&response{JSONRPC: "2.0", ID: id, Result: result, Error: e})
}

// handle dispatches one line.
func (ss *session) handle(line []byte) {
	var m message
	if quickMessage(line, &m) {
		// The common shape, read without reflection.
	} else if err := json.Unmarshal(line, &m); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			ss.reply(nullID, nil, errorf(CodeParseError, "parse error: %v", err))
			return
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '[' {
			ss.reply(nullID, nil, errorf(CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line"))
			return
		}
		if typeErr.Field == "" {
			ss.reply(nullID, nil, errorf(CodeInvalidRequest, "invalid request: a message must be a JSON object, not %s", withArticle(typeErr.Value)))
			return
		}
		ss.reply(messageID(line), nil, errorf(CodeInvalidRequest, "invalid request: %q must not be %s", typeErr.Field, withArticle(typeErr.Value)))
		return
	}
	hasID := m.ID != nil
	var id ID
	if hasID && validID(m.ID) {
		id = ID{raw: string(m.ID)}
	}
	switch {
	case m.JSONRPC != "2.0":
		ss.reply(id, nil, errorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`))
		return
	case m.Method == "" && (m.Result != nil || m.Error != nil):
		return // a response; this server sends no requests, so it answers nothing
	case m.Method == "":
		ss.reply(id, nil, errorf(CodeInvalidRequest, `invalid request: "method" is missing`))
		return
	case hasID && string(m.ID) == "null":
		ss.reply(nullID, nil, errorf(CodeInvalidRequest, "invalid request: id must be a string or an integer, not null"))
		return
	case hasID && id.IsZero():
		ss.reply(nullID, nil, errorf(CodeInvalidRequest, "invalid request: id must be a string or an integer, got %s", m.ID))
		return
	}
	params := m.Params
	if len(params) > 0 && string(params) == "null" {
		params = nil
	}
	if len(params) > 0 && params[0] != '{' {
		if hasID {
			ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: must be an object"))
		}
		return
	}
	if !hasID {
		ss.notification(m.Method, params)
		return
	}
	if ss.isInflight(id) {
		ss.reply(nullID, nil, &Error{Code: CodeInvalidRequest,
			Message: "invalid request: id " + id.raw + " is already in use by a request in progress",
			Data:    map[string]any{"id": id}})
		return
	}
	ss.request(id, m.Method, params)
}

// withArticle puts "a" or "an" before the name of a JSON type.
func withArticle(typ string) string {
	if typ != "" && strings.ContainsRune("aeiou", rune(typ[0])) {
		return "an " + typ
	}
	return "a " + typ
}

func (ss *session) isInflight(id ID) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	_, ok := ss.inflight[id.raw]
	return ok
}

// notification handles a message without an id: it is never answered.
func (ss *session) notification(method string, params json.RawMessage) {
	switch method {
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(params, &p) != nil || !validID(p.RequestID) {
			return
		}
		ss.mu.Lock()
		if c, ok := ss.inflight[string(p.RequestID)]; ok && !c.cancelled {
			c.cancelled = true
			c.cancel()
		}
		ss.mu.Unlock()
	default:
		// notifications/initialized and anything unknown: nothing to do.
	}
}
