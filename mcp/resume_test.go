package mcp

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// resumeServer has the tool "hold", which reports progress (so that its
// response becomes a stream), closes its stream when asked to, and
// answers once release is closed.
func resumeServer(release chan struct{}) *Server {
	s := NewServer(Implementation{Name: "t", Version: "0"}, nil)
	s.AddTool(Tool{Name: "hold"}, func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		var in struct{ Close bool }
		req.Bind(&in)
		req.Progress(1, 2, "started")
		if in.Close {
			req.CloseStream()
		}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return TextResult("released"), nil
	})
	return s
}

// sseEvents reads an event stream to its end and returns its events as
// "id|data" (id empty when the event has none); comments are skipped.
func sseEvents(t *testing.T, r io.Reader, stop func(id, data string) bool) []string {
	t.Helper()
	var events []string
	var id, data string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if id != "" || data != "" {
				events = append(events, id+"|"+data)
				if stop != nil && stop(id, data) {
					return events
				}
			}
			id, data = "", ""
		case strings.HasPrefix(line, "id: "):
			id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data:"):
			data = strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		}
	}
	return events
}

func legacyRequest(t *testing.T, ctx context.Context, method, url, sid, body string, hdr ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

const holdCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold","arguments":ARGS,"_meta":{"progressToken":"p"}}}`

// TestResumeAfterDisconnect loses a call's stream while the call runs;
// the call goes on, and a GET with the Last-Event-ID of the last event
// the client got brings the rest: the result.
func TestResumeAfterDisconnect(t *testing.T) {
	release := make(chan struct{})
	h := NewHTTPHandler(resumeServer(release), nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	_, _, sid := postLegacyMessage(t, srv.URL, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)

	ctx, cancel := context.WithCancel(context.Background())
	resp := legacyRequest(t, ctx, "POST", srv.URL, sid, strings.Replace(holdCall, "ARGS", `{}`, 1))
	events := sseEvents(t, resp.Body, func(_, data string) bool { return strings.Contains(data, "progress") })
	if len(events) != 2 || !strings.HasSuffix(events[0], "_0|") || !strings.Contains(events[1], "started") {
		t.Fatalf("the stream began with %q: want a priming event, then the progress", events)
	}
	last, _, _ := strings.Cut(events[1], "|")
	cancel() // the connection drops
	resp.Body.Close()

	// Once the handler has seen the client go, the call answers.
	h.mu.RLock()
	hs := h.sessions[sid]
	h.mu.RUnlock()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		hs.resume.mu.Lock()
		var ex *exchange
		for _, ex = range hs.resume.streams {
		}
		hs.resume.mu.Unlock()
		ex.mu.Lock()
		kept := ex.detached && ex.kept
		ex.mu.Unlock()
		if kept {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lost stream was not kept")
		}
	}
	close(release)

	get := legacyRequest(t, context.Background(), "GET", srv.URL, sid, "", "Last-Event-ID", last)
	defer get.Body.Close()
	events = sseEvents(t, get.Body, nil)
	if len(events) != 1 || !strings.Contains(events[0], `"id":7,"result"`) || !strings.Contains(events[0], "released") {
		t.Fatalf("resumed after %s: %q, want the result alone", last, events)
	}
	waitIdle(t, h, hs)
}

// TestCloseStream has the call end its own stream: the POST's response
// ends after the priming event and the progress, and a GET with
// Last-Event-ID gets the result when the call ends.
func TestCloseStream(t *testing.T) {
	release := make(chan struct{})
	h := NewHTTPHandler(resumeServer(release), nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	_, _, sid := postLegacyMessage(t, srv.URL, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)

	resp := legacyRequest(t, context.Background(), "POST", srv.URL, sid, strings.Replace(holdCall, "ARGS", `{"close":true}`, 1))
	events := sseEvents(t, resp.Body, nil)
	resp.Body.Close()
	if len(events) != 2 || !strings.HasPrefix(events[0], "") || !strings.HasSuffix(events[0], "_0|") || !strings.Contains(events[1], "started") {
		t.Fatalf("the closed stream carried %q: want the priming event and the progress, and no result", events)
	}
	last, _, _ := strings.Cut(events[1], "|")
	go func() { close(release) }()
	get := legacyRequest(t, context.Background(), "GET", srv.URL, sid, "", "Last-Event-ID", last)
	defer get.Body.Close()
	events = sseEvents(t, get.Body, nil)
	if len(events) != 1 || !strings.Contains(events[0], "released") {
		t.Fatalf("resumed after %s: %q, want the result", last, events)
	}
	h.mu.RLock()
	hs := h.sessions[sid]
	h.mu.RUnlock()
	waitIdle(t, h, hs)

	// Over a revision before 2025-11-25 nothing is closed or numbered.
	_, _, old := postLegacyMessage(t, srv.URL, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	resp = legacyRequest(t, context.Background(), "POST", srv.URL, old, strings.Replace(holdCall, "ARGS", `{"close":true}`, 1), "MCP-Protocol-Version", "2025-06-18")
	defer resp.Body.Close()
	events = sseEvents(t, resp.Body, nil)
	if len(events) != 2 || strings.Contains(events[0]+events[1], "_") || !strings.Contains(events[1], "released") {
		t.Errorf("2025-06-18: %q, want the progress and the result, without ids", events)
	}
}

// waitIdle waits until the handler serves nothing and the session is not
// in use: a kept stream gives its accounting back when its call ends.
func waitIdle(t *testing.T, h *HTTPHandler, hs *httpSession) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); h.running.Load() != 0 || hs.active.Load() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still %d requests served and the session %d times in use", h.running.Load(), hs.active.Load())
		}
	}
	hs.resume.mu.Lock()
	defer hs.resume.mu.Unlock()
	if len(hs.resume.streams) != 0 {
		t.Errorf("%d streams still kept after they were delivered", len(hs.resume.streams))
	}
}
