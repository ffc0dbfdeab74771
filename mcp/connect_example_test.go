package mcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpship/mcpship/mcp"
)

// A test of a server's tools: Connect serves it in memory, and the
// client calls it as an assistant would over the server's standard
// streams.
func ExampleServer_Connect() {
	s := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	err := s.AddTool(mcp.Tool{
		Name:        "greet",
		Description: "Say hello",
		InputSchema: mcp.ObjectSchema(map[string]any{"name": map[string]any{"type": "string"}}, "name"),
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
	if _, err := c.Initialize(ctx, ""); err != nil {
		log.Fatal(err)
	}
	res, err := c.CallTool(ctx, "greet", map[string]any{"name": "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// Hello, Ada
}
