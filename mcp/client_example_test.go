package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os/exec"

	"github.com/mcpship/mcpship/mcp"
)

// A client lists a server's tools and calls one. Once the connection has
// ended, calls fail with [mcp.ErrConnectionClosed].
func ExampleClient() {
	s := mcp.NewServer(mcp.Implementation{Name: "clock", Version: "1.0.0"}, nil)
	err := s.AddTool(mcp.Tool{Name: "now", Description: "The time"},
		func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("12:00"), nil
		})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	c := s.Connect(ctx, nil)
	if _, err := c.Initialize(ctx, ""); err != nil {
		log.Fatal(err)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		fmt.Printf("%s: %s\n", t.Name, t.Description)
	}
	res, err := c.CallTool(ctx, "now", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)

	_, err = c.CallTool(ctx, "nope", nil)
	var rpcErr *mcp.Error
	if errors.As(err, &rpcErr) {
		fmt.Println("error", rpcErr.Code)
	}

	c.Close()
	_, err = c.CallTool(ctx, "now", nil)
	fmt.Println(errors.Is(err, mcp.ErrConnectionClosed))
	// Output:
	// now: The time
	// 12:00
	// error -32602
	// true
}

// A client that starts a server command and talks to it over the
// command's standard input and output.
func ExampleStartCommand() {
	ctx := context.Background()
	c, err := mcp.StartCommand(exec.Command("mcpship", "serve", "--manifest", "mcpship.json"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close() // closes the server's input, then waits for it to exit
	init, err := c.Initialize(ctx, "")
	if err != nil {
		log.Fatalf("initialize: %v\nthe server's stderr:\n%s", err, c.Stderr())
	}
	fmt.Println("connected to", init.ServerInfo.Name)
}
