package realclients

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// roundRobin sends each request to the next of its backends in turn, as
// a load balancer without affinity does.
type roundRobin struct {
	mu       sync.Mutex
	backends []*url.URL
	next     int
	sent     []int // requests sent to each backend
}

func (rr *roundRobin) RoundTrip(req *http.Request) (*http.Response, error) {
	rr.mu.Lock()
	i := rr.next
	rr.next = (rr.next + 1) % len(rr.backends)
	rr.sent[i]++
	rr.mu.Unlock()
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = rr.backends[i].Scheme, rr.backends[i].Host
	req.Host = rr.backends[i].Host
	return http.DefaultTransport.RoundTrip(req)
}

// TestGoSDKAcrossReplicas runs every entry of servers on two mcpship serve
// processes that share a session key, and has the Go SDK's streamable HTTP
// client, in each legacy revision, hold one session across both: every
// request (initialize, notifications, the GET stream, tools/list, each
// call, DELETE) goes to the other replica than the one before.
func TestGoSDKAcrossReplicas(t *testing.T) {
	key := filepath.Join(t.TempDir(), "session.key")
	if err := os.WriteFile(key, []byte("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, srv := range servers {
		args := append(srv.args(), "--session-key-file", key)
		var backends []*url.URL
		for range 2 {
			u, err := url.Parse(startHTTPServe(t, args))
			if err != nil {
				t.Fatal(err)
			}
			backends = append(backends, u)
		}
		for _, rev := range []string{rev20250326, rev20250618, rev20251125} {
			t.Run(srv.name+"/"+rev, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				rr := &roundRobin{backends: backends, sent: make([]int, len(backends))}
				client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-replicas", Version: "0"}, nil)
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: backends[0].String(), HTTPClient: &http.Client{Transport: rr}},
					&mcp.ClientSessionOptions{ProtocolVersion: rev})
				if err != nil {
					t.Fatalf("connect across replicas: %v", err)
				}
				checkSession(t, ctx, cs, srv, rev)
				if err := cs.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
				rr.mu.Lock()
				defer rr.mu.Unlock()
				if rr.sent[0] < 2 || rr.sent[1] < 2 {
					t.Errorf("requests per replica %v: want the session spread over both", rr.sent)
				}
			})
		}
	}
}
