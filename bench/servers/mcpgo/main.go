// Command mcpgo is the echo server on github.com/mark3labs/mcp-go, for the
// benchmarks only.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	addr := flag.String("http", "", "serve the streamable HTTP transport at http://ADDR/mcp instead of stdio")
	stateful := flag.Bool("stateful", false, "with -http, keep and check sessions (WithStateful); the default mints ids it does not keep")
	flag.Parse()
	s := server.NewMCPServer("bench-mcpgo", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo the text back."),
		mcp.WithString("text", mcp.Required(), mcp.Description("the text to echo"))),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(text), nil
		})
	if *addr != "" {
		h := server.NewStreamableHTTPServer(s, server.WithStateful(*stateful))
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			log.Fatal(err)
		}
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		fmt.Fprintf(os.Stderr, "serving MCP on http://%s/mcp\n", ln.Addr())
		log.Fatal((&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}).Serve(ln))
	}
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}
