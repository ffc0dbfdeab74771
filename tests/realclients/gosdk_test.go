package realclients

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDK drives mcpship with the official Go SDK's client over stdio, at
// every revision the SDK speaks: 2026-07-28 through server/discover, the
// others through initialize.
func TestGoSDK(t *testing.T) {
	for _, srv := range servers {
		for _, rc := range revisionCases {
			rev := rc.ask
			t.Run(srv.name+"/"+rev, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-gosdk", Version: "0"}, nil)
				cmd := exec.Command(binPath, srv.args()...)
				cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
				if err != nil {
					t.Fatalf("connect at %s: %v", rev, err)
				}
				defer cs.Close()

				init := cs.InitializeResult()
				if init.ProtocolVersion != rc.want {
					t.Errorf("asked for %q, negotiated %q, want %q", rev, init.ProtocolVersion, rc.want)
				}
				if init.ServerInfo == nil || init.ServerInfo.Name != "mcpship" || init.ServerInfo.Version != versionJSON["version"] {
					t.Errorf("serverInfo = %+v, want mcpship %v", init.ServerInfo, versionJSON["version"])
				}
				if init.Capabilities == nil || init.Capabilities.Tools == nil {
					t.Errorf("capabilities = %+v, want tools", init.Capabilities)
				}

				list, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				var names []string
				for _, tool := range list.Tools {
					names = append(names, tool.Name)
				}
				checkToolNames(t, srv, names)

				for _, c := range srv.calls {
					t.Run(c.name, func(t *testing.T) {
						res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.rawArgs(t)})
						c.check(t, goSDKOutcome(t, res, err))
					})
				}
				if err := cs.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
		}
	}
}

func goSDKOutcome(t *testing.T, res *mcp.CallToolResult, err error) outcome {
	t.Helper()
	if err != nil {
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) {
			t.Fatalf("tools/call failed without a JSON-RPC error: %v", err)
		}
		return outcome{RPCErr: &rpcError{Code: int(werr.Code), Message: werr.Message}}
	}
	o := outcome{IsError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			o.Texts = append(o.Texts, tc.Text)
		}
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		o.Structured = b
	}
	return o
}
