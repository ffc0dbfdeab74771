// Command mcpship-echo is the echo server on mcpship's own mcp package, so
// that it is compared like for like with the other SDKs' echo servers.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpship/mcpship/mcp"
)

func main() {
	s := mcp.NewServer(mcp.Implementation{Name: "bench-mcpship", Version: "1.0.0"}, nil)
	err := s.AddTool(mcp.Tool{
		Name:        "echo",
		Description: "Echo the text back.",
		InputSchema: mcp.ObjectSchema(map[string]any{"text": map[string]any{"type": "string"}}, "text"),
	}, func(_ context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Text string `json:"text"`
		}
		if err := req.Bind(&in); err != nil {
			return nil, err
		}
		return mcp.TextResult(in.Text), nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	signal.Ignore(syscall.SIGPIPE) // as mcpship serve does
	if err := s.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
