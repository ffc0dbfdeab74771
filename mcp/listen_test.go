package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/mcpproxy"
)

// notifyingProxy stands for another server that announces list
// changes and resource subscriptions (but no prompts). Its tool "notify"
// sends the notification its arguments name: with Server.Notify, with
// "via": "listen" through the request of every open listen, with
// "via": "request" through the call's own. Its
// tool "listens" tells how many listens it was given and not stopped.
type notifyingProxy struct {
	proxyBase
	srv     *Server
	mu      sync.Mutex
	listens map[*mcpproxy.Request]bool
}

func (f *notifyingProxy) Capabilities() json.RawMessage {
	return json.RawMessage(`{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"logging":{}}`)
}

func (f *notifyingProxy) Serve(ctx context.Context, r *mcpproxy.Request) (json.RawMessage, error) {
	var p struct {
		Name      string
		Arguments struct {
			Method string
			Params json.RawMessage
			Via    string
		}
	}
	if r.Method != "tools/call" || json.Unmarshal(r.Params, &p) != nil {
		return json.RawMessage(`{}`), nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	text := "sent"
	switch {
	case p.Name == "listens":
		text = strconv.Itoa(len(f.listens))
	case p.Arguments.Via == "request":
		r.Notify(p.Arguments.Method, p.Arguments.Params)
	case p.Arguments.Via == "listen":
		for l := range f.listens {
			l.Notify(p.Arguments.Method, p.Arguments.Params)
		}
	default:
		f.srv.Notify(p.Arguments.Method, p.Arguments.Params)
	}
	return json.Marshal(TextResult(text))
}

func (f *notifyingProxy) Listen(ctx context.Context, r *mcpproxy.Request) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listens == nil {
		f.listens = map[*mcpproxy.Request]bool{}
	}
	f.listens[r] = true
	return func() {
		f.mu.Lock()
		delete(f.listens, r)
		f.mu.Unlock()
	}, nil
}

// openListen posts a subscriptions/listen of revision 2026-07-28 and
// returns the response, whose body is the stream, once its headers come.
func openListen(t *testing.T, ctx context.Context, url, id, filter string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":` + filter + `}}`
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readUntil reads lines of a stream until one contains want.
func readUntil(t *testing.T, sc *bufio.Scanner, want string) {
	t.Helper()
	for sc.Scan() {
		if strings.Contains(sc.Text(), want) {
			return
		}
	}
	t.Fatalf("the stream ended without %q (%v)", want, sc.Err())
}

// listening returns how many listen streams the server keeps and the
// proxy was given and not stopped.
func (f *notifyingProxy) listening() (int, int) {
	f.srv.streams.mu.Lock()
	kept := len(f.srv.streams.listeners)
	f.srv.streams.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	return kept, len(f.listens)
}

// TestListenHTTPKeepAliveAndGone keeps a listen stream alive with
// comments while nothing happens, and lets go of it, at the server and
// at the proxy, once its client goes away.
func TestListenHTTPKeepAliveAndGone(t *testing.T) {
	fwd := &notifyingProxy{}
	s := NewServer(Implementation{Name: "front", Version: "1"}, &ServerOptions{proxy: fwd})
	fwd.srv = s
	srv := httptest.NewServer(NewHTTPHandler(s, &HTTPOptions{KeepAlive: 20 * time.Millisecond}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	resp := openListen(t, ctx, srv.URL, "1", `{"toolsListChanged":true}`)
	sc := bufio.NewScanner(resp.Body)
	readUntil(t, sc, "notifications/subscriptions/acknowledged")
	readUntil(t, sc, ": keep-alive")
	if kept, given := fwd.listening(); kept != 1 || given != 1 {
		t.Fatalf("while listening: the server keeps %d listens and the proxy has %d; want 1 and 1", kept, given)
	}
	cancel()
	resp.Body.Close()
	var kept, given int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if kept, given = fwd.listening(); kept == 0 && given == 0 {
			return
		}
	}
	t.Errorf("after the client went away: the server keeps %d listens and the proxy has %d; want none", kept, given)
}

// TestListenLimit refuses a listen past the server's limit with an error
// that says so, and opens one again once a place is free.
func TestListenLimit(t *testing.T) {
	fwd := &notifyingProxy{}
	s := NewServer(Implementation{Name: "front", Version: "1"}, &ServerOptions{proxy: fwd})
	fwd.srv = s
	s.maxListens = 1
	srv := httptest.NewServer(NewHTTPHandler(s, nil))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	first := openListen(t, ctx, srv.URL, "1", `{"toolsListChanged":true}`)
	readUntil(t, bufio.NewScanner(first.Body), "acknowledged")
	second := openListen(t, context.Background(), srv.URL, "2", `{"toolsListChanged":true}`)
	b, _ := io.ReadAll(second.Body)
	second.Body.Close()
	if !strings.Contains(string(b), "too many subscriptions: 1 subscriptions/listen streams are open, the most this server keeps") {
		t.Errorf("a listen past the limit: %d %s", second.StatusCode, b)
	}
	cancel()
	first.Body.Close()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if kept, _ := fwd.listening(); kept == 0 {
			break
		}
	}
	third := openListen(t, context.Background(), srv.URL, "3", `{"toolsListChanged":true}`)
	defer third.Body.Close()
	readUntil(t, bufio.NewScanner(third.Body), "acknowledged")
}
