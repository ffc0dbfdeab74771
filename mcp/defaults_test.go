package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestDefaultsAreApplied checks that a handler sees the default of each
// top-level property the call leaves out, and the call's own values as
// sent.
func TestDefaultsAreApplied(t *testing.T) {
	srv := NewServer(Implementation{Name: "t", Version: "0"}, nil)
	err := srv.AddTool(Tool{
		Name: "greet",
		InputSchema: json.RawMessage(`{"type":"object","required":["name"],"properties":{
			"name":{"type":"string"},
			"greeting":{"type":"string","default":"Hello"},
			"times":{"type":"integer","default":1},
			"big":{"type":"integer","default":100000000000000000000},
			"tags":{"type":"array","items":{"type":"string"},"default":["a","b"]},
			"opts":{"type":"object","properties":{"loud":{"type":"boolean","default":false}},"default":{}},
			"note":{"type":["string","null"],"default":"none"}}}`),
	}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		return TextResult(string(req.Arguments)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := pipeSession(t, srv)
	ctx := context.Background()
	if _, err := c.Initialize(ctx, ""); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args string
		want map[string]any
	}{
		{`{"name":"Ann"}`, map[string]any{"name": "Ann", "greeting": "Hello", "times": 1,
			"big": json.Number("100000000000000000000"), "tags": []any{"a", "b"}, "opts": map[string]any{}, "note": "none"}},
		{`{"name":"Bo","greeting":"Hi","times":3,"tags":[],"opts":{"loud":true},"note":null}`,
			map[string]any{"name": "Bo", "greeting": "Hi", "times": 3, "big": json.Number("100000000000000000000"),
				"tags": []any{}, "opts": map[string]any{"loud": true}, "note": nil}},
	} {
		res, err := c.CallTool(ctx, "greet", json.RawMessage(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("call with %s: %s", tc.args, res.Content[0].Text)
		}
		got := res.Content[0].Text
		var gotV map[string]any
		dec := json.NewDecoder(strings.NewReader(got))
		dec.UseNumber()
		if err := dec.Decode(&gotV); err != nil {
			t.Fatalf("call with %s: the handler saw %s, not a JSON object: %v", tc.args, got, err)
		}
		if canonical(gotV) != canonical(normalizeNumbers(tc.want)) {
			t.Errorf("call with %s: the handler saw\n%s\nwant\n%s", tc.args, got, canonical(tc.want))
		}
		if !strings.HasPrefix(got, strings.TrimSuffix(tc.args, "}")) {
			t.Errorf("call with %s: the handler saw %s; the call's own members should come first, as sent", tc.args, got)
		}
	}
	// A required property is the client's to send: its default does not
	// hide that it is missing.
	res, err := c.CallTool(ctx, "greet", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].Text, `missing required property "name"`) {
		t.Errorf("call without the required name: %+v, want an isError result saying name is missing", res)
	}
}

func TestWithDefaultsSplicesTheObject(t *testing.T) {
	sc, err := compileSchema([]byte(`{"type":"object","properties":{"a":{"default":1},"b":{"default":"x"},"c":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args, want string }{
		{`{}`, `{"a":1,"b":"x"}`},
		{" { \n } \n", " { \n \"a\":1,\"b\":\"x\"}"},
		{`{"c":[1]}`, `{"c":[1],"a":1,"b":"x"}`},
		{`{"b":null} `, `{"b":null,"a":1}`},
		{`{"a":2,"b":"y"}`, `{"a":2,"b":"y"}`},
	} {
		v := decodeNumbers(t, tc.args)
		if got := string(sc.withDefaults([]byte(tc.args), v.(map[string]any))); got != tc.want {
			t.Errorf("withDefaults(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestAddToolRefusesADefaultItsSchemaRefuses(t *testing.T) {
	srv := NewServer(Implementation{Name: "t", Version: "0"}, nil)
	err := srv.AddTool(Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"default":0}}}`)},
		func(context.Context, *CallRequest) (*CallToolResult, error) { return nil, nil })
	if err == nil || !strings.Contains(err.Error(), "properties.n.default: 0 is less than the minimum 1") {
		t.Errorf("AddTool with a default below the minimum: %v", err)
	}
}

// decodeNumbers decodes JSON as the schema validator expects it: numbers
// as json.Number.
func decodeNumbers(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return v
}
