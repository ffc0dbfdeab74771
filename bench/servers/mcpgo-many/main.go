// Command mcpgo-many is an mcp-go server with -n tools shaped like those of
// the manifest that cmd/manytools writes, for the start-up benchmark only.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	n := flag.Int("n", 1000, "number of tools")
	flag.Parse()
	s := server.NewMCPServer("bench-mcpgo-many", "1.0.0", server.WithToolCapabilities(false))
	handler := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("path", "")), nil
	}
	for i := range *n {
		s.AddTool(mcp.NewTool(fmt.Sprintf("tool_%04d", i),
			mcp.WithDescription(fmt.Sprintf("Tool number %d: check the files given and report what it finds.", i)),
			mcp.WithString("path", mcp.Required(), mcp.Description("the file to check")),
			mcp.WithInteger("count", mcp.DefaultNumber(10), mcp.Description("how many findings at most")),
			mcp.WithArray("tags", mcp.WithStringItems(), mcp.Description("tags to select")),
			mcp.WithBoolean("verbose", mcp.Description("say more"))),
			handler)
	}
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}
