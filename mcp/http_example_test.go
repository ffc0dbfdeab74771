package mcp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpship/mcpship/mcp"
)

// A Server served over HTTP: mount the handler at /mcp on a server that
// listens on loopback. A real program would use http.Server with a
// ReadHeaderTimeout and call Shutdown on the handler when it stops.
func ExampleNewHTTPHandler() {
	s := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type greetIn struct {
		Name string `json:"name"`
	}
	mcp.AddTool(s, mcp.Tool{Name: "greet", Description: "Say hello"},
		func(ctx context.Context, req *mcp.CallRequest, in greetIn) (*mcp.CallToolResult, any, error) {
			return mcp.TextResult("Hello, " + in.Name), nil, nil
		})
	h := mcp.NewHTTPHandler(s, &mcp.HTTPOptions{AuthToken: "s3cret"})
	defer h.Shutdown(context.Background())
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux) // on 127.0.0.1
	defer srv.Close()

	// A stateless request of revision 2026-07-28, as a client sends it.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "greet")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status)
	fmt.Print(string(reply))
	// Output:
	// 200 OK
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"greeter","version":"1.0.0"}}}}
}
