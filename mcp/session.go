package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
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
	srv   *Server
	stdio *stdioConn // the connection of a stdio session; nil over HTTP
	to    sink       // where replies to what is dispatched go: stdio's output, or one HTTP exchange

	env httpEnv // what it knows of HTTP; the zero value over stdio

	ctx    context.Context // parent of every call's context
	cancel context.CancelFunc

	closing  chan struct{}   // closed by stop: listen streams end
	teardown <-chan struct{} // closed when the transport ends listen streams (HTTP: Shutdown); nil for none

	peer peer // the server's requests to the client

	mu       sync.Mutex
	inflight map[idKey]*task // requests not yet answered, by msgID.key
	stopping bool            // no more messages are dispatched
	calls    sync.WaitGroup  // calls started and not finished
	queue    callQueue       // the calls and proxied requests running and waiting

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

// newSessionCtx returns a session without an output, whose calls are
// cancelled with parent: the transport sets to before each dispatch.
func newSessionCtx(s *Server, parent context.Context) *session {
	ss := &session{srv: s, inflight: map[idKey]*task{}, queue: callQueue{maxCalls: s.opts.MaxConcurrentCalls}}
	ss.queue.room.L = &ss.mu
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
	ss.to, ss.env.header = nil, nil
	c := ss.next
	ss.next = nil
	return c
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
	ss.queue.room.Broadcast()
	ss.mu.Unlock()
	if ss.stdio != nil {
		ss.stdio.out.hold(false)
	}
	bound, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	finished := make(chan struct{})
	go func() { ss.calls.Wait(); close(finished) }()
	var broken <-chan struct{}
	if ss.stdio != nil {
		broken = ss.stdio.out.broken
	}
	select {
	case <-finished:
	case <-bound.Done():
		ss.srv.log.Warn("calls still running at shutdown were cancelled", "waited", timeout)
	case <-broken:
	}
	ss.cancel()
	if ss.stdio == nil {
		return nil
	}
	if err := ss.stdio.out.close(bound.Done()); err != nil {
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
		ss.peer.deliver(m) // a response to a request of the server's: never answered
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

// peer is the server's side of the requests it sends the client: a
// tool's input requests (legacy era) and a proxy's. Each waits for the
// client's response by its id.
type peer struct {
	mu      sync.Mutex
	seq     map[string]int64         // the last id sent, by prefix
	waiting map[string]chan *message // requests not yet answered, by id
}

// ask returns the id of a new request to the client, prefix and a
// number, and the channel its response comes on.
func (p *peer) ask(prefix string) (string, chan *message) {
	ch := make(chan *message, 1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waiting == nil {
		p.seq, p.waiting = map[string]int64{}, map[string]chan *message{}
	}
	p.seq[prefix]++
	id := prefix + strconv.FormatInt(p.seq[prefix], 10)
	p.waiting[id] = ch
	return id, ch
}

// forget stops waiting for the response to the request id.
func (p *peer) forget(id string) {
	p.mu.Lock()
	delete(p.waiting, id)
	p.mu.Unlock()
}

// deliver passes a response from the client to the request it answers;
// one that answers none is dropped.
func (p *peer) deliver(m *message) {
	var id string
	if json.Unmarshal(m.ID, &id) != nil {
		return
	}
	p.mu.Lock()
	ch := p.waiting[id]
	delete(p.waiting, id)
	p.mu.Unlock()
	if ch != nil {
		ch <- &message{Result: bytes.Clone(m.Result), Error: bytes.Clone(m.Error)}
	}
}

// httpEnv is what a session served over HTTP knows of its transport.
type httpEnv struct {
	stateless bool        // every request must carry revision 2026-07-28's _meta
	inputKey  []byte      // authenticates request states; nil for the server's own key
	sid       string      // the legacy HTTP session's id, for a proxy
	header    http.Header // the headers of the HTTP request being dispatched
}

// callQueue bounds the tasks of a session that run at once (calls and
// proxied requests; more wait, first come first served) and counts the
// bytes of params they hold, which the stdio reader keeps under maxHeld.
// The session's mu guards it.
type callQueue struct {
	maxCalls int       // tasks run at once; more wait in waiting
	running  int       // goroutines running tasks, at most maxCalls
	waiting  []*task   // tasks waiting for one of them
	held     int       // bytes of params of the tasks not yet answered
	room     sync.Cond // signalled when held falls to maxHeld or below, or on stop
}
