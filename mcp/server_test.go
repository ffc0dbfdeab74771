package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// pipeSession serves srv over in-memory pipes and returns a client for it.
func pipeSession(t *testing.T, srv *Server) (*Client, chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- srv.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	c := NewClient(outR, inW, nil)
	t.Cleanup(func() { c.Close() })
	return c, served
}

func TestVersionNegotiation(t *testing.T) {
	for _, tc := range []struct{ ask, want string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"2026-07-28", "2025-11-25"}, // the modern revision has no initialize
		{"2099-01-01", "2025-11-25"},
		{"1.0.0", "2025-11-25"},
		{"", "2025-11-25"},
	} {
		t.Run(tc.ask, func(t *testing.T) {
			c, _ := pipeSession(t, newTestServer(t, nil))
			var res InitializeResult
			err := c.Call(context.Background(), "initialize", map[string]any{"protocolVersion": tc.ask, "capabilities": map[string]any{},
				"clientInfo": Implementation{Name: "t", Version: "0"}}, &res)
			if err != nil {
				t.Fatal(err)
			}
			if res.ProtocolVersion != tc.want {
				t.Errorf("initialize %q: got version %q, want %q", tc.ask, res.ProtocolVersion, tc.want)
			}
			if res.ServerInfo.Name != "test-server" || res.Capabilities.Tools == nil {
				t.Errorf("initialize result lacks serverInfo or tools capability: %+v", res)
			}
		})
	}
}

// rawSession runs srv on raw bytes and returns every line it wrote.
func rawSession(t *testing.T, srv *Server, input string) []string {
	t.Helper()
	var out bytes.Buffer
	if err := srv.Serve(context.Background(), strings.NewReader(input), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

func TestOversizedMessageDefaultLimit(t *testing.T) {
	srv := newTestServer(t, nil)
	pad := strings.Repeat("x", DefaultMaxMessageBytes+1)
	input := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + pad + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	lines := rawSession(t, srv, input)
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"message exceeds the limit of 16777216 bytes and was skipped"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
	}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestMessageAtTheLimitIsAccepted(t *testing.T) {
	const limit = 64 << 10
	srv := newTestServer(t, &ServerOptions{MaxMessageBytes: limit})
	head := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`
	tail := `"}}`
	msg := head + strings.Repeat("y", limit-len(head)-len(tail)) + tail
	lines := rawSession(t, srv, msg+"\r\n"+strings.Replace(msg, `"id":1`, `"id":22`, 1)+"y\n")
	if len(lines) != 2 || lines[0] != `{"jsonrpc":"2.0","id":1,"result":{}}` || !strings.Contains(lines[1], `"id":22,"error":{"code":-32600`) {
		t.Errorf("a message of exactly %d bytes must be served and one byte more refused; got:\n%s", limit, strings.Join(lines, "\n"))
	}
}

func TestLastLineWithoutNewline(t *testing.T) {
	lines := rawSession(t, newTestServer(t, nil), `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if len(lines) != 1 || lines[0] != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("got %q", lines)
	}
}

func TestWriteFailureEndsTheSession(t *testing.T) {
	srv := newTestServer(t, nil)
	inR, inW := io.Pipe()
	defer inW.Close()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), inR, failingWriter{}) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	select {
	case err := <-served:
		if err == nil || !strings.Contains(err.Error(), "writing to the client") {
			t.Errorf("Serve = %v, want a write error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not end after its output failed")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestConcurrentCalls runs many calls at once through the client and
// checks each gets exactly its own answer.
func TestConcurrentCalls(t *testing.T) {
	c, _ := pipeSession(t, newTestServer(t, &ServerOptions{MaxConcurrentCalls: 4}))
	ctx := context.Background()
	if _, err := c.Initialize(ctx, ""); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.CallTool(ctx, "add", map[string]int{"a": i, "b": 1000})
			if err != nil {
				errs <- err
				return
			}
			b, _ := json.Marshal(res.StructuredContent)
			if want := fmt.Sprintf(`{"sum":%d}`, i+1000); string(b) != want {
				errs <- fmt.Errorf("call %d: got %s, want %s", i, b, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestClientCancelSendsCancelledAndServerStaysQuiet(t *testing.T) {
	var notes []string
	var mu sync.Mutex
	srv := newTestServer(t, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var wire syncBuffer
	go func() { srv.Serve(context.Background(), inR, io.MultiWriter(outW, &wire)); outW.Close() }()
	c := NewClient(outR, inW, &ClientOptions{OnNotification: func(m string, _ json.RawMessage) {
		mu.Lock()
		notes = append(notes, m)
		mu.Unlock()
	}})
	ctx := context.Background()
	if _, err := c.Initialize(ctx, ""); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := c.CallTool(cctx, "wait", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CallTool = %v, want deadline exceeded", err)
	}
	if err := c.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	sc := bufio.NewScanner(strings.NewReader(wire.String()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"id":2,`) {
			t.Errorf("the server answered the cancelled call: %s", sc.Text())
		}
	}
}

func TestAddToolRejects(t *testing.T) {
	s := NewServer(Implementation{Name: "x", Version: "1"}, nil)
	h := func(context.Context, *CallRequest) (*CallToolResult, error) { return nil, nil }
	for _, tc := range []struct {
		tool Tool
		want string
	}{
		{Tool{Name: "has.dot"}, "invalid tool name"},
		{Tool{Name: "has space"}, "invalid tool name"},
		{Tool{Name: ""}, "invalid tool name"},
		{Tool{Name: strings.Repeat("a", 65)}, "invalid tool name"},
		{Tool{Name: "arr", InputSchema: []byte(`{"type":"array"}`)}, `must have "type": "object"`},
		{Tool{Name: "bad", InputSchema: []byte(`{"type":"object","properties":{"x":{"pattern":"("}}}`)}, "pattern"},
		{Tool{Name: "notjson", InputSchema: []byte(`{`)}, "must be a JSON object"},
	} {
		if err := s.AddTool(tc.tool, h); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddTool(%q) = %v, want an error containing %q", tc.tool.Name, err, tc.want)
		}
	}
	if err := s.AddTool(Tool{Name: "ok_name-1"}, h); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(Tool{Name: "ok_name-1"}, h); err == nil {
		t.Error("a second tool with the same name was accepted")
	}
}
