// Command mcpship-echo is the echo server on mcpship's own mcp package, so
// that it is compared like for like with the other SDKs' echo servers.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

func main() {
	addr := flag.String("http", "", "serve the streamable HTTP transport at http://ADDR/mcp instead of stdio")
	calls := flag.Int("max-concurrent-calls", 0, "with -http, the handler's limit on running calls (0: its default)")
	sessions := flag.Int("max-sessions", 0, "with -http, the handler's limit on legacy sessions (0: its default)")
	flag.Parse()
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
	if *addr != "" {
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		mux := http.NewServeMux()
		mux.Handle("/mcp", mcp.NewHTTPHandler(s, &mcp.HTTPOptions{MaxConcurrentCalls: *calls, MaxSessions: *sessions}))
		fmt.Fprintf(os.Stderr, "serving MCP on http://%s/mcp\n", ln.Addr())
		fmt.Fprintln(os.Stderr, (&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}).Serve(ln))
		os.Exit(1)
	}
	signal.Ignore(syscall.SIGPIPE) // as mcpship serve does
	if err := s.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
