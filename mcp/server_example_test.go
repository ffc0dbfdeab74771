package mcp_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/mcpship/mcpship/mcp"
)

// A server with one tool, serving a client. A program serves on its
// standard streams with s.ServeStdio(ctx, nil); the examples connect a
// client in memory with [mcp.Server.Connect] instead.
func ExampleServer() {
	s := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	err := s.AddTool(mcp.Tool{
		Name:        "greet",
		Description: "Say hello",
		InputSchema: mcp.ObjectSchema(map[string]any{
			"name": map[string]any{"type": "string"},
		}, "name"),
	}, func(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
		var in struct{ Name string }
		if err := req.Bind(&in); err != nil {
			return nil, err
		}
		return mcp.TextResult("Hello, " + in.Name), nil
	})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	c := s.Connect(ctx, nil)
	defer c.Close()
	init, err := c.Initialize(ctx, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(init.ServerInfo.Name, init.ProtocolVersion)
	res, err := c.CallTool(ctx, "greet", map[string]any{"name": "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// greeter 2025-11-25
	// Hello, Ada
}

// A tool with a hand-written input schema. The arguments reach the
// handler checked against the schema, with the default of each property
// the call leaves out filled in. A handler's error that is not an
// [*mcp.Error] is the model's to read: a result with IsError set.
func ExampleServer_AddTool() {
	s := mcp.NewServer(mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	err := s.AddTool(mcp.Tool{
		Name:        "head",
		Description: "The first lines of a text",
		InputSchema: mcp.ObjectSchema(map[string]any{
			"text":  map[string]any{"type": "string"},
			"lines": map[string]any{"type": "integer", "minimum": 1, "default": 2},
		}, "text"),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)},
	}, func(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
		fmt.Println("arguments:", string(req.Arguments))
		var in struct {
			Text  string
			Lines int
		}
		if err := req.Bind(&in); err != nil {
			return nil, err
		}
		if in.Text == "" {
			return nil, fmt.Errorf("the text is empty; nothing to show")
		}
		lines := strings.SplitAfter(in.Text, "\n")
		return mcp.TextResult(strings.Join(lines[:min(in.Lines, len(lines))], "")), nil
	})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	c := s.Connect(ctx, nil)
	defer c.Close()
	if _, err := c.Initialize(ctx, ""); err != nil {
		log.Fatal(err)
	}
	for _, args := range []map[string]any{
		{"text": "one\ntwo\nthree\n"},
		{"text": ""},
		{"text": "one\ntwo\n", "lines": 0},
	} {
		res, err := c.CallTool(ctx, "head", args)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("isError=%v %q\n", res.IsError, res.Content[0].Text)
	}
	// Output:
	// arguments: {"text":"one\ntwo\nthree\n","lines":2}
	// isError=false "one\ntwo\n"
	// arguments: {"text":"","lines":2}
	// isError=true "the text is empty; nothing to show"
	// isError=true "invalid arguments for tool head:\n- arguments.lines: 0 is less than the minimum 1"
}
