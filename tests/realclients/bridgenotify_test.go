//go:build linux

package realclients

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBridgeEverythingNotifications serves the reference server-everything
// and talks to it with the Go SDK's client in each era it speaks: a legacy
// session (GET stream, resources/subscribe) and 2026-07-28
// (server/discover, subscriptions/listen). The client subscribes to a
// resource, turns on the server's simulated updates and gets
// notifications/resources/updated for it; a call that adds a resource
// makes the server send notifications/resources/list_changed, which the
// client gets too. Each era has a bridge of its own, since the server's
// updates are one switch for all its clients.
func TestBridgeEverythingNotifications(t *testing.T) {
	for _, rev := range []string{rev20251125, rev20260728} {
		t.Run(rev, func(t *testing.T) {
			b := startBridged(t, nil, nil, serverBin(t, "mcp-server-everything"))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			updated := make(chan string, 16)
			listChanged := make(chan struct{}, 16)
			client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-bridge", Version: "0"}, &mcp.ClientOptions{
				// No roots (the SDK's default): a 2026-07-28 client that
				// declares them has its calls run by children of their own
				// (docs/bridge.md), and the server's updates are a switch of
				// the process its call reaches.
				Capabilities: &mcp.ClientCapabilities{},
				ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
					updated <- req.Params.URI
				},
				ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
					listChanged <- struct{}{}
				},
			})
			tr := &mcp.StreamableClientTransport{Endpoint: b.url, HTTPClient: &http.Client{}}
			cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, b.log())
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("negotiated %s, want %s", got, rev)
			}
			caps := cs.InitializeResult().Capabilities
			if caps == nil || caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged {
				t.Fatalf("capabilities %+v: want resources that can be subscribed to and change", caps)
			}
			list, err := cs.ListResources(ctx, nil)
			if err != nil || len(list.Resources) == 0 {
				t.Fatalf("resources/list: %v %v", list, err)
			}
			uri := list.Resources[0].URI
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatalf("subscribe to %s: %v\n%s", uri, err, b.log())
			}
			// The subscription may still be on its way to the server (the SDK
			// does not wait for a 2026-07-28 listen's acknowledgement): the
			// server's updates come every 5 seconds, so one comes after it.
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "toggle-subscriber-updates", Arguments: map[string]any{}}); err != nil {
				t.Fatalf("toggle-subscriber-updates: %v", err)
			}
			select {
			case got := <-updated:
				if got != uri {
					t.Errorf("notifications/resources/updated for %s, want %s", got, uri)
				}
			case <-ctx.Done():
				t.Fatalf("no notifications/resources/updated for %s\n%s", uri, b.log())
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "gzip-file-as-resource",
				Arguments: map[string]any{"name": "hello.txt", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resourceLink"}})
			if err != nil || res.IsError {
				t.Fatalf("gzip-file-as-resource: %v %v", res, err)
			}
			select {
			case <-listChanged:
			case <-ctx.Done():
				t.Fatalf("no notifications/resources/list_changed after a resource was added\n%s", b.log())
			}
		})
	}
}
