package worker

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestRequestWireForm pins the requests as Bazel's JSON protocol writes
// them: camel-case names, default values left out, one per line.
func TestRequestWireForm(t *testing.T) {
	for _, tc := range []struct {
		req  workRequest
		want string
	}{
		{workRequest{Arguments: []string{"check", "a b.rb", `"q"`}}, `{"arguments":["check","a b.rb","\"q\""]}` + "\n"},
		{workRequest{}, "{}\n"},
		{workRequest{Arguments: []string{"x"}, RequestID: 7}, `{"arguments":["x"],"requestId":7}` + "\n"},
		{workRequest{RequestID: 7, Cancel: true}, `{"requestId":7,"cancel":true}` + "\n"},
		{workRequest{Cancel: true}, `{"cancel":true}` + "\n"},
	} {
		if got := string(tc.req.encode()); got != tc.want {
			t.Errorf("%+v: got %s, want %s", tc.req, got, tc.want)
		}
	}
}

// TestResponsesAsWorkersWriteThem decodes responses the ways the protocol
// allows: back to back or one per line or pretty-printed, fields left
// out, unknown fields, protobuf's names and integers as strings.
func TestResponsesAsWorkersWriteThem(t *testing.T) {
	stream := `{"exitCode":1,"output":"a\n","requestId":3}{"requestId":4}` + "\n" +
		`{
  "exit_code": 2,
  "request_id": "5",
  "extra": {"nested": [1, 2]}
}
{"exitCode":"64","output":"ü","wasCancelled":false} {"requestId":6,"wasCancelled":true}`
	want := []workResponse{
		{ExitCode: 1, Output: "a\n", RequestID: 3},
		{RequestID: 4},
		{ExitCode: 2, RequestID: 5},
		{ExitCode: 64, Output: "ü"},
		{RequestID: 6, WasCancelled: true},
	}
	dec := json.NewDecoder(strings.NewReader(stream))
	for i, w := range want {
		var r workResponse
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		r.normalize()
		if r.ExitCode != w.ExitCode || r.Output != w.Output || r.RequestID != w.RequestID || r.WasCancelled != w.WasCancelled {
			t.Errorf("response %d: got %+v, want %+v", i, r, w)
		}
	}
	var r workResponse
	if err := dec.Decode(&r); err != io.EOF {
		t.Errorf("after the last response: %v, want EOF", err)
	}
	for _, bad := range []string{`{"exitCode":1.5}`, `{"exitCode":"x"}`, `{"exitCode":9999999999}`, `{"output":3}`} {
		var r workResponse
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("%s decoded as %+v; want an error", bad, r)
		}
	}
}
