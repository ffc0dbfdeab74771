//go:build linux

package tests

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
)

// The bridge's multi round-trip flow (SEP-2322) for a child that speaks
// only the legacy revisions (tests/asker): the requests it sends a
// 2026-07-28 client during a call go out as an InputRequiredResult, and
// the client's retry answers them.

// askCaps are the capabilities of a client that can give every input.
const askCaps = `{"elicitation":{},"sampling":{},"roots":{}}`

// inputRound is what one request of a pending call got back.
type inputRound struct {
	status int
	body   string
	Result struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
		RequestState string `json:"requestState"`
		Content      []struct{ Text string }
	}
	Error *struct {
		Code    int
		Message string
	}
}

// askRound posts a 2026-07-28 call of asker's tool with the client
// capabilities caps and, on a retry, the answers and the state.
func askRound(t *testing.T, url, tool, args, caps string, answers map[string]any, state string) inputRound {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": json.RawMessage(args), "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": json.RawMessage(caps)}}
	if answers != nil {
		params["inputResponses"] = answers
	}
	if state != "" {
		params["requestState"] = state
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	status, reply, _, err := exchange(url, modernHeaders(tool), string(body))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	r := inputRound{status: status, body: reply}
	if err := json.Unmarshal([]byte(reply), &r); err != nil {
		t.Fatalf("reply %d %q: %v", status, reply, err)
	}
	return r
}

// answerFor is what a client answers an input request of method with.
func answerFor(method string) any {
	switch method {
	case "elicitation/create":
		return map[string]any{"action": "accept", "content": map[string]string{"name": "Ada"}}
	case "sampling/createMessage":
		return map[string]any{"role": "assistant", "model": "m", "content": map[string]string{"type": "text", "text": "hello"}}
	}
	return map[string]any{"roots": []any{map[string]string{"uri": "file:///work"}}}
}

// TestBridgeInputRequired calls asker's "ask" tool at revision
// 2026-07-28 through the bridge: the three requests asker sends at once
// come in one InputRequiredResult, the retry's answers reach asker, and
// its result completes the call; requests sent one after the other's
// answer come one a round; an answer left out is asked for again; a
// changed requestState, or one for another tool, is refused; answers
// that are not objects are refused.
func TestBridgeInputRequired(t *testing.T) {
	s := startBridge(t, nil, nil, askerPath)
	all := `{"methods":["elicitation/create","sampling/createMessage","roots/list"]}`
	r := askRound(t, s.url, "ask", all, askCaps, nil, "")
	if r.status != 200 || r.Result.ResultType != "input_required" || len(r.Result.InputRequests) != 3 || r.Result.RequestState == "" {
		t.Fatalf("first round: %d %s, want an InputRequiredResult of 3 requests with a requestState", r.status, r.body)
	}
	answers := map[string]any{"unknown-key": map[string]any{"ignored": true}}
	var methods []string
	for key, ir := range r.Result.InputRequests {
		methods = append(methods, ir.Method)
		answers[key] = answerFor(ir.Method)
	}
	slices.Sort(methods)
	if want := []string{"elicitation/create", "roots/list", "sampling/createMessage"}; !slices.Equal(methods, want) {
		t.Errorf("input requests %q, want %q", methods, want)
	}
	// A state changed, or sent for another tool, is refused.
	state := r.Result.RequestState
	for _, bad := range []struct{ tool, state string }{{"ask", state[:len(state)-2] + "xx"}, {"cancelled", state}, {"ask", "made-up"}} {
		if got := askRound(t, s.url, bad.tool, all, askCaps, answers, bad.state); got.Error == nil || got.Error.Code != -32602 || !strings.Contains(got.Error.Message, "requestState") {
			t.Errorf("%s with requestState %q: %d %s, want -32602 naming requestState", bad.tool, bad.state, got.status, got.body)
		}
	}
	if got := askRound(t, s.url, "ask", all, askCaps, map[string]any{"x": 12345}, state); got.Error == nil || got.Error.Code != -32602 {
		t.Errorf("an answer that is no object: %d %s, want -32602", got.status, got.body)
	}
	// An answer left out is asked for again, alone.
	var left string
	for key := range r.Result.InputRequests {
		left = key
	}
	partial := maps.Clone(answers)
	delete(partial, left)
	r = askRound(t, s.url, "ask", all, askCaps, partial, state)
	if r.Result.ResultType != "input_required" || len(r.Result.InputRequests) != 1 || r.Result.InputRequests[left].Method == "" {
		t.Fatalf("with %s left out: %d %s, want it asked for again", left, r.status, r.body)
	}
	r = askRound(t, s.url, "ask", all, askCaps, map[string]any{left: answers[left]}, r.Result.RequestState)
	if r.status != 200 || r.Result.ResultType != "complete" || len(r.Result.Content) != 1 {
		t.Fatalf("last round: %d %s, want the tool's result", r.status, r.body)
	}
	for _, want := range []string{`elicitation/create={"action":"accept","content":{"name":"Ada"}}`, `"text":"hello"`, `file:///work`} {
		if !strings.Contains(r.Result.Content[0].Text, want) {
			t.Errorf("result %q lacks %s", r.Result.Content[0].Text, want)
		}
	}
	// The call has ended: its state continues nothing.
	if got := askRound(t, s.url, "ask", all, askCaps, answers, state); got.Error == nil || !strings.Contains(got.Error.Message, "has ended") {
		t.Errorf("the state of a call that ended: %d %s", got.status, got.body)
	}

	// One request after the other's answer: a round each.
	r = askRound(t, s.url, "ask", `{"methods":["roots/list","elicitation/create"],"oneByOne":true}`, askCaps, nil, "")
	for round, want := range []string{"roots/list", "elicitation/create"} {
		if len(r.Result.InputRequests) != 1 {
			t.Fatalf("round %d: %d %s, want one input request, %s", round, r.status, r.body, want)
		}
		for key, ir := range r.Result.InputRequests {
			if ir.Method != want {
				t.Errorf("round %d asks %s, want %s", round, ir.Method, want)
			}
			r = askRound(t, s.url, "ask", `{}`, askCaps, map[string]any{key: answerFor(ir.Method)}, r.Result.RequestState)
		}
	}
	if r.Result.ResultType != "complete" || len(r.Result.Content) != 1 || !strings.Contains(r.Result.Content[0].Text, "roots/list=") {
		t.Errorf("after both rounds: %d %s", r.status, r.body)
	}
}

// TestBridgeInputRequiredBounded checks that a pending call holds its
// child, within --max-children, and is cancelled at the child once
// --call-timeout has passed without the client's retry.
func TestBridgeInputRequiredBounded(t *testing.T) {
	s := startBridge(t, nil, []string{"--max-children", "2", "--call-timeout", "3s"}, askerPath)
	ask := `{"methods":["elicitation/create"]}`
	first := askRound(t, s.url, "ask", ask, askCaps, nil, "")
	if first.Result.ResultType != "input_required" {
		t.Fatalf("first call: %d %s", first.status, first.body)
	}
	// The shared child and the first call's: no room for another.
	if r := askRound(t, s.url, "ask", ask, askCaps, nil, ""); r.Error == nil || !strings.Contains(r.Error.Message, "too many server processes") {
		t.Errorf("a second pending call: %d %s, want too many server processes", r.status, r.body)
	}
	// Unanswered, the call ends after --call-timeout, cancelled at the
	// child, which is free again for the next call.
	testutil.WaitFor(t, time.Minute, "the pending call to end", func() bool {
		r := askRound(t, s.url, "ask", ask, askCaps, map[string]any{}, first.Result.RequestState)
		return r.Error != nil && strings.Contains(r.Error.Message, "has ended")
	})
	r := askRound(t, s.url, "cancelled", `{}`, askCaps, nil, "")
	if r.Result.ResultType != "complete" || len(r.Result.Content) != 1 || r.Result.Content[0].Text == "cancelled=" {
		t.Errorf("the child's cancelled calls: %d %s, want the call that timed out", r.status, r.body)
	}
}
