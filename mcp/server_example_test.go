package mcp_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/mcpship/mcpship/mcp"
)

// A server with one tool, serving a client. A program serves on its
// standard streams with s.Serve(ctx, os.Stdin, os.Stdout); the examples
// connect a client over in-memory pipes instead.
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
	c := connect(s)
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
	c := connect(s)
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

// connect serves s over in-memory pipes, as a command would on its
// standard streams, and returns a client connected to it.
func connect(s *mcp.Server) *mcp.Client {
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	go func() {
		if err := s.Serve(context.Background(), serverIn, serverOut); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		serverOut.Close()
	}()
	return mcp.NewClient(clientIn, clientOut, nil)
}
