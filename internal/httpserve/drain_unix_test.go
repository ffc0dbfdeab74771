//go:build unix

package httpserve

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestDrainGrace checks that once /healthz has been probed, a drain keeps
// the port open past the end of the running calls: /healthz and new calls
// get 503 on connections that each answer closes, until a second signal.
func TestDrainGrace(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	u, done := serve(t, ctx, Options{DrainGrace: 1 << 62})
	if resp, _ := get(t, "GET", u+HealthPath); resp.StatusCode != 200 || resp.Close {
		t.Fatalf("GET /healthz before the drain: %d, close %v; want 200 on a connection kept open", resp.StatusCode, resp.Close)
	}
	cancel()
	for {
		if resp, _ := get(t, "GET", u+HealthPath); resp.StatusCode == 503 {
			break
		}
	}
	// No call runs, so only the grace keeps the port open: these are
	// answered after the handler's drain has ended.
	for range 3 {
		resp, body := get(t, "GET", u+HealthPath)
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "draining") || !resp.Close {
			t.Errorf("GET /healthz while draining: %d %q %v, close %v; want 503 draining with Retry-After, closing the connection",
				resp.StatusCode, body, resp.Header, resp.Close)
		}
	}
	// /healthz turns 503 just before the handler starts its drain: a POST
	// in between is taken as usual (and this empty one refused with 415).
	resp, body := get(t, "POST", u+Path)
	for resp.StatusCode == 415 {
		resp, body = get(t, "POST", u+Path)
	}
	if resp.StatusCode != 503 || !resp.Close || !strings.Contains(body, "shutting down") {
		t.Errorf("POST %s while draining: %d %q, close %v; want 503 closing the connection", Path, resp.StatusCode, body, resp.Close)
	}
	select {
	case err := <-done:
		t.Fatalf("Serve returned during the grace: %v", err)
	default:
	}
	// A second signal ends the grace at once.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
