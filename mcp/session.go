package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// session is the state of one MCP session: a connection served by Serve,
// a legacy HTTP session, or a single stateless HTTP request. One goroutine
// at a time reads and dispatches messages, answering all but tools/call
// itself. A tools/call runs on a goroutine of its own, at most
// MaxConcurrentCalls at once (more wait in a queue); the one that starts
// it is the goroutine that read it, while an idle one (which ran earlier
// calls) or a new one goes on reading. Messages are written one at a time
// (see output). docs/design.md has the reasons.
type session struct {
	srv *Server
	out *output // the whole output of a stdio session; nil over HTTP
	to  sink    // where replies to what is dispatched go: out, or one HTTP exchange

	stateless bool        // every request must carry revision 2026-07-28's _meta
	inputKey  []byte      // authenticates request states; nil for the server's own key
	sid       string      // the legacy HTTP session's id, for a proxy
	header    http.Header // the headers of the HTTP request being dispatched
	maxCalls  int         // calls run at once; more wait in waiting

	ctx    context.Context // parent of every call's context
	cancel context.CancelFunc

	closing  chan struct{}   // closed by stop: listen streams end
	teardown <-chan struct{} // closed when the transport ends listen streams (HTTP: Shutdown); nil for none

	mu       sync.Mutex
	inflight map[idKey]*task              // requests not yet answered, by msgID.key
	asked    map[string]chan clientAnswer // requests sent to the client, by id
	askSeq   int                          // the last of their ids
	expected map[string]chan *message     // a proxy's requests to the client not yet answered, by id
	sent     int64                        // a proxy's requests sent to the client
	stopping bool                         // no more messages are dispatched
	calls    sync.WaitGroup               // calls started and not finished
	running  int                          // goroutines running calls, at most MaxConcurrentCalls
	waiting  []*task                      // tasks waiting for one of them, first come first served
	held     int                          // bytes of arguments of the calls not yet answered
	room     sync.Cond                    // signalled when held falls to maxHeld or below, or on stop

	readErr chan error       // how reading ended
	turn    chan *lineReader // hands the reading to an idle goroutine

	// Only the goroutine that reads uses these.
	initialized bool            // initialize has been answered (legacy era)
	version     string          // the revision initialize agreed on
	clientCaps  json.RawMessage // the capabilities initialize named
	logLevel    int32           // legacy logging/setLevel; levelOff when unset
	batch       *batch          // the batch being dispatched
	next        *task           // a task to run once the message is dispatched
}

// A task is a request that answers later, on a goroutine of its own: a
// tools/call (call), a request for the proxy (proxied) or a
// subscriptions/listen (listening). The session keeps it in flight, by
// id, until it has answered, so that notifications/cancelled reaches it.
type task struct {
	id        msgID
	name      string // the tool's or the method's
	to        sink   // where its reply and notifications go
	modern    bool   // of revision 2026-07-28
	batch     *batch // the batch it came in, if any
	slot      int    // the place of its reply in batch
	size      int    // bytes of params it counts in session.held
	ctx       context.Context
	cancel    context.CancelFunc
	cancelled bool   // the client cancelled it: send nothing more; under session.mu
	run       func() // runs it and answers it (start queues those of calls and proxied requests)
}

// newTask returns the task of the request id that the session is
// dispatching.
func (ss *session) newTask(id msgID, name string, modern bool) task {
	t := task{id: id, name: name, to: ss.to, modern: modern, batch: ss.batch}
	t.ctx, t.cancel = context.WithCancel(ss.ctx)
	return t
}

// call is a tools/call that has not been answered.
type call struct {
	task
	rt  *registeredTool
	req *CallRequest
}

// A sink takes the messages a session sends: a stdio session's output
// takes all of them, an HTTP exchange the replies to the message of one
// POST and the notifications of its calls.
type sink interface {
	// put sends a message; async is set when the dispatching goroutine
	// sends it, which must not wait for the client.
	put(v any, async bool) error
	// open tells that a call has started that answers later; done, that
	// it has ended and its reply, if it has one, has been put.
	open()
	done()
}

