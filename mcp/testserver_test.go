package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// newTestServer returns a server with the tools the transcripts call:
//
//	echo {text}          text result
//	add {a, b}           structured result with an output schema
//	wait {}              blocks until released or cancelled
//	sleep {ms}           replies after ms milliseconds
//	release {}           releases every waiting call
//	boom {}              panics
//	fail {}              returns an error (an isError result)
//	rpcfail {}           returns a *Error (a JSON-RPC error)
//	progress {steps}     reports progress, including a step that goes back
//	log {}               logs at every level
//	kinds {...}          every schema keyword the validator checks
func newTestServer(t testing.TB, opts *ServerOptions) *Server {
	s := NewServer(Implementation{Name: "test-server", Version: "1.0.0"}, opts)
	release := make(chan struct{})
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AddTool(Tool{
		Name:        "echo",
		Description: "Echo the text back.",
		InputSchema: ObjectSchema(map[string]any{"text": map[string]any{"type": "string"}}, "text"),
		Annotations: &ToolAnnotations{ReadOnlyHint: Bool(true)},
	}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		var in struct{ Text string }
		if err := req.Bind(&in); err != nil {
			return nil, err
		}
		return TextResult(in.Text), nil
	}))
	must(s.AddTool(Tool{
		Name:         "add",
		Title:        "Add two integers",
		InputSchema:  ObjectSchema(map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}}, "a", "b"),
		OutputSchema: ObjectSchema(map[string]any{"sum": map[string]any{"type": "integer"}}, "sum"),
	}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		var in struct{ A, B int }
		if err := req.Bind(&in); err != nil {
			return nil, err
		}
		return StructuredResult(map[string]int{"sum": in.A + in.B}, ""), nil
	}))
	must(s.AddTool(Tool{Name: "wait"}, func(ctx context.Context, _ *CallRequest) (*CallToolResult, error) {
		select {
		case <-release:
			return TextResult("released"), nil
		case <-ctx.Done():
			return TextResult("cancelled"), nil
		}
	}))
	must(s.AddTool(Tool{
		Name:        "sleep",
		InputSchema: ObjectSchema(map[string]any{"ms": map[string]any{"type": "integer"}}, "ms"),
	}, func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		var in struct{ MS int }
		if err := req.Bind(&in); err != nil {
			return nil, err
		}
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return TextResult("slept"), nil
		case <-ctx.Done():
			return TextResult("cancelled"), nil
		}
	}))
	must(s.AddTool(Tool{Name: "release"}, func(context.Context, *CallRequest) (*CallToolResult, error) {
		close(release)
		return TextResult("ok"), nil
	}))
	must(s.AddTool(Tool{Name: "boom"}, func(context.Context, *CallRequest) (*CallToolResult, error) {
		panic("kaboom")
	}))
	must(s.AddTool(Tool{Name: "fail"}, func(context.Context, *CallRequest) (*CallToolResult, error) {
		return nil, errors.New("the disk is full")
	}))
	must(s.AddTool(Tool{Name: "rpcfail"}, func(context.Context, *CallRequest) (*CallToolResult, error) {
		return nil, &Error{Code: CodeInvalidParams, Message: "no such file"}
	}))
	must(s.AddTool(Tool{
		Name:        "progress",
		InputSchema: ObjectSchema(map[string]any{"steps": map[string]any{"type": "integer", "minimum": 1, "maximum": 5}}, "steps"),
	}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		var in struct{ Steps int }
		if err := req.Bind(&in); err != nil {
			return nil, err
		}
		for i := 1; i <= in.Steps; i++ {
			req.Progress(float64(i), float64(in.Steps), "step")
			req.Progress(float64(i-1), float64(in.Steps), "going back is dropped")
		}
		return TextResult("done"), nil
	}))
	must(s.AddTool(Tool{Name: "log"}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		for _, l := range levels {
			req.Log(l, "at "+string(l))
		}
		return TextResult("logged"), nil
	}))
	must(s.AddTool(Tool{
		Name: "kinds",
		InputSchema: mustJSON(`{"type":"object","additionalProperties":false,"properties":{
			"s":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-z]+$"},
			"n":{"type":"number","exclusiveMinimum":0,"maximum":10},
			"e":{"enum":["red","green"]},
			"a":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2},
			"o":{"type":"object","properties":{"x":{"type":"boolean"}},"required":["x"]},
			"u":{"anyOf":[{"type":"string"},{"type":"null"}]},
			"c":{"const":7}}}`),
	}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		return TextResult(strings.TrimSpace(string(req.Arguments))), nil
	}))
	return s
}

func mustJSON(s string) []byte { return []byte(s) }

// testResources are three resources on two pages: a text, an empty text
// and bytes that are not UTF-8.
type testResources struct{}

func (testResources) ListResources(_ context.Context, cursor string) ([]Resource, string, error) {
	switch cursor {
	case "":
		return []Resource{
			{URI: "test://a", Name: "a", MimeType: "text/plain", Size: 5},
			{URI: "test://empty", Name: "empty", Title: "Nothing"},
		}, "page2", nil
	case "page2":
		return []Resource{{URI: "test://bin", Name: "bin", MimeType: "application/octet-stream", Size: 3}}, "", nil
	}
	return nil, "", &Error{Code: CodeInvalidParams, Message: "invalid cursor " + strconv.Quote(cursor)}
}

func (testResources) ReadResource(_ context.Context, uri string) ([]ResourceContents, error) {
	switch uri {
	case "test://a":
		return []ResourceContents{{URI: uri, MimeType: "text/plain", Text: "alpha"}}, nil
	case "test://empty":
		return []ResourceContents{{URI: uri}}, nil
	case "test://bin":
		return []ResourceContents{{URI: uri, MimeType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString([]byte{0xff, 0, 0xfe})}}, nil
	case "test://broken":
		return nil, errors.New("the disk is gone")
	}
	return nil, &Error{Code: CodeResourceNotFound, Message: "resource not found: " + uri, Data: map[string]any{"uri": uri}}
}

// addShapeTool adds the tool "shape" {v}, whose result carries v as its
// structuredContent, checked against an output schema.
func addShapeTool(t testing.TB, s *Server) {
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AddTool(Tool{
		Name:         "shape",
		InputSchema:  ObjectSchema(map[string]any{"v": map[string]any{}}),
		OutputSchema: ObjectSchema(map[string]any{"n": map[string]any{"type": "integer"}, "tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}, "n"),
	}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		var in struct{ V any }
		if err := req.Bind(&in); err != nil {
			return nil, err
		}
		return StructuredResult(in.V, ""), nil
	}))
}
