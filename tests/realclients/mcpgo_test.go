package realclients

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestMCPGo drives mcpship with mark3labs/mcp-go's client over stdio, at
// every revision it speaks: 2026-07-28 through server/discover, the others
// through initialize.
func TestMCPGo(t *testing.T) {
	for _, srv := range servers {
		for _, rc := range revisionCases {
			rev := rc.ask
			t.Run(srv.name+"/"+rev, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				tr := transport.NewStdio(binPath, nil, srv.args()...)
				c := client.NewClient(tr, client.WithProtocolVersion(rev))
				if err := c.Start(ctx); err != nil {
					t.Fatalf("start: %v", err)
				}
				defer c.Close()
				req := mcp.InitializeRequest{}
				req.Params.ProtocolVersion = rev
				req.Params.ClientInfo = mcp.Implementation{Name: "mcpship-realclients-mcpgo", Version: "0"}
				init, err := c.Initialize(ctx, req)
				if err != nil {
					t.Fatalf("initialize at %s: %v", rev, err)
				}
				if init.ProtocolVersion != rc.want || c.ProtocolVersion() != rc.want {
					t.Errorf("asked for %q, negotiated %q (client says %q), want %q", rev, init.ProtocolVersion, c.ProtocolVersion(), rc.want)
				}
				if init.ServerInfo.Name != "mcpship" || init.ServerInfo.Version != versionJSON["version"] {
					t.Errorf("serverInfo = %+v, want mcpship %v", init.ServerInfo, versionJSON["version"])
				}
				if init.Capabilities.Tools == nil {
					t.Errorf("capabilities = %+v, want tools", init.Capabilities)
				}

				list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				var names []string
				for _, tool := range list.Tools {
					names = append(names, tool.Name)
				}
				checkToolNames(t, srv, names)

				for _, cl := range srv.calls {
					t.Run(cl.name, func(t *testing.T) {
						req := mcp.CallToolRequest{}
						req.Params.Name = cl.tool
						req.Params.Arguments = cl.rawArgs(t)
						res, err := c.CallTool(ctx, req)
						cl.check(t, mcpGoOutcome(t, res, err))
					})
				}
			})
		}
	}
}

// mcpGoErrorCodes maps the sentinel errors of mcp-go back to their codes:
// its client turns a JSON-RPC error into one of these, wrapping the message.
var mcpGoErrorCodes = []struct {
	err  error
	code int
}{
	{mcp.ErrParseError, -32700},
	{mcp.ErrInvalidRequest, -32600},
	{mcp.ErrMethodNotFound, -32601},
	{mcp.ErrInvalidParams, -32602},
	{mcp.ErrInternalError, -32603},
}

func mcpGoOutcome(t *testing.T, res *mcp.CallToolResult, err error) outcome {
	t.Helper()
	if err != nil {
		for _, e := range mcpGoErrorCodes {
			if errors.Is(err, e.err) {
				msg := strings.TrimPrefix(err.Error(), e.err.Error()+": ")
				return outcome{RPCErr: &rpcError{Code: e.code, Message: msg}}
			}
		}
		t.Fatalf("tools/call failed without a JSON-RPC error mcp-go knows: %v", err)
	}
	o := outcome{IsError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			o.Texts = append(o.Texts, tc.Text)
		}
	}
	switch {
	case len(res.RawStructuredContent) > 0:
		o.Structured = res.RawStructuredContent
	case res.StructuredContent != nil:
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		o.Structured = b
	}
	return o
}
