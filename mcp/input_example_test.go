package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpship/mcpship/mcp"
)

// A tool that asks the user for their name before it answers. A client of
// revision 2026-07-28 gets the question in the call's result, answers it,
// and calls the tool again with the answer and the state the result gave.
func ExampleInputRequired() {
	s := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	s.AddTool(mcp.Tool{Name: "greet", Description: "Say hello to the user"},
		func(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
			var answer struct {
				Action  string
				Content struct{ Name string }
			}
			if json.Unmarshal(req.InputResponses["who"], &answer) != nil || answer.Action != "accept" {
				return mcp.InputRequired(map[string]mcp.InputRequest{
					"who": {Method: "elicitation/create", Params: map[string]any{
						"message":         "What is your name?",
						"requestedSchema": mcp.ObjectSchema(map[string]any{"name": map[string]any{"type": "string"}}, "name"),
					}},
				}, "asked once"), nil
			}
			return mcp.TextResult("Hello, " + answer.Content.Name + " (" + req.RequestState + ")"), nil
		})
	srv := httptest.NewServer(mcp.NewHTTPHandler(s, nil))
	defer srv.Close()

	// call sends a 2026-07-28 tools/call of greet with more params.
	call := func(more string) map[string]any {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"` + more + `,"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "greet")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		var reply struct{ Result map[string]any }
		json.NewDecoder(resp.Body).Decode(&reply)
		return reply.Result
	}

	first := call("")
	fmt.Println(first["resultType"], first["inputRequests"].(map[string]any)["who"].(map[string]any)["method"])
	state, _ := json.Marshal(first["requestState"])
	second := call(`,"inputResponses":{"who":{"action":"accept","content":{"name":"Ada"}}},"requestState":` + string(state))
	fmt.Println(second["resultType"], second["content"].([]any)[0].(map[string]any)["text"])
	// Output:
	// input_required elicitation/create
	// complete Hello, Ada (asked once)
}
