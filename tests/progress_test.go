package tests

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgressWhileACommandRuns calls a manifest tool with a progressToken
// and checks, on the wire, that notifications/progress arrive while the
// command runs, with increasing progress and the command's latest stderr
// line, and that a call without a token gets none.
func TestProgressWhileACommandRuns(t *testing.T) {
	cmd, stdin, lines := startRaw(t, "serve", "--manifest", standinManifest, "--progress-interval", "50ms")
	send := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := io.WriteString(stdin, string(b)+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			Progress      float64         `json:"progress"`
			Message       string          `json:"message"`
		} `json:"params"`
	}
	next := func() message {
		t.Helper()
		select {
		case l := <-lines:
			var m message
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("not JSON: %s", l)
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no message within 10s")
		}
		panic("unreachable")
	}
	call := func(id int, meta map[string]any, gofile string) {
		params := map[string]any{"name": "slow", "arguments": map[string]any{"words": []string{"progress", gofile}}}
		if meta != nil {
			params["_meta"] = meta
		}
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
	if m := next(); string(m.ID) != "1" {
		t.Fatalf("initialize: got %+v", m)
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	gofile := filepath.Join(t.TempDir(), "go")
	call(2, map[string]any{"progressToken": "tok"}, gofile)
	var last float64
	for n := 0; n < 3; n++ {
		m := next()
		if m.Method != "notifications/progress" || string(m.Params.ProgressToken) != `"tok"` {
			t.Fatalf("want progress for tok, got %+v", m)
		}
		if m.Params.Progress <= last {
			t.Errorf("progress %v after %v: it must increase", m.Params.Progress, last)
		}
		last = m.Params.Progress
		if !strings.HasPrefix(m.Params.Message, "standin has run for ") {
			t.Errorf("progress message %q does not say how long the command has run", m.Params.Message)
		}
		if n == 2 && !strings.HasSuffix(m.Params.Message, ": working: step 1") {
			t.Errorf("progress message %q does not end with the latest stderr line", m.Params.Message)
		}
	}
	if err := os.WriteFile(gofile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for {
		m := next()
		if string(m.ID) == "2" {
			break
		}
		if m.Method != "notifications/progress" {
			t.Fatalf("want progress or the result of call 2, got %+v", m)
		}
	}

	// Without a token, nothing but the result.
	gofile = filepath.Join(t.TempDir(), "go")
	call(3, nil, gofile)
	time.Sleep(300 * time.Millisecond) // six intervals
	if err := os.WriteFile(gofile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if m := next(); string(m.ID) != "3" {
		t.Errorf("a call without a progressToken got %+v before its result", m)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve exit after EOF: %v", err)
	}
}
