package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
)

// CallRequest is one tools/call, as a [ToolHandler] or [ToolHandlerFor]
// sees it.
type CallRequest struct {
	// Name is the tool's name.
	Name string
	// Arguments is the JSON object of arguments, already checked against
	// the tool's input schema, with the "default" of each top-level
	// property the client left out added. It is "{}" when the client sent
	// none and no property has a default.
	Arguments json.RawMessage
	// ProtocolVersion is the revision the client speaks.
	ProtocolVersion string
	// ClientCapabilities is the JSON object of capabilities the client
	// declared: at initialize, or (revision 2026-07-28) in the request's
	// _meta. A handler that needs one the client lacks returns an [*Error]
	// with [CodeMissingClientCapability].
	ClientCapabilities json.RawMessage
	// InputResponses are the client's answers, by their keys, to the
	// requests of an [InputRequired] result that an earlier call of the
	// tool returned (revision 2026-07-28): each the JSON object that
	// answers the request (an ElicitResult, a CreateMessageResult, a
	// ListRootsResult). It is nil on a first call.
	InputResponses map[string]json.RawMessage
	// RequestState is the state of that result, as the handler gave it;
	// the server has checked that nobody changed it. It is "" when the
	// call carries none.
	RequestState string

	ss            *session
	to            sink // where its reply and notifications go
	id            msgID
	progressToken json.RawMessage
	logLevel      int32 // lowest level sent as notifications/message; levelOff for none

	mu           sync.Mutex
	done         bool
	lastProgress float64
	sentProgress bool
}

// Bind decodes the arguments into v, as [json.Unmarshal] does.
func (r *CallRequest) Bind(v any) error {
	if err := json.Unmarshal(r.Arguments, v); err != nil {
		return fmt.Errorf("tool %s: arguments: %v", r.Name, err)
	}
	return nil
}

// Progress reports how far the call has got, when the client asked for
// progress (a progressToken in the request). progress must increase from
// one report to the next; a report that does not is dropped, as are reports
// after the call has returned. total is 0 when unknown.
func (r *CallRequest) Progress(progress, total float64, message string) {
	if r.progressToken == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || (r.sentProgress && progress <= r.lastProgress) {
		return
	}
	r.lastProgress, r.sentProgress = progress, true
	p := map[string]any{"progressToken": r.progressToken, "progress": progress}
	if total > 0 {
		p["total"] = total
	}
	if message != "" {
		p["message"] = message
	}
	r.ss.logEncoding(r.to.put(&notification{JSONRPC: "2.0", Method: "notifications/progress", Params: p}, false))
}