// newSession returns a session that writes every message to w.
func newSession(s *Server, w io.Writer) *session {
	ss := newSessionCtx(s, context.Background())
	ss.out = newOutput(w)
	ss.to = ss.out
	ss.readErr = make(chan error, 1)
	ss.turn = make(chan *lineReader)
	return ss
}

// newSessionCtx returns a session without an output, whose calls are
// cancelled with parent: the transport sets to before each dispatch.
func newSessionCtx(s *Server, parent context.Context) *session {
	ss := &session{srv: s, inflight: map[idKey]*task{}, maxCalls: s.opts.MaxConcurrentCalls}
	ss.room.L = &ss.mu
	ss.ctx, ss.cancel = context.WithCancel(parent)
	ss.closing = make(chan struct{})
	ss.logLevel = levelOff
	return ss
}

// dispatchMessage dispatches one message (or batch) that a transport received
// as a whole and decoded with decodeMessage, sending the replies and the
// notifications of its calls to to. It returns the call to run, if there
// is one, which the caller runs with run. The caller dispatches one
// message at a time.
func (ss *session) dispatchMessage(msg []byte, d *decoded, to sink) *task {
	ss.to = to
	ss.handleDecoded(msg, d)
	ss.to, ss.header = nil, nil
	c := ss.next
	ss.next = nil
	return c
}

// serve reads and dispatches messages from r until r ends or ctx is done,
// then stops the session.
func (ss *session) serve(ctx context.Context, r io.Reader) error {
	go ss.read(newLineReader(r, ss.srv.opts.MaxMessageBytes))
	var err error
	timeout := ss.srv.opts.DrainTimeout
	select {
	case err = <-ss.readErr:
	case <-ctx.Done():
		timeout = ss.srv.opts.ShutdownTimeout
	case <-ss.out.broken:
	}
	if werr := ss.stop(timeout); werr != nil && err == nil {
		err = werr
	}
	return err
}

// read reads and dispatches messages until the input ends (reported on
// readErr) or the session stops. One goroutine reads at a time. When it
// reads a tools/call to run, it hands the reading to an idle goroutine, or
// a new one, and runs the call; then it is idle until the reading is handed
// back to it. Idle goroutines keep the stacks that reading and running
// grew, which a new goroutine would grow again for every message.
func (ss *session) read(lr *lineReader) {
	for {
		c := ss.readCall(lr)
		if c == nil {
			return
		}
		select {
		case ss.turn <- lr:
		default:
			go ss.read(lr)
		}
		ss.run(c)
		select {
		case lr = <-ss.turn:
		case <-ss.ctx.Done():
			return
		}
	}
}

// maxHeld is how many bytes of arguments the calls not yet answered (those
// running and those waiting their turn) may hold before the reader stops
// reading, as output stops it while the replies not yet written hold
// maxQueued: a client that sends calls faster than they run slows itself,
// not the server's memory. One message is always read when nothing is
// held, so a call as long as MaxMessageBytes still runs.
const maxHeld = 4 << 20

// readCall reads and dispatches messages until one is a tools/call to run
// now, and returns it; nil once the input ends or the session stops.
func (ss *session) readCall(lr *lineReader) *task {
	for {
		ss.waitForRoom()
		line, tooLong, err := lr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			ss.out.hold(false)
			ss.readErr <- err
			return nil
		}
		ss.mu.Lock()
		stopping := ss.stopping
		ss.mu.Unlock()
		if stopping {
			ss.out.hold(false)
			ss.readErr <- nil
			return nil
		}
		// Replies wait while a message is dispatched and while another is
		// buffered: those of pipelined requests go out together.
		ss.out.hold(true)
		if tooLong {
			ss.srv.log.Warn("message over the size limit skipped", "limit", ss.srv.opts.MaxMessageBytes)
			ss.reply(prefixID(line), nil, errorf(CodeInvalidRequest,
				"message exceeds the limit of %d bytes and was skipped", ss.srv.opts.MaxMessageBytes))
		} else {
			ss.handle(line)
		}
		lr.release()
		ss.out.hold(lr.more())
		if c := ss.next; c != nil {
			ss.next = nil
			return c
		}
	}
}

