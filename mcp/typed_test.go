package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type typedBase struct {
	ID    string `json:"id" jsonschema:"the record's id"`
	Owner string `json:"owner,omitempty"`
}

type typedInput struct {
	typedBase
	Name    string            `json:"name" jsonschema:"who to greet"`
	Times   int               `json:"times,omitempty"`
	Ratio   float64           `json:"ratio,omitzero"`
	Count   uint8             `json:"count,omitempty"`
	Loud    bool              `json:"loud,omitempty"`
	Tags    []string          `json:"tags,omitempty"`
	Pair    [2]int            `json:"pair,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	Extra   any               `json:"extra,omitempty"`
	When    time.Time         `json:"when,omitzero"`
	Raw     json.RawMessage   `json:"raw,omitempty"`
	Data    []byte            `json:"data,omitempty"`
	Next    *typedBase        `json:"next,omitempty"`
	Quoted  int64             `json:"quoted,string,omitempty"`
	NoTag   string
	Owner   string `json:"owner2,omitempty"` // hides nothing: the json name differs
	Skipped string `json:"-"`
	//lint:ignore U1000 unexported on purpose: the schema must leave it out
	internal string
}

func TestSchemaForInput(t *testing.T) {
	got, err := objectSchemaFor(reflect.TypeFor[typedInput](), false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{` +
		`"NoTag":{"type":"string"},` +
		`"count":{"minimum":0,"type":"integer"},` +
		`"data":{"contentEncoding":"base64","type":"string"},` +
		`"extra":{},` +
		`"id":{"description":"the record's id","type":"string"},` +
		`"labels":{"additionalProperties":{"type":"string"},"type":"object"},` +
		`"loud":{"type":"boolean"},` +
		`"name":{"description":"who to greet","type":"string"},` +
		`"next":{"properties":{"id":{"description":"the record's id","type":"string"},"owner":{"type":"string"}},"required":["id"],"type":"object"},` +
		`"owner":{"type":"string"},` +
		`"owner2":{"type":"string"},` +
		`"pair":{"items":{"type":"integer"},"maxItems":2,"minItems":2,"type":"array"},` +
		`"quoted":{"type":"string"},` +
		`"ratio":{"type":"number"},` +
		`"raw":{},` +
		`"tags":{"items":{"type":"string"},"type":"array"},` +
		`"times":{"type":"integer"},` +
		`"when":{"type":"string"}},` +
		`"required":["name","NoTag","id"],"type":"object"}`
	if string(got) != want {
		t.Errorf("schema of typedInput:\n got %s\nwant %s", got, want)
	}
}

type typedOutput struct {
	Sum     int            `json:"sum"`
	Parts   []int          `json:"parts"`
	Notes   []string       `json:"notes,omitempty"`
	ByName  map[string]int `json:"byName"`
	Best    *typedBase     `json:"best"`
	Comment *string        `json:"comment,omitempty"`
}

