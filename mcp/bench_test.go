package mcp

import (
	"bufio"
	"context"
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
