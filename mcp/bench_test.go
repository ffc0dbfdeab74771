package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchSession serves the test server over pipes and returns the client's
// ends: write requests to w, read replies from r.
func benchSession(b *testing.B) (io.WriteCloser, *bufio.Reader) {
	srv := newTestServer(b, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { srv.Serve(context.Background(), inR, outW); outW.Close() }()
	r := bufio.NewReaderSize(outR, 1<<16)
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n")
	if _, err := r.ReadString('\n'); err != nil {
		b.Fatal(err)
	}
	return inW, r
}

func callLine(i int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`+"\n", i)
}

// BenchmarkCallSequential measures one tools/call round trip at a time.
func BenchmarkCallSequential(b *testing.B) {
	w, r := benchSession(b)
	defer w.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		io.WriteString(w, callLine(i+1))
		line, err := r.ReadString('\n')
		if err != nil || !strings.Contains(line, `"text":"hello"`) {
			b.Fatalf("reply %q, %v", line, err)
		}
	}
}

// BenchmarkCallPipelined writes all calls without waiting and reads the
// replies as they come, checking each id is answered once.
func BenchmarkCallPipelined(b *testing.B) {
	w, r := benchSession(b)
	defer w.Close()
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		bw := bufio.NewWriter(w)
		for i := 0; i < b.N; i++ {
			bw.WriteString(callLine(i + 1))
		}
		bw.Flush()
	}()
	seen := make([]bool, b.N+1)
	for i := 0; i < b.N; i++ {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		var id int
		if _, err := fmt.Sscanf(line, `{"jsonrpc":"2.0","id":%d,`, &id); err != nil || id < 1 || id > b.N || seen[id] {
			b.Fatalf("bad or repeated reply %q", line)
		}
		seen[id] = true
	}
}

// BenchmarkCallWork measures the work of one tools/call with no
// concurrency and no I/O: decoding, validating, running the handler and
// encoding the reply. BenchmarkCallWorkFloor is the same work done the
// least way encoding/json allows, as bench/servers/ref does it.
func BenchmarkCallWork(b *testing.B) {
	ss := newSession(newTestServer(b, nil), io.Discard)
	ss.handle([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
	line := []byte(strings.TrimSpace(callLine(1000000)))
	b.ReportAllocs()
	for b.Loop() {
		ss.handle(line)
		c := ss.next
		ss.next = nil
		ss.run(c)
	}
}

func BenchmarkCallWorkFloor(b *testing.B) {
	type request struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	type response struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
	}
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	enc := json.NewEncoder(io.Discard)
	enc.SetEscapeHTML(false)
	line := []byte(strings.TrimSpace(callLine(1000000)))
	b.ReportAllocs()
	for b.Loop() {
		var req request
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		}
		if json.Unmarshal(line, &req) != nil || json.Unmarshal(req.Params, &p) != nil {
			b.Fatal("bad request")
		}
		enc.Encode(response{JSONRPC: "2.0", ID: req.ID, Result: map[string]any{"content": []content{{"text", p.Arguments.Text}}}})
	}
}