// Log sends a log message to the client as notifications/message when the
// client asked for messages at this level or above (logging/setLevel, or
// the request's _meta in revision 2026-07-28). Otherwise it does nothing.
func (r *CallRequest) Log(level LogLevel, data any) {
	rank := level.rank()
	if rank < 0 || rank < r.logLevel {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.ss.logEncoding(r.to.put(&notification{JSONRPC: "2.0", Method: "notifications/message",
		Params: map[string]any{"level": level, "logger": r.Name, "data": data}}, false))
}

// CloseStream ends the HTTP response that carries the call's messages,
// when the client can resume it: in a legacy session of revision
// 2025-11-25, whose client then reconnects (GET with Last-Event-ID)
// after the interval the stream named, and gets there what the call
// sends meanwhile, its result included. A long call may so free the
// connection, as behind a proxy that limits how long a response may
// last. Elsewhere (stdio, JSON replies, other revisions) it does nothing.
func (r *CallRequest) CloseStream() {
	if c, ok := r.to.(interface{ closeStream() }); ok {
		c.closeStream()
	}
}

// finish stops further notifications for the call.
func (r *CallRequest) finish() {
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      *requestMeta    `json:"_meta"`
}

// callTool starts a tools/call; meta is nil for a legacy request.
func (ss *session) callTool(id msgID, params json.RawMessage, meta *requestMeta) {
	var p callParams
	if len(params) == 0 {
		ss.reply(id, nil, errorf(CodeInvalidParams, `invalid params: tools/call needs params with the tool's "name"`))
		return
	}
	if err := json.Unmarshal(params, &p); err != nil {
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: %v", err))
		return
	}
	if p.Name == "" {
		ss.reply(id, nil, errorf(CodeInvalidParams, `invalid params: "name" is missing`))
		return
	}
	rt, ok := ss.srv.tool(p.Name)
	if !ok {
		ss.reply(id, nil, errorf(CodeInvalidParams, "unknown tool %q: call tools/list for the tools this server has", p.Name))
		return
	}
	req := &CallRequest{Name: p.Name, Arguments: p.Arguments, ClientCapabilities: ss.clientCaps, ss: ss, to: ss.to, id: id, logLevel: ss.logLevel}
	if v := ss.version; v != "" {
		req.ProtocolVersion = v
	}
	if p.Meta != nil {
		req.progressToken = p.Meta.ProgressToken
		if meta != nil {
			req.ProtocolVersion = meta.ProtocolVersion
			req.ClientCapabilities = meta.ClientCapabilities
			req.logLevel = levelOff
			if meta.LogLevel != nil {
				req.logLevel = meta.LogLevel.rank()
			}
		}
	}
	if meta != nil {
		if e := ss.readInput(req, params); e != nil {
			ss.reply(id, nil, e)
			return
		}
	}
	if len(req.progressToken) > 0 && !validID(req.progressToken) {
		req.progressToken = nil
	}
	c := &call{task: ss.newTask(id, p.Name, meta != nil), rt: rt, req: req}
	c.size = len(req.Arguments)
	c.run = func() { ss.runCall(c) }
	ss.start(&c.task)
}

// start runs a task on the reading goroutine once the message is
// dispatched (see session.read), or on a new one, or queues it when
// MaxConcurrentCalls run.
func (ss *session) start(c *task) {
	ss.mu.Lock()
	if ss.stopping {
		ss.mu.Unlock()
		c.cancel()
		ss.reply(c.id, nil, errorf(CodeInternalError, "the server is shutting down; tool %s was not run", c.name))
		return
	}
	if c.batch != nil {
		c.slot = c.batch.reserve()
	}
	ss.inflight[c.id.key()] = c
	ss.queue.held += c.size
	ss.calls.Add(1) // under mu, so never concurrent with stop's Wait
	c.to.open()
	run := ss.queue.running < ss.queue.maxCalls
	if run {
		ss.queue.running++
	} else {
		ss.queue.waiting = append(ss.queue.waiting, c)
	}
	ss.mu.Unlock()
	switch {
	case run && ss.next == nil:
		ss.next = c
	case run:
		go ss.run(c) // another call of the same batch
	}
}

// run runs a task, then the tasks waiting for a free goroutine, until
// none waits.
func (ss *session) run(c *task) {
	for c != nil {
		c.run()
		ss.calls.Done()
		ss.mu.Lock()
		c = nil
		if len(ss.queue.waiting) > 0 {
			c = ss.queue.waiting[0]
			ss.queue.waiting[0] = nil
			ss.queue.waiting = ss.queue.waiting[1:]
		} else {
			ss.queue.running--
		}
		ss.mu.Unlock()
	}
}

// runCall runs a call and answers it.
func (ss *session) runCall(c *call) {
	ctx, rt, req := c.ctx, c.rt, c.req
	var res *CallToolResult
	var rpcErr *Error
	if msg := rt.checkArguments(req); msg != "" {
		res = ErrorResult("%s", msg)
	} else if ctx.Err() != nil {
		rpcErr = errorf(CodeInternalError, "tool %s was cancelled before it started", req.Name)
	} else {
		res, rpcErr = ss.invoke(ctx, rt, req)
		// A legacy client is asked for the input here, and the handler
		// called again with its answers.
		for round := 0; res != nil && res.input != nil && !c.modern && round < maxInputRounds; round++ {
			answers, final, e := ss.askClient(c, res.input)
			if final != nil || e != nil {
				res, rpcErr = final, e
				break
			}
			req.InputResponses, req.RequestState = answers, res.input.state
			res, rpcErr = ss.invoke(ctx, rt, req)
		}
	}
	req.finish()
	ss.finish(&c.task, func() *response { return ss.toolResponse(c, res, rpcErr) })
}

// finish ends a task that has run: it is no longer in flight, and the
// response reply makes is sent unless the client cancelled it.
func (ss *session) finish(c *task, reply func() *response) {
	ss.mu.Lock()
	delete(ss.inflight, c.id.key())
	cancelled := c.cancelled
	ss.mu.Unlock()
	c.cancel()
	var r *response
	if !cancelled { // else nothing more may be sent for this id
		r = reply()
	}
	ss.answer(c, r)
	ss.mu.Lock()
	if ss.queue.held -= c.size; ss.queue.held <= maxHeld {
		ss.queue.room.Broadcast()
	}
	ss.mu.Unlock()
}

// toolResponse is the response to a tools/call: its result or error; nil
// with neither.
func (ss *session) toolResponse(c *call, res *CallToolResult, rpcErr *Error) *response {
	var r *response
	switch {
	case rpcErr != nil:
		r = newResponse(c.id, nil, rpcErr)
	case res == nil:
	case res.input != nil && c.modern:
		result, e := ss.inputResult(c, res.input)
		r = newResponse(c.id, result, e)
	case res.input != nil:
		r = newResponse(c.id, ErrorResult("tool %s asked the client for input %d times without completing; it was stopped", c.req.Name, maxInputRounds), nil)
	case c.modern:
		meta := ss.resultMeta()
		for k, v := range res.Meta {
			meta[k] = v
		}
		r = newResponse(c.id, &struct {
			ResultType string `json:"resultType"`
			*CallToolResult
			Meta map[string]any `json:"_meta,omitempty"`
		}{"complete", res, meta}, nil)
	default:
		r = newResponse(c.id, res, nil)
	}
	return r
}

// answer sends a call's response, into its batch if it has one. With
// none, the call sends nothing but still ends its part of a batch.
func (ss *session) answer(c *task, r *response) {
	to := c.to
	defer to.done()
	if c.batch == nil {
		if r != nil {
			ss.logEncoding(to.put(r, false))
		}
		return
	}
	var enc []byte
	if r != nil {
		enc = ss.encode(r)
	}
	if replies := c.batch.done(c.slot, enc); replies != nil {
		ss.logEncoding(to.put(replies, false))
	}
}

// checkArguments normalises req.Arguments and validates them against the
// tool's input schema. It returns a message for the model when they fail.
func (rt *registeredTool) checkArguments(req *CallRequest) string {
	args := bytes.TrimSpace(req.Arguments)
	if len(args) == 0 || string(args) == "null" {
		req.Arguments = json.RawMessage("{}")
		args = req.Arguments
	}
	v, err := decodeArguments(args)
	if err != nil {
		return fmt.Sprintf("invalid arguments for tool %s: %v", req.Name, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Sprintf("invalid arguments for tool %s: arguments must be a JSON object, got %s", req.Name, typeName(v))
	}
	var errs []string
	rt.input.validate("arguments", v, &errs)
	if len(errs) == 0 {
		req.Arguments = rt.input.withDefaults(args, v.(map[string]any))
		return ""
	}
	return fmt.Sprintf("invalid arguments for tool %s:\n- %s", req.Name, strings.Join(errs, "\n- "))
}

// invoke runs the handler, turning a panic into an internal error and the
// result into its wire form.
func (ss *session) invoke(ctx context.Context, rt *registeredTool, req *CallRequest) (res *CallToolResult, rpcErr *Error) {
	defer func() {
		if p := recover(); p != nil {
			ss.srv.log.Error("tool handler panicked", "tool", req.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, rpcErr = nil, errorf(CodeInternalError, "internal error: tool %s failed unexpectedly (panic: %v)", req.Name, p)
		}
	}()
	res, err := rt.handler(ctx, req)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return ErrorResult("%v", err), nil
	}
	if res == nil {
		res = &CallToolResult{}
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	if res.StructuredContent != nil && !hasText(res.Content) {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, errorf(CodeInternalError, "internal error: tool %s: structuredContent: %v", req.Name, err)
		}
		res.Content = append(res.Content, Content{Type: "text", Text: string(b)})
	}
	if rt.output != nil && !res.IsError {
		if msg := rt.checkOutput(res); msg != "" {
			res = &CallToolResult{Content: append([]Content{{Type: "text", Text: msg}}, res.Content...), IsError: true, Meta: res.Meta}
		}
	}
	return res, nil
}

// checkOutput checks a result of a tool with an output schema: its
// structuredContent must be there and match. It returns what differs, for
// an isError result in its place, which carries the result's content but
// no structuredContent: clients that check the schema refuse a result
// that does not match it, failing the call with nothing for the model.
func (rt *registeredTool) checkOutput(res *CallToolResult) string {
	name := rt.tool.Name
	if res.StructuredContent == nil {
		return fmt.Sprintf("tool %s declares an outputSchema, but its result has no structuredContent; it is sent as an error, with the content it had", name)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Sprintf("tool %s: structuredContent cannot be encoded: %v", name, err)
	}
	v, err := decodeWithDecoder(b)
	if err != nil {
		return fmt.Sprintf("tool %s: structuredContent cannot be read back: %v", name, err)
	}
	var errs []string
	rt.output.validate("structuredContent", v, &errs)
	if len(errs) == 0 {
		return ""
	}
	return fmt.Sprintf("the result of tool %s does not match its outputSchema, so it is sent as an error, with the content it had:\n- %s", name, strings.Join(errs, "\n- "))
}

func hasText(cs []Content) bool {
	for _, c := range cs {
		if c.Type == "text" {
			return true
		}
	}
	return false
}

// decodeArguments decodes a tool call's arguments into the tree a
// json.Decoder with UseNumber builds: map[string]any, []any, string,
// json.Number, bool and nil. Arguments up to smallArguments bytes go
// through the Decoder, which is the faster there; larger ones are
// decoded by decodeLarge.
func decodeArguments(b []byte) (any, error) {
	if len(b) <= smallArguments {
		return decodeWithDecoder(b)
	}
	return decodeLarge(b)
}

// smallArguments is the size of arguments up to which the Decoder's copy
// of them costs little memory.
const smallArguments = 64 << 10

// decodeLarge decodes as decodeArguments does, but the values of the
// first levels from b in place, as json.Unmarshal reads it, rather than
// through a Decoder, which copies the whole input into a buffer it grows
// by doubling: a call as long as the message cap would cost another two
// or three times its size. Deeper values, and input that is not one JSON
// value, go through the Decoder (which words the errors).
func decodeLarge(b []byte) (any, error) {
	if v, err := decodeInPlace(b, inPlaceDepth); err == nil {
		return v, nil
	}
	return decodeWithDecoder(b)
}

// inPlaceDepth is how many levels of containers decodeInPlace decodes
// itself; each level scans its input once more.
const inPlaceDepth = 3

// decodeInPlace decodes b as decodeArguments does, containers down to
// depth levels itself and deeper ones with decodeWithDecoder.
func decodeInPlace(b []byte, depth int) (any, error) {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return nil, io.ErrUnexpectedEOF
	}
	switch c := b[0]; {
	case (c == '{' || c == '[') && depth == 0:
		return decodeWithDecoder(b)
	case c == '{':
		var members map[string]rawValue
		if err := json.Unmarshal(b, &members); err != nil {
			return nil, err
		}
		m := make(map[string]any, len(members))
		for k, raw := range members {
			v, err := decodeInPlace(raw, depth-1)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case c == '[':
		var elems []rawValue
		if err := json.Unmarshal(b, &elems); err != nil {
			return nil, err
		}
		a := make([]any, len(elems))
		for i, raw := range elems {
			v, err := decodeInPlace(raw, depth-1)
			if err != nil {
				return nil, err
			}
			a[i] = v
		}
		return a, nil
	case c == '-' || c >= '0' && c <= '9':
		var n json.Number
		err := json.Unmarshal(b, &n)
		return n, err
	default: // a string, true, false or null
		var v any
		err := json.Unmarshal(b, &v)
		return v, err
	}
}

// decodeWithDecoder decodes b with a json.Decoder that keeps numbers as
// json.Number, and refuses anything after the value.
func decodeWithDecoder(b []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if rest := bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("invalid character %q after the top-level value", rest[0])
	}
	return v, nil
}
