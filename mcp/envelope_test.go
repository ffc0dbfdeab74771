package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

var envelopeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	` { "jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "ping" } `,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
	`{"jsonrpc":"2.0","id":null,"method":"x","params":null}`,
	`{"jsonrpc":"2.0","id":2,"result":{},"error":[1,{"a":"}"}]}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, `{"JSONRPC":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":"caf\u00e9"}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`, `{"jsonrpc":"2.0","id":1,"method":null}`, `{}`, `[]`, `"x"`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":null,"_meta":{"progressToken":1}}}`,
	`{"name":"echo","arguments":{"text":"hi"}}`, `{"name":"echo"}`, `{"arguments":[],"name":"x"}`,
	`{"name":"a","name":"b"}`, `{"name":"\u0061"}`, `{"Name":"a"}`, `{"name":1}`, `{"name":"a","x":1}`, `{"name":"a"`,
}

func TestQuickEnvelopeAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range envelopeSeeds {
		checkEnvelopeAgrees(t, []byte(s))
	}
	// The common shapes take the quick way.
	for _, s := range envelopeSeeds[:5] {
		if !quickMessage([]byte(s), &message{}) {
			t.Errorf("quickMessage refused %s", s)
		}
	}
	for _, s := range []string{`{"name":"echo","arguments":{"text":"hi"}}`, `{"name":"echo"}`, `{"arguments":[],"name":"x"}`} {
		if !quickCallParams([]byte(s), &callParams{}) {
			t.Errorf("quickCallParams refused %s", s)
		}
	}
}

func FuzzQuickEnvelope(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkEnvelopeAgrees)
}

// checkEnvelopeAgrees checks that whatever the quick readers accept,
// json.Unmarshal accepts and decodes to the same message and params.
func checkEnvelopeAgrees(t *testing.T, b []byte) {
	var quick message
	if quickMessage(b, &quick) {
		var want message
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("quickMessage accepted %q; json.Unmarshal: %v", b, err)
		}
		if !reflect.DeepEqual(normalizeMessage(quick), normalizeMessage(want)) {
			t.Fatalf("quickMessage(%q) = %+v, json.Unmarshal = %+v", b, quick, want)
		}
	} else if !reflect.DeepEqual(quick, message{}) {
		t.Fatalf("quickMessage(%q) refused but changed the message: %+v", b, quick)
	}
	if !json.Valid(b) {
		return // quickCallParams is only given valid JSON
	}
	var qp callParams
	if quickCallParams(b, &qp) {
		var want callParams
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("quickCallParams accepted %q; json.Unmarshal: %v", b, err)
		}
		if qp.Name != want.Name || string(qp.Arguments) != string(want.Arguments) || want.Meta != nil {
			t.Fatalf("quickCallParams(%q) = %+v, json.Unmarshal = %+v", b, qp, want)
		}
	} else if !reflect.DeepEqual(qp, callParams{}) {
		t.Fatalf("quickCallParams(%q) refused but changed the params: %+v", b, qp)
	}
}

// normalizeMessage makes absent and empty raw members compare alike.
func normalizeMessage(m message) message {
	for _, r := range []*json.RawMessage{&m.ID, &m.Params, &m.Result, &m.Error} {
		if len(*r) == 0 {
			*r = nil
		}
	}
	return m
}

// TestResponseEncodingMatchesEncodingJSON checks that the hand-written
// response envelope is byte for byte what encoding/json writes.
func TestResponseEncodingMatchesEncodingJSON(t *testing.T) {
	var typedNil *CallToolResult
	for _, r := range []*response{
		{JSONRPC: "2.0", ID: IntID(7), Result: TextResult("a <b> & \u2028 \"c\"")},
		{JSONRPC: "2.0", ID: ID{raw: `"x\u00e9<"`}, Result: struct{}{}},
		{JSONRPC: "2.0", ID: nullID, Error: &Error{Code: CodeInvalidRequest, Message: "m", Data: map[string]any{"id": IntID(3)}}},
		{JSONRPC: "2.0", Result: map[string]any{"z": 1, "a": []int{2}}},
		{JSONRPC: "2.0", ID: IntID(-1), Result: typedNil},
		{JSONRPC: "2.0", ID: IntID(1)},
	} {
		e := encoderPool.Get().(*encoder)
		e.buf.Reset()
		if err := e.encode(r); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct{ *response }{r}); err != nil {
			t.Fatal(err)
		}
		if got := e.buf.String(); got != want.String() {
			t.Errorf("encode(%+v)\n got %s\nwant %s", r, got, want.String())
		}
	}
}