// TestSchemaForOutput checks that an output schema admits the null that
// encoding/json writes for a nil pointer, slice or map, unless omitempty
// leaves it out.
func TestSchemaForOutput(t *testing.T) {
	got, err := objectSchemaFor(reflect.TypeFor[*typedOutput](), true)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{` +
		`"best":{"properties":{"id":{"description":"the record's id","type":"string"},"owner":{"type":"string"}},"required":["id"],"type":["object","null"]},` +
		`"byName":{"additionalProperties":{"type":"integer"},"type":["object","null"]},` +
		`"comment":{"type":"string"},` +
		`"notes":{"items":{"type":"string"},"type":"array"},` +
		`"parts":{"items":{"type":"integer"},"type":["array","null"]},` +
		`"sum":{"type":"integer"}},` +
		`"required":["sum","parts","byName","best"],"type":"object"}`
	if string(got) != want {
		t.Errorf("schema of *typedOutput:\n got %s\nwant %s", got, want)
	}
	sc, err := compileSchema(got)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(typedOutput{})
	v := decodeNumbers(t, string(b))
	var errs []string
	sc.validate("output", v, &errs)
	if len(errs) > 0 {
		t.Errorf("the zero typedOutput, %s, does not match its own schema: %v", b, errs)
	}
}

type selfRef struct {
	Next *selfRef `json:"next"`
}

func TestSchemaForRefuses(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[int](), "want a struct, a map with string keys, or a pointer to one"},
		{reflect.TypeFor[[]string](), "want a struct"},
		{reflect.TypeFor[map[int]string](), "a map's keys must be strings"},
		{reflect.TypeFor[struct{ C chan int }](), "field C: chan int: JSON has no chan"},
		{reflect.TypeFor[struct{ F func() }](), "field F: func(): JSON has no func"},
		{reflect.TypeFor[selfRef](), "refers to itself"},
	} {
		_, err := objectSchemaFor(tc.typ, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("schema of %v: error %v, want one containing %q", tc.typ, err, tc.want)
		}
	}
}

type sumIn struct {
	A     int    `json:"a" jsonschema:"the first addend"`
	B     int    `json:"b"`
	Label string `json:"label,omitempty"`
}

type sumOut struct {
	Sum   int    `json:"sum"`
	Label string `json:"label,omitempty"`
}

func TestAddToolTyped(t *testing.T) {
	srv := NewServer(Implementation{Name: "t", Version: "0"}, nil)
	var seen sumIn
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(AddTool(srv, Tool{Name: "sum"}, func(_ context.Context, _ *CallRequest, in sumIn) (*CallToolResult, sumOut, error) {
		seen = in
		if in.A < 0 {
			return nil, sumOut{}, errors.New("a must not be negative")
		}
		if in.B < 0 {
			return nil, sumOut{}, &Error{Code: CodeInvalidParams, Message: "b is negative"}
		}
		return nil, sumOut{Sum: in.A + in.B, Label: in.Label}, nil
	}))
	must(AddTool(srv, Tool{Name: "maybe"}, func(_ context.Context, req *CallRequest, in map[string]any) (*CallToolResult, any, error) {
		if in["give"] == true {
			return TextResult("given"), map[string]int{"n": 1}, nil
		}
		return TextResult("nothing"), nil, nil
	}))
	must(AddTool(srv, Tool{Name: "ptr"}, func(context.Context, *CallRequest, any) (*CallToolResult, *sumOut, error) {
		return nil, nil, nil
	}))
	if err := AddTool(srv, Tool{Name: "bad"}, func(context.Context, *CallRequest, string) (*CallToolResult, any, error) {
		return nil, nil, nil
	}); err == nil || !strings.Contains(err.Error(), `tool "bad": input schema of string: want a struct`) {
		t.Errorf("AddTool with a string input: %v", err)
	}
	if err := AddTool(srv, Tool{Name: "bad"}, func(context.Context, *CallRequest, sumIn) (*CallToolResult, []int, error) {
		return nil, nil, nil
	}); err == nil || !strings.Contains(err.Error(), `tool "bad": output schema of []int: want a struct`) {
		t.Errorf("AddTool with a slice output: %v", err)
	}

	tools := srv.Tools()
	if got, want := string(tools[0].InputSchema), `{"properties":{"a":{"description":"the first addend","type":"integer"},"b":{"type":"integer"},"label":{"type":"string"}},"required":["a","b"],"type":"object"}`; got != want {
		t.Errorf("sum's input schema:\n got %s\nwant %s", got, want)
	}
	if got, want := string(tools[0].OutputSchema), `{"properties":{"label":{"type":"string"},"sum":{"type":"integer"}},"required":["sum"],"type":"object"}`; got != want {
		t.Errorf("sum's output schema:\n got %s\nwant %s", got, want)
	}
	if tools[1].OutputSchema != nil {
		t.Errorf("maybe, with output any, has an output schema: %s", tools[1].OutputSchema)
	}

	c, _ := pipeSession(t, srv)
	ctx := context.Background()
	if _, err := c.Initialize(ctx, ""); err != nil {
		t.Fatal(err)
	}
	call := func(name string, args any) *CallToolResult {
		t.Helper()
		res, err := c.CallTool(ctx, name, args)
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return res
	}
	check := func(res *CallToolResult, structured, text string, isError bool) {
		t.Helper()
		b, _ := json.Marshal(res.StructuredContent)
		if res.StructuredContent == nil {
			b = nil
		}
		if string(b) != structured || len(res.Content) != 1 || res.Content[0].Text != text || res.IsError != isError {
			t.Errorf("result %+v, want structured %s, text %q, isError %v", res, structured, text, isError)
		}
	}
	check(call("sum", map[string]any{"a": 2, "b": 3, "label": "x"}), `{"label":"x","sum":5}`, `{"sum":5,"label":"x"}`, false)
	if seen != (sumIn{A: 2, B: 3, Label: "x"}) {
		t.Errorf("the handler saw %+v", seen)
	}
	check(call("sum", map[string]any{"a": 2}), "", "invalid arguments for tool sum:\n- arguments: missing required property \"b\"", true)
	check(call("sum", map[string]any{"a": -1, "b": 0}), "", "a must not be negative", true)
	if _, err := c.CallTool(ctx, "sum", map[string]any{"a": 0, "b": -1}); err == nil || err.(*Error).Code != CodeInvalidParams {
		t.Errorf("sum with a negative b: %v, want the handler's *Error", err)
	}
	check(call("maybe", map[string]any{"give": true}), `{"n":1}`, "given", false)
	check(call("maybe", nil), "", "nothing", false)
	check(call("ptr", nil), `{"sum":0}`, `{"sum":0}`, false)
}
