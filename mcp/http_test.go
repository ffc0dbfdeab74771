package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// modernCall returns a 2026-07-28 tools/call request for tool.
func modernCall(ctx context.Context, t *testing.T, url, tool string) *http.Request {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},` + modernMeta + `}}`
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	return req
}

// blockingServer has a tool "block" that signals started, then waits for
// release or its context, and reports which on ended.
func blockingServer(t *testing.T) (s *Server, started chan struct{}, release chan struct{}, ended chan string) {
	s = NewServer(Implementation{Name: "t", Version: "0"}, nil)
	started, release, ended = make(chan struct{}, 8), make(chan struct{}), make(chan string, 8)
	err := s.AddTool(Tool{Name: "block"}, func(ctx context.Context, _ *CallRequest) (*CallToolResult, error) {
		started <- struct{}{}
		select {
		case <-release:
			ended <- "released"
			return TextResult("released"), nil
		case <-ctx.Done():
			ended <- "cancelled"
			return nil, ctx.Err()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, started, release, ended
}

// TestHTTPLongCallStreams checks that a call running past KeepAlive gets
// an event stream with a first comment and keep-alive comments while it
// runs, and its reply at the end.
func TestHTTPLongCallStreams(t *testing.T) {
	s, started, release, _ := blockingServer(t)
	srv := httptest.NewServer(NewHTTPHandler(s, &HTTPOptions{KeepAlive: time.Millisecond}))
	defer srv.Close()
	resp, err := http.DefaultClient.Do(modernCall(t.Context(), t, srv.URL, "block"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-started
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("headers %v, want an event stream that proxies do not buffer", resp.Header)
	}
	r := bufio.NewReader(resp.Body)
	var lines []string
	for keepAlives := 0; keepAlives < 2; {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended after %q: %v", lines, err)
		}
		lines = append(lines, line)
		if line == ": keep-alive\n" {
			keepAlives++
		}
	}
	if lines[0] != ": stream open\n" {
		t.Errorf("first line %q, want the first comment", lines[0])
	}
	close(release)
	rest, _ := io.ReadAll(r)
	if !strings.Contains(string(rest), `data: {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"released"}]`) {
		t.Errorf("after the keep-alives: %q, want the reply", rest)
	}
}

// TestHTTPCloseCancels checks that closing a 2026-07-28 response cancels
// the call.
func TestHTTPCloseCancels(t *testing.T) {
	s, started, _, ended := blockingServer(t)
	srv := httptest.NewServer(NewHTTPHandler(s, nil))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(modernCall(ctx, t, srv.URL, "block"))
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-started
	cancel()
	if got := <-ended; got != "cancelled" {
		t.Errorf("the call ended %s, want cancelled", got)
	}
	<-errc
}

// TestHTTPBusy checks that a call past MaxConcurrentCalls gets 503 with
// Retry-After, and that other requests are still served.
func TestHTTPBusy(t *testing.T) {
	s, started, release, _ := blockingServer(t)
	srv := httptest.NewServer(NewHTTPHandler(s, &HTTPOptions{MaxConcurrentCalls: 1}))
	defer srv.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.DefaultClient.Do(modernCall(t.Context(), t, srv.URL, "block"))
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	resp, err := http.DefaultClient.Do(modernCall(t.Context(), t, srv.URL, "block"))
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		ID    int
		Error Error
	}
	json.NewDecoder(resp.Body).Decode(&reply)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || reply.ID != 1 || reply.Error.Code != CodeInternalError {
		t.Errorf("second call: %d %v %+v, want 503 with Retry-After and the request's id", resp.StatusCode, resp.Header, reply)
	}
	close(release)
	<-done
}

// TestHTTPIdleSessionEnds checks that a legacy session idle past
// SessionIdleTimeout ends, so that its id gets 404.
func TestHTTPIdleSessionEnds(t *testing.T) {
	srv := httptest.NewServer(NewHTTPHandler(newTestServer(t, nil), &HTTPOptions{SessionIdleTimeout: time.Millisecond}))
	defer srv.Close()
	post := func(sid, body string) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	sid := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`).Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize minted no session")
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp := post(sid, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if resp.StatusCode == 404 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle session still answers %d", resp.StatusCode)
		}
	}
}

// TestHTTPShutdown checks that Shutdown ends GET streams at once, lets a
// running call finish, and refuses new requests with 503.
func TestHTTPShutdown(t *testing.T) {
	s, started, release, ended := blockingServer(t)
	h := NewHTTPHandler(s, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	// A legacy session with its GET stream open.
	req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	get, _ := http.NewRequest("GET", srv.URL, nil)
	get.Header.Set("Mcp-Session-Id", resp.Header.Get("Mcp-Session-Id"))
	get.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(get)
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", stream, err)
	}
	defer stream.Body.Close()
	call := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(modernCall(t.Context(), t, srv.URL, "block"))
		if err != nil {
			call <- 0
			return
		}
		resp.Body.Close()
		call <- resp.StatusCode
	}()
	<-started
	shut := make(chan error, 1)
	go func() { shut <- h.Shutdown(context.Background()) }()
	if _, err := io.ReadAll(stream.Body); err != nil {
		t.Errorf("the GET stream did not end cleanly: %v", err)
	}
	resp, err = http.DefaultClient.Do(modernCall(t.Context(), t, srv.URL, "block"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("a request during shutdown got %d, want 503", resp.StatusCode)
	}
	close(release)
	if got := <-ended; got != "released" {
		t.Errorf("the running call was %s, want it to finish", got)
	}
	if code := <-call; code != 200 {
		t.Errorf("the running call's response: %d, want 200", code)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}
