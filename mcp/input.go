package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpship/mcpship/internal/signed"
)

// InputRequest is a request that a tool needs the client to answer before
// its call can complete: Method is "elicitation/create" (ask the user),
// "sampling/createMessage" (ask the client's model) or "roots/list", and
// Params are that request's params. See [InputRequired].
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// InputRequired returns the result of a call that needs input from the
// client first. The handler is called again with the client's answers,
// under the same keys as requests, in [CallRequest.InputResponses], and
// with state in [CallRequest.RequestState]; a handler may so ask several
// rounds. How the client is asked depends on its revision:
//
//   - 2026-07-28: the result goes out as an InputRequiredResult, and the
//     client calls the tool again with the answers (multi round-trip
//     requests). The server authenticates state, so the handler may trust
//     it: a state that anyone changed is refused before the handler runs.
//   - Earlier revisions: the server sends the requests to the client as
//     requests of its own (on the call's event stream over HTTP), waits
//     for the answers and calls the handler again itself; state stays in
//     the server. A client that answers with an error ends the call with
//     a tool error saying so.
//
// Either way, a request for a capability the client did not declare
// ([CallRequest.ClientCapabilities]) is answered with
// [CodeMissingClientCapability] instead.
func InputRequired(requests map[string]InputRequest, state string) *CallToolResult {
	return &CallToolResult{input: &inputRequired{requests: maps.Clone(requests), state: state}}
}

// inputRequired is what an InputRequired result carries.
type inputRequired struct {
	requests map[string]InputRequest
	state    string
}

// inputCapabilities maps the methods of input requests to the client
// capability each needs.
var inputCapabilities = map[string]string{
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"roots/list":             "roots",
}

// inputResult returns the wire form of an InputRequired result for a
// revision 2026-07-28 request, or the error to answer instead.
func (ss *session) inputResult(c *call, in *inputRequired) (any, *Error) {
	if e := checkInput(c, in); e != nil {
		return nil, e
	}
	res := &struct {
		ResultType    string                  `json:"resultType"`
		InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
		RequestState  string                  `json:"requestState,omitempty"`
		Meta          map[string]any          `json:"_meta,omitempty"`
	}{ResultType: "input_required", InputRequests: in.requests, Meta: ss.resultMeta()}
	if in.state != "" {
		res.RequestState = ss.signState(c.req.Name, in.state)
	}
	return res, nil
}

// checkInput returns the error to answer when in asks for something that
// is not an input request, or for a capability the client lacks.
func checkInput(c *call, in *inputRequired) *Error {
	var caps map[string]json.RawMessage
	json.Unmarshal(c.req.ClientCapabilities, &caps)
	missing := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(in.requests)) {
		method := in.requests[key].Method
		capability, ok := inputCapabilities[method]
		if !ok {
			return errorf(CodeInternalError, "internal error: tool %s asked the client for %q (input %q), which is not an input request: use elicitation/create, sampling/createMessage or roots/list",
				c.req.Name, method, key)
		}
		if _, ok := caps[capability]; !ok {
			missing[capability] = map[string]any{}
		}
	}
	if len(in.requests) == 0 && in.state == "" {
		return errorf(CodeInternalError, "internal error: tool %s asked for input with no input requests and no state", c.req.Name)
	}
	if len(missing) > 0 {
		return &Error{Code: CodeMissingClientCapability,
			Message: fmt.Sprintf("tool %s needs input the client did not declare it can give: %s", c.req.Name, strings.Join(slices.Sorted(maps.Keys(missing)), ", ")),
			Data:    map[string]any{"requiredCapabilities": missing}}
	}
	return nil
}

// maxInputRounds bounds how many times one call of a legacy client may
// ask it for input, and maxInputWait how long the call waits for its
// answers each time (a person may be answering), so that a client that
// never answers does not hold a call for ever.
const (
	maxInputRounds = 16
	maxInputWait   = 30 * time.Minute
)

// serverRequest is a request the server sends a legacy client.
type serverRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// clientAnswer is the client's response to a serverRequest.
type clientAnswer struct {
	result json.RawMessage
	err    *Error
}

// errNoStream is what a sink that cannot carry requests to the client
// (an HTTP response the client takes only as JSON) returns for one.
var errNoStream = errors.New("mcp: the client takes only JSON replies")