// waitForRoom waits while the calls not yet answered hold more than
// maxHeld bytes of arguments and the session is not stopping. Replies
// queued meanwhile are not held for the next message.
func (ss *session) waitForRoom() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.held <= maxHeld || ss.stopping {
		return
	}
	ss.out.hold(false)
	for ss.held > maxHeld && !ss.stopping {
		ss.room.Wait()
	}
}

// stop ends the session: no more messages are dispatched, running calls
// get timeout to finish and answer, then the rest are cancelled and nothing
// more is queued. What is queued is written within the same timeout; a
// writer still blocked then (a client that stopped reading) is abandoned.
func (ss *session) stop(timeout time.Duration) error {
	ss.mu.Lock()
	if !ss.stopping {
		close(ss.closing)
	}
	ss.stopping = true
	ss.room.Broadcast()
	ss.mu.Unlock()
	if ss.out != nil {
		ss.out.hold(false)
	}
	bound, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	finished := make(chan struct{})
	go func() { ss.calls.Wait(); close(finished) }()
	var broken <-chan struct{}
	if ss.out != nil {
		broken = ss.out.broken
	}
	select {
	case <-finished:
	case <-bound.Done():
		ss.srv.log.Warn("calls still running at shutdown were cancelled", "waited", timeout)
	case <-broken:
	}
	ss.cancel()
	if ss.out == nil {
		return nil
	}
	if err := ss.out.close(bound.Done()); err != nil {
		return fmt.Errorf("mcp: writing to the client: %w", err)
	}
	return nil
}

// post sends a message from the reader (see output). A message that
// cannot be encoded is logged.
func (ss *session) post(v any) { ss.logEncoding(ss.to.put(v, true)) }

func (ss *session) logEncoding(err error) {
	if err != nil {
		ss.srv.log.Error("cannot encode a message; it was not sent", "err", err)
	}
}

// reply answers a request read by the reader: into the batch being
// dispatched, if any, else on its own line.
func (ss *session) reply(id msgID, result any, e *Error) {
	if ss.batch == nil {
		ss.post(newResponse(id, result, e))
		return
	}
	ss.batch.add(ss.encode(newResponse(id, result, e)))
}

func newResponse(id msgID, result any, e *Error) *response {
	if id.IsZero() {
		id = nullID
	}
	return &response{JSONRPC: "2.0", ID: id, Result: result, Error: e}
}

