package bridge

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpship/mcpship/internal/mcpproxy"
	"github.com/mcpship/mcpship/internal/signed"
	"github.com/mcpship/mcpship/mcp"
)

// A child that speaks only the legacy revisions asks for input during a
// call with requests of its own (elicitation/create,
// sampling/createMessage, roots/list). A client of revision 2026-07-28
// takes no such request: it gets an InputRequiredResult, and calls again
// with the answers (SEP-2322). So the bridge keeps the child's call open
// between the rounds, as a pendingCall: the first request starts it on a
// child that serves it alone (and so asks on its behalf only), each
// round answers with the child's requests that came, under keys of the
// bridge's own, and a requestState that names the pending call,
// authenticated by the bridge; the client's retry hands the answers to
// the child's requests and waits for its next ones, or for its result.
// A pending call lives at most CallTimeout, past which the child's call
// is cancelled; each holds a child, so MaxChildren bounds them.

// inputMethods are the requests an InputRequiredResult may answer.
var inputMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// gatherWait is how long a round waits, after a request of the child's,
// for the next one it sends at once, so that requests sent together go
// to the client together; one that comes later goes in the next round.
const gatherWait = 100 * time.Millisecond

// pendingCall is a call of a 2026-07-28 client that a legacy child is
// answering, and that asked the client for input.
type pendingCall struct {
	id     string
	bind   string // the method and name that its requestState is bound to
	ctx    context.Context
	cancel context.CancelFunc // ends the child's call, and the pending call
	asks   chan *childAsk     // the child's requests, as they come
	done   chan struct{}      // closed once the child answered: res, err
	res    json.RawMessage
	err    error

	mu      sync.Mutex
	open    map[string]*childAsk // sent to the client and not answered, by key
	seq     int
	waiting bool // a request of the client's waits on it
}

// childAsk is a request of the child's, waiting for the client's answer.
type childAsk struct {
	key    string
	method string
	params json.RawMessage
	answer chan json.RawMessage // the client's result
}

// asks reports whether r goes to a pending call: a request of revision
// 2026-07-28 that an InputRequiredResult may answer, from a client that
// can give input, to a command that speaks only the legacy revisions.
func (b *Bridge) asks(r *mcpproxy.Request) bool {
	return !b.modern && r.ModernParams != nil && inputMethods[r.Method] && relayed(r.ClientCapabilities, true) != nil
}

// forwardAsking serves a request that goes to a pending call: a retry
// (with a requestState) answers the child's requests of the round before,
// a first request starts the call.
func (b *Bridge) forwardAsking(ctx context.Context, r *mcpproxy.Request) (json.RawMessage, error) {
	var p struct {
		Name           string          `json:"name"`
		URI            string          `json:"uri"`
		RequestState   *string         `json:"requestState"`
		InputResponses json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(r.ModernParams, &p); err != nil {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	answers, err := inputResponses(p.InputResponses)
	if err != nil {
		return nil, err
	}
	bind := r.Method + "\x00" + p.Name + p.URI
	if p.RequestState == nil {
		pc, err := b.startPending(r, bind)
		if err != nil {
			return nil, err
		}
		return b.await(ctx, pc)
	}
	pc, err := b.resume(*p.RequestState, bind)
	if err != nil {
		return nil, err
	}
	pc.answer(answers)
	return b.await(ctx, pc)
}

// inputResponses reads the inputResponses of a request: an object of the
// answers, each an object, by key; absent is none.
func inputResponses(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if raw == nil {
		return nil, nil
	}
	var answers map[string]json.RawMessage
	if json.Unmarshal(raw, &answers) != nil || answers == nil {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "invalid params: inputResponses must be an object of the answers to the input requests, by their keys"}
	}
	for _, key := range slices.Sorted(maps.Keys(answers)) {
		if v := answers[key]; len(v) == 0 || v[0] != '{' {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("invalid params: inputResponses[%q] must be the object the client's answer is, not %s", key, v)}
		}
	}
	return answers, nil
}

// startPending starts r's call on a child of its own, started with the
// client's capabilities, and returns it as a pending call.
func (b *Bridge) startPending(r *mcpproxy.Request, bind string) (*pendingCall, error) {
	caps := relayed(r.ClientCapabilities, true)
	env := b.envFor(r.Header)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, &mcp.Error{Code: mcp.CodeInternalError, Message: "the server is shutting down"}
	}
	c, release, err := b.borrow(b.key(env, "ask:"+string(caps)), env, caps)
	b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.CallTimeout)
	cl, err := c.get(ctx)
	if err != nil {
		cancel()
		release()
		return nil, err
	}
	id := make([]byte, 16)
	rand.Read(id)
	pc := &pendingCall{id: base64.RawURLEncoding.EncodeToString(id), bind: bind, ctx: ctx, cancel: cancel,
		asks: make(chan *childAsk, 64), done: make(chan struct{}), open: map[string]*childAsk{}}
	b.pmu.Lock()
	b.pending[pc.id] = pc
	b.pmu.Unlock()
	c.activeMu.Lock()
	c.asking = pc
	c.activeMu.Unlock()
	var params any
	if len(r.Params) > 0 {
		params = r.Params
	}
	go func() {
		var res json.RawMessage
		err := cl.Call(ctx, r.Method, params, &res)
		if err != nil {
			err = b.callError(ctx, c, cl, r.Method, err)
		}
		pc.res, pc.err = res, err
		close(pc.done)
		c.activeMu.Lock()
		c.asking = nil
		c.activeMu.Unlock()
		release()
		// Kept until a retry takes its result, its time is up, or the
		// bridge closes.
		select {
		case <-ctx.Done():
		case <-b.stop:
		}
		cancel()
		b.pmu.Lock()
		delete(b.pending, pc.id)
		b.pmu.Unlock()
	}()
	return pc, nil
}