// askClient sends the requests of in to a legacy client and waits for
// its answers, by their keys. When the call cannot go on it returns the
// result or the error to answer instead.
func (ss *session) askClient(c *call, in *inputRequired) (map[string]json.RawMessage, *CallToolResult, *Error) {
	if e := checkInput(c, in); e != nil {
		return nil, nil, e
	}
	keys := slices.Sorted(maps.Keys(in.requests))
	waits := make([]chan *message, len(keys))
	ids := make([]string, len(keys))
	defer func() {
		for _, id := range ids {
			ss.peer.forget(id)
		}
	}()
	for i, key := range keys {
		ids[i], waits[i] = ss.peer.ask("mcpship-")
		ir := in.requests[key]
		err := c.req.to.put(&serverRequest{JSONRPC: "2.0", ID: ids[i], Method: ir.Method, Params: ir.Params}, false)
		switch {
		case errors.Is(err, errNoStream):
			return nil, ErrorResult("tool %s needs the client to answer %s, but this client takes only JSON replies, on which a server cannot ask; list text/event-stream in Accept", c.req.Name, ir.Method), nil
		case err != nil:
			return nil, nil, errorf(CodeInternalError, "internal error: tool %s: %v", c.req.Name, err)
		}
	}
	answers := make(map[string]json.RawMessage, len(keys))
	timeout := time.NewTimer(maxInputWait)
	defer timeout.Stop()
	for i, key := range keys {
		select {
		case <-timeout.C:
			return nil, ErrorResult("the client did not answer %s (input %q of tool %s) within %v", in.requests[key].Method, key, c.req.Name, maxInputWait), nil
		case m := <-waits[i]:
			a := answerOf(m)
			if a.err != nil {
				return nil, ErrorResult("the client refused %s (input %q of tool %s): %s", in.requests[key].Method, key, c.req.Name, a.err.Message), nil
			}
			answers[key] = a.result
		case <-c.ctx.Done():
			return nil, nil, errorf(CodeInternalError, "tool %s was cancelled while it waited for the client to answer %s", c.req.Name, in.requests[key].Method)
		}
	}
	return answers, nil, nil
}

// answerOf reads the client's response to an input request.
func answerOf(m *message) clientAnswer {
	a := clientAnswer{result: m.Result}
	if m.Error != nil {
		a.err = &Error{}
		if json.Unmarshal(m.Error, a.err) != nil || a.err.Message == "" {
			a.err.Message = string(m.Error)
		}
	} else if len(m.Result) == 0 || m.Result[0] != '{' {
		a.err = &Error{Message: "its result is not an object"}
	}
	return a
}

// A request state goes out as STATE.MAC, both base64url (unpadded): MAC
// is the HMAC-SHA256 of the label, the tool's name and STATE under the
// session's state key, so that a state made for one tool is not accepted
// by another.
const stateMACLabel = "mcpship-request-state-1\x00"

func (ss *session) signState(tool, state string) string {
	return signed.Seal(ss.stateKey(), stateMACLabel, base64.RawURLEncoding.EncodeToString([]byte(state)), tool)
}

// verifyState returns the state that a signed one carries, if the MAC
// authenticates it for tool.
func (ss *session) verifyState(tool, sealed string) (string, bool) {
	p, ok := signed.Open(ss.stateKey(), stateMACLabel, sealed, tool)
	if !ok {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(p)
	return string(b), err == nil
}

// stateKey is the key that authenticates request states: the HTTP
// handler's, derived from its SessionKey, so that replicas accept each
// other's, or else the server's own, random one.
func (ss *session) stateKey() []byte {
	if ss.env.inputKey != nil {
		return ss.env.inputKey
	}
	return ss.srv.stateKey[:]
}

// readInput reads the inputResponses and requestState of a revision
// 2026-07-28 tools/call into req; on failure it returns the error to
// answer.
func (ss *session) readInput(req *CallRequest, params json.RawMessage) *Error {
	var p struct {
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   *string         `json:"requestState"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	if p.InputResponses != nil {
		var raw map[string]json.RawMessage
		if json.Unmarshal(p.InputResponses, &raw) != nil || raw == nil {
			return errorf(CodeInvalidParams, "invalid params: inputResponses must be an object of the answers to the input requests, by their keys")
		}
		for _, key := range slices.Sorted(maps.Keys(raw)) {
			if v := raw[key]; len(v) == 0 || v[0] != '{' {
				return errorf(CodeInvalidParams, "invalid params: inputResponses[%q] must be the object the client's answer is, not %s", key, v)
			}
		}
		req.InputResponses = raw
	}
	if p.RequestState != nil {
		state, ok := ss.verifyState(req.Name, *p.RequestState)
		if !ok {
			return errorf(CodeInvalidParams, "invalid params: requestState was changed, or was not made by this server for tool %s; call the tool again without it", req.Name)
		}
		req.RequestState = state
	}
	return nil
}