// encode encodes a message for a batch; nil if it cannot be encoded.
func (ss *session) encode(v any) []byte {
	b, err := encodeLine(v)
	if err != nil {
		ss.srv.log.Error("cannot encode a message; it was not sent", "err", err)
		return nil
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

// decoded is a line as the session decodes it: the message, and the
// error of decoding it, which tells a batch or what to refuse.
type decoded struct {
	m   message
	err error
}

// decodeMessage decodes a line for handleDecoded. The HTTP handler routes
// a request by what it decodes, so that the body is decoded once.
func decodeMessage(line []byte) *decoded {
	d := new(decoded)
	d.err = json.Unmarshal(line, &d.m)
	return d
}

// handle dispatches one line: a message, or a batch of them.
func (ss *session) handle(line []byte) { ss.handleDecoded(line, decodeMessage(line)) }

// handleDecoded dispatches a line that decodeMessage decoded as d.
func (ss *session) handleDecoded(line []byte, d *decoded) {
	err := d.err
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		ss.dispatch(&d.m)
	case !errors.As(err, &typeErr):
		ss.reply(nullID, nil, errorf(CodeParseError, "parse error: %v", err))
	case typeErr.Field == "" && typeErr.Value == "array":
		ss.handleBatch(line)
	default:
		ss.refuse(line, typeErr)
	}
}

// refuse answers a message that is JSON but does not decode as one.
func (ss *session) refuse(line []byte, typeErr *json.UnmarshalTypeError) {
	if typeErr.Field == "" {
		ss.reply(nullID, nil, errorf(CodeInvalidRequest, "invalid request: a message must be a JSON object, not %s", withArticle(typeErr.Value)))
		return
	}
	ss.reply(messageID(line), nil, errorf(CodeInvalidRequest, "invalid request: %q must not be %s", typeErr.Field, withArticle(typeErr.Value)))
}

// handleBatch dispatches a JSON-RPC batch. Revision 2025-03-26 requires
// servers to accept them: each element is handled as a message of its own,
// and the replies (none for notifications) go back as one array once every
// call in the batch has answered. Other revisions have no batches.
func (ss *session) handleBatch(line []byte) {
	if !ss.initialized || ss.version != "2025-03-26" {
		ss.reply(nullID, nil, errorf(CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line"))
		return
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil {
		ss.reply(nullID, nil, errorf(CodeParseError, "parse error: %v", err))
		return
	}
	if len(elems) == 0 {
		ss.reply(nullID, nil, errorf(CodeInvalidRequest, "invalid request: the batch is empty"))
		return
	}
	b := &batch{open: 1}
	ss.batch = b
	for _, e := range elems {
		var m message
		err := json.Unmarshal(e, &m)
		var typeErr *json.UnmarshalTypeError
		switch {
		case err == nil:
			ss.dispatch(&m)
		case errors.As(err, &typeErr):
			ss.refuse(e, typeErr) // an array in a batch too: no nesting
		default:
			ss.reply(nullID, nil, errorf(CodeParseError, "parse error: %v", err))
		}
	}
	ss.batch = nil
	if replies := b.done(-1, nil); replies != nil {
		ss.post(replies)
	}
}

// batch gathers the replies to a batch, in the order of its requests.
// open counts the reader, while it dispatches the batch, and the batch's
// calls that have not finished.
type batch struct {
	mu      sync.Mutex
	open    int
	replies []json.RawMessage // nil for a call that sent no reply
}

// add keeps a reply.
func (b *batch) add(reply []byte) {
	b.mu.Lock()
	b.replies = append(b.replies, reply)
	b.mu.Unlock()
}

// reserve keeps the place of the reply of a call that will answer later.
func (b *batch) reserve() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.open++
	b.replies = append(b.replies, nil)
	return len(b.replies) - 1
}

// done ends a call, with its reply or nil, or the dispatching (slot -1).
// The last to end gets the replies to send, if there are any.
func (b *batch) done(slot int, reply []byte) []json.RawMessage {
	b.mu.Lock()
	if slot >= 0 {
		b.replies[slot] = reply
	}
	b.open--
	last := b.open == 0
	b.mu.Unlock()
	if !last {
		return nil
	}
	replies := slices.DeleteFunc(b.replies, func(r json.RawMessage) bool { return r == nil })
	if len(replies) == 0 {
		return nil
	}
	return replies
}

// dispatch serves one decoded message.
func (ss *session) dispatch(m *message) {
	hasID := m.ID != nil
	var id msgID
	if hasID && validID(m.ID) {
		id = msgID{raw: string(m.ID)}
	}
	switch {
	case m.JSONRPC != "2.0":
		ss.reply(id, nil, errorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`))
		return
	case m.Method == "" && (m.Result != nil || m.Error != nil):
		ss.deliver(m.ID, m.Result, m.Error) // a response to a request of the server's: never answered
		ss.response(m)                      // or of a proxy's
		return
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
	params := json.RawMessage(m.Params)
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

func (ss *session) isInflight(id msgID) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	_, ok := ss.inflight[id.key()]
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
		if c, ok := ss.inflight[msgID{raw: string(p.RequestID)}.key()]; ok && !c.cancelled {
			c.cancelled = true
			c.cancel()
		}
		ss.mu.Unlock()
	default:
		// notifications/initialized and anything unknown: nothing to do.
	}
}
