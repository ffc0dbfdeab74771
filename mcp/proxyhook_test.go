package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpship/mcpship/internal/mcpproxy"
	"github.com/mcpship/mcpship/mcp"
)

// upstream forwards every request to another server through a client.
type upstream struct{ c *mcp.Client }

func (u upstream) Capabilities() json.RawMessage { return json.RawMessage(`{"tools":{}}`) }

func (u upstream) Serve(ctx context.Context, r *mcpproxy.Request) (json.RawMessage, error) {
	var res json.RawMessage
	var params any
	if len(r.Params) > 0 {
		params = r.Params
	}
	err := u.c.Call(ctx, r.Method, params, &res)
	return res, err
}

func (u upstream) Listen(context.Context, *mcpproxy.Request) (func(), error) { return nil, nil }
func (u upstream) EndSession(string)                                         {}

// TestProxyHook makes a server a proxy through the hook that mcpship's
// own packages use: the front server answers the handshake and forwards
// the rest to the backend, as mcpship serve --transport http -- COMMAND
// does with a server command.
func TestProxyHook(t *testing.T) {
	backend := mcp.NewServer(mcp.Implementation{Name: "backend", Version: "1.0.0"}, nil)
	err := backend.AddTool(mcp.Tool{
		Name:        "greet",
		InputSchema: mcp.ObjectSchema(map[string]any{"name": map[string]any{"type": "string"}}, "name"),
	}, func(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
		var in struct{ Name string }
		if err := req.Bind(&in); err != nil {
			return nil, err
		}
		return mcp.TextResult("Hello, " + in.Name), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bc := backend.Connect(ctx, nil)
	defer bc.Close()
	if _, err := bc.Initialize(ctx, ""); err != nil {
		t.Fatal(err)
	}

	opts := &mcp.ServerOptions{}
	mcpproxy.WithProxy.(func(*mcp.ServerOptions, mcpproxy.Proxy))(opts, upstream{bc})
	front := mcp.NewServer(mcp.Implementation{Name: "front", Version: "1.0.0"}, opts)
	c := front.Connect(ctx, nil)
	defer c.Close()
	init, err := c.Initialize(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, "greet", map[string]any{"name": "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintln(init.ServerInfo.Name, res.Content[0].Text); got != "front Hello, Ada\n" {
		t.Errorf("got %q, want %q", got, "front Hello, Ada\n")
	}
}