// A requestState is ID.MAC, both base64url: MAC is the HMAC-SHA256 of
// the label, the method and name the call is of and ID under the
// bridge's key, so that no client makes up or changes one, nor sends
// one of a call of a tool to another.
const stateLabel = "mcpship-bridge-pending-call-1\x00"

// resume returns the pending call a requestState names.
func (b *Bridge) resume(state, bind string) (*pendingCall, error) {
	id, ok := signed.Open(b.stateKey[:], stateLabel, state, bind)
	if !ok {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "invalid params: requestState was changed, or was not made by this server for this request; call again without it"}
	}
	b.pmu.Lock()
	pc := b.pending[id]
	b.pmu.Unlock()
	if pc == nil {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf(
			"invalid params: the call that requestState continues has ended (it was answered, or not continued within %v (mcpship serve --call-timeout), or it began at another mcpship process); call again without requestState", b.opts.CallTimeout)}
	}
	return pc, nil
}

// ask passes a request of the child's to the client of the pending call,
// in its next round, and returns the client's answer.
func (pc *pendingCall) ask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	pc.mu.Lock()
	pc.seq++
	a := &childAsk{key: fmt.Sprintf("%s-%d", strings.ReplaceAll(method, "/", "-"), pc.seq), method: method, params: params,
		answer: make(chan json.RawMessage, 1)}
	pc.mu.Unlock()
	select {
	case pc.asks <- a:
	default:
		return nil, &mcp.Error{Code: mcp.CodeInternalError, Message: method + ": too many requests of the server's wait for the client"}
	}
	select {
	case res := <-a.answer:
		return res, nil
	case <-pc.ctx.Done():
		return nil, &mcp.Error{Code: mcp.CodeInternalError, Message: method + ": the client did not answer within mcpship serve --call-timeout"}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// answer hands the client's answers to the child's requests they are
// for; answers for no open request are ignored.
func (pc *pendingCall) answer(answers map[string]json.RawMessage) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for key, res := range answers {
		if a := pc.open[key]; a != nil {
			delete(pc.open, key)
			a.answer <- res
		}
	}
}

// await waits for what the pending call does next and returns it: the
// child's result, or an InputRequiredResult of its requests that the
// client has not answered.
func (b *Bridge) await(ctx context.Context, pc *pendingCall) (json.RawMessage, error) {
	pc.mu.Lock()
	if pc.waiting {
		pc.mu.Unlock()
		return nil, &mcp.Error{Code: mcp.CodeInvalidRequest, Message: "invalid request: another request continues this call already; wait for its answer"}
	}
	pc.waiting = true
	unanswered := len(pc.open) > 0
	pc.mu.Unlock()
	defer func() {
		pc.mu.Lock()
		pc.waiting = false
		pc.mu.Unlock()
	}()
	if !unanswered {
		select {
		case <-pc.done:
			return b.finish(pc)
		case a := <-pc.asks:
			pc.add(a)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// Gather the requests the child sends with it.
	for {
		t := time.NewTimer(gatherWait)
		select {
		case a := <-pc.asks:
			t.Stop()
			pc.add(a)
			continue
		case <-pc.done:
			t.Stop()
			return b.finish(pc)
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		break
	}
	return b.inputRequired(pc)
}

func (pc *pendingCall) add(a *childAsk) {
	pc.mu.Lock()
	pc.open[a.key] = a
	pc.mu.Unlock()
}

// finish returns the child's answer to a pending call, which ends it.
func (b *Bridge) finish(pc *pendingCall) (json.RawMessage, error) {
	b.pmu.Lock()
	delete(b.pending, pc.id)
	b.pmu.Unlock()
	pc.cancel()
	return pc.res, pc.err
}

// inputRequired returns the InputRequiredResult of the child's requests
// that the client has not answered.
func (b *Bridge) inputRequired(pc *pendingCall) (json.RawMessage, error) {
	type inputRequest struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params,omitempty"`
	}
	reqs := map[string]inputRequest{}
	pc.mu.Lock()
	for key, a := range pc.open {
		reqs[key] = inputRequest{Method: a.method, Params: a.params}
	}
	pc.mu.Unlock()
	return json.Marshal(map[string]any{
		"resultType":    "input_required",
		"inputRequests": reqs,
		"requestState":  signed.Seal(b.stateKey[:], stateLabel, pc.id, pc.bind),
	})
}
