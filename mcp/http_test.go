package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
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

// postHTTP posts body to url as a client does, with the headers hdr, and
// returns the status, the headers and the body of the reply.
func postHTTP(t *testing.T, url string, hdr map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// initializeLegacy opens a legacy session.
const initializeLegacy = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// openStream opens the GET stream of session sid on url.
func openStream(t *testing.T, url, sid string) *http.Response {
	t.Helper()
	get, _ := http.NewRequest("GET", url, nil)
	get.Header.Set("Mcp-Session-Id", sid)
	get.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(get)
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", stream, err)
	}
	return stream
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
	_, _, sid := postLegacyMessage(t, srv.URL, "", initializeLegacy)
	if sid == "" {
		t.Fatal("initialize minted no session")
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		status, _, _ := postLegacyMessage(t, srv.URL, sid, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if status == 404 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle session still answers %d", status)
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
	_, _, sid := postLegacyMessage(t, srv.URL, "", initializeLegacy)
	stream := openStream(t, srv.URL, sid)
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
	body, err := io.ReadAll(stream.Body)
	if err != nil {
		t.Errorf("the GET stream did not end cleanly: %v", err)
	}
	// The stream was primed with an event id of its own, which counts
	// as progress to a client that reconnects; while draining, the
	// reconnection is sent elsewhere with 503.
	last := regexp.MustCompile(`(?m)^id: (get_\d+)\nretry: \d+\ndata:\n\n`).FindStringSubmatch(string(body))
	if last == nil {
		t.Fatalf("the GET stream at 2025-11-25 was not primed with an event id:\n%s", body)
	}
	get, _ := http.NewRequest("GET", srv.URL, nil)
	get.Header.Set("Mcp-Session-Id", sid)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Last-Event-ID", last[1])
	again, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != 503 || again.Header.Get("Retry-After") == "" {
		t.Errorf("a GET that reconnects with %s during shutdown got %d %v, want 503 with Retry-After", last[1], again.StatusCode, again.Header)
	}
	resp, err := http.DefaultClient.Do(modernCall(t.Context(), t, srv.URL, "block"))
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

// TestHTTPSessionsInUse checks that when every session the handler keeps
// is in use (here, its GET stream is open), an initialize gets 503 rather
// than ending one of them.
func TestHTTPSessionsInUse(t *testing.T) {
	srv := httptest.NewServer(NewHTTPHandler(newTestServer(t, nil), &HTTPOptions{MaxSessions: 1}))
	defer srv.Close()
	_, _, sid := postLegacyMessage(t, srv.URL, "", initializeLegacy)
	stream := openStream(t, srv.URL, sid)
	// The stream is open once its first comment arrives.
	if line, err := bufio.NewReader(stream.Body).ReadString('\n'); err != nil || line != ": stream open\n" {
		t.Fatalf("GET stream began %q, %v", line, err)
	}
	if status, h, _ := postHTTP(t, srv.URL, nil, initializeLegacy); status != 503 || h.Get("Retry-After") == "" {
		t.Errorf("initialize with the one session in use: %d, want 503 with Retry-After", status)
	}
	stream.Body.Close()
}

// TestClientCapabilities checks that a handler sees the capabilities the
// client declared, at initialize (legacy) or in _meta (2026-07-28), and
// that CodeMissingClientCapability is answered with 400 over HTTP.
func TestClientCapabilities(t *testing.T) {
	s := NewServer(Implementation{Name: "t", Version: "0"}, nil)
	s.AddTool(Tool{Name: "needs_sampling"}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		var caps map[string]json.RawMessage
		json.Unmarshal(req.ClientCapabilities, &caps)
		if _, ok := caps["sampling"]; !ok {
			return nil, &Error{Code: CodeMissingClientCapability, Message: "needs sampling", Data: map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}}
		}
		return TextResult(string(req.ClientCapabilities)), nil
	})
	srv := httptest.NewServer(NewHTTPHandler(s, nil))
	defer srv.Close()
	do := func(body string, hdr map[string]string) (int, string) {
		status, h, b := postHTTP(t, srv.URL, hdr, body)
		if sid := h.Get("Mcp-Session-Id"); sid != "" {
			hdr["Mcp-Session-Id"] = sid
		}
		return status, b
	}
	modern := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "needs_sampling"}
	call := func(caps string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"needs_sampling","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	}
	if status, body := do(call(`{}`), modern); status != 400 || !strings.Contains(body, `"code":-32021`) || !strings.Contains(body, `"requiredCapabilities":{"sampling":{}}`) {
		t.Errorf("without sampling: %d %s", status, body)
	}
	if status, body := do(call(`{"sampling":{}}`), modern); status != 200 || !strings.Contains(body, `{\"sampling\":{}}`) {
		t.Errorf("with sampling: %d %s", status, body)
	}
	legacy := map[string]string{}
	do(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"0"}}}`, legacy)
	if status, body := do(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"needs_sampling"}}`, legacy); status != 200 || !strings.Contains(body, `{\"sampling\":{}}`) {
		t.Errorf("legacy, declared at initialize: %d %s", status, body)
	}
}

// TestHeaderParamsRefused checks that AddTool refuses x-mcp-header
// annotations the transport forbids.
func TestHeaderParamsRefused(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`:                                          `needs a string, integer or boolean property, not "number"`,
		`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}`: `is used twice`,
		`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`:                                           `must be a non-empty HTTP token`,
		`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"a b"}}}`:                                        `must be a non-empty HTTP token`,
	} {
		s := NewServer(Implementation{Name: "t", Version: "0"}, nil)
		err := s.AddTool(Tool{Name: "t", InputSchema: json.RawMessage(schema)}, func(context.Context, *CallRequest) (*CallToolResult, error) { return nil, nil })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", schema, err, want)
		}
	}
}

// TestHTTPShutdownCancels checks that a legacy session's call still
// running when Shutdown's bound ends is cancelled, and that Shutdown says
// so. (A 2026-07-28 call ends with its connection, which http.Server's
// Close cuts after the bound.)
func TestHTTPShutdownCancels(t *testing.T) {
	s, started, _, ended := blockingServer(t)
	h := NewHTTPHandler(s, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(sid, body string) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil
		}
		resp.Body.Close()
		return resp
	}
	_, _, sid := postLegacyMessage(t, srv.URL, "", initializeLegacy)
	go post(sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`)
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	shut := make(chan error, 1)
	go func() { shut <- h.Shutdown(ctx) }()
	cancel() // the bound is over
	if err := <-shut; err == nil {
		t.Error("Shutdown returned nil with a call still running at its bound")
	}
	if got := <-ended; got != "cancelled" {
		t.Errorf("the call was %s, want cancelled", got)
	}
}
