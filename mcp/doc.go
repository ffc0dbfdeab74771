// Package mcp implements the Model Context Protocol over stdio: a tools
// server, a small client, and the wire types they share.
//
// It uses only the standard library. Messages are JSON-RPC 2.0 objects, one
// per line (newline-delimited JSON), as the MCP stdio transport specifies.
//
// A program serves its own tools in a few lines:
//
//	s := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
//	s.AddTool(mcp.Tool{
//		Name:        "greet",
//		Description: "Say hello",
//		InputSchema: mcp.ObjectSchema(map[string]any{
//			"name": map[string]any{"type": "string"},
//		}, "name"),
//	}, func(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
//		var in struct{ Name string }
//		if err := req.Bind(&in); err != nil {
//			return nil, err
//		}
//		return mcp.TextResult("Hello, " + in.Name), nil
//	})
//	err := s.Serve(ctx, os.Stdin, os.Stdout)
//
// The server speaks the legacy handshake revisions 2024-11-05, 2025-03-26,
// 2025-06-18 and 2025-11-25, and the stateless revision 2026-07-28
// (server/discover and per-request _meta), choosing per request as a
// dual-era server does.
package mcp
