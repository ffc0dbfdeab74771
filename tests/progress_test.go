package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
	// The stand-in writes "starting" and "working: step 1" at once, then
	// waits: the first line read goes out at once (both may come in one
	// read), the second after the gap, then heartbeats every 50ms say how
	// long it has run.
	// Heartbeats say how long it has run and, once it has written, its
	// latest stderr line. How they interleave with the lines' own messages
	// depends on the machine's load, so the test reads until it has seen
	// both kinds, and checks that every message is one or the other.
	var last float64
	var msgs []string
	sawLine, sawBeat := false, false
	for n := 0; n < 40 && !(sawLine && sawBeat); n++ {
		m := next()
		if m.Method != "notifications/progress" || string(m.Params.ProgressToken) != `"tok"` {
			t.Fatalf("want progress for tok, got %+v", m)
		}
		if m.Params.Progress <= last {
			t.Errorf("progress %v after %v: it must increase", m.Params.Progress, last)
		}
		last = m.Params.Progress
		msg := m.Params.Message
		msgs = append(msgs, msg)
		if bareHeartbeat(msg) { // nothing written yet
			continue
		}
		line := msg
		if rest, ok := strings.CutPrefix(msg, "standin has run for "); ok {
			_, line, _ = strings.Cut(rest, ": ")
			sawBeat = sawBeat || line == "working: step 1"
		}
		if line != "starting" && line != "working: step 1" {
			t.Errorf("progress %q carries neither a stderr line nor a heartbeat", msg)
		}
		sawLine = sawLine || line == "working: step 1"
	}
	if !sawLine {
		t.Errorf("progress messages %q do not carry the stderr line", msgs)
	}
	if !sawBeat {
		t.Errorf("no heartbeat in %q says how long the command has run and its latest stderr line", msgs)
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

// progressOf calls tool with a progressToken and returns the messages of
// the progress notifications that came before its result, and the result.
func progressOf(t *testing.T, args []string, tool string, words ...string) ([]string, string) {
	t.Helper()
	cmd, stdin, lines := startRaw(t, args...)
	send := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := io.WriteString(stdin, string(b)+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": map[string]any{"words": words}, "_meta": map[string]any{"progressToken": 7}}})
	var msgs []string
	for {
		var l string
		select {
		case l = <-lines:
		case <-time.After(time.Minute):
			t.Fatalf("no result within a minute; progress so far: %q", msgs)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Message string `json:"message"`
			} `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		switch {
		case string(m.ID) == "2":
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Errorf("serve exit after EOF: %v", err)
			}
			return msgs, string(m.Result)
		case m.Method == "notifications/progress":
			msgs = append(msgs, m.Params.Message)
		}
	}
}

// TestProgressFollowsStderr: a run of 4 steps a second apart, shorter
// than the heartbeat interval, reports each step as it is written.
func TestProgressFollowsStderr(t *testing.T) {
	msgs, res := progressOf(t, []string{"serve", "--manifest", outputManifest}, "print", "steps", "4", "700")
	for i := 1; i <= 4; i++ {
		if want := fmt.Sprintf("step %d of 4", i); !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, want) }) {
			t.Errorf("no progress carries %q: %q", want, msgs)
		}
	}
	if !strings.Contains(res, "done") {
		t.Errorf("result %s", res)
	}
}

// TestProgressIsRateLimited: 300 lines written at once give a few
// notifications, not 300.
func TestProgressIsRateLimited(t *testing.T) {
	msgs, _ := progressOf(t, []string{"serve", "--manifest", outputManifest}, "print", "steps", "300", "0")
	if len(msgs) > 5 {
		t.Errorf("%d progress notifications for 300 lines written at once: %q", len(msgs), msgs)
	}
}

// TestProgressHidesSecrets: a program that writes its token to stderr
// does not send it to the client as progress.
func TestProgressHidesSecrets(t *testing.T) {
	msgs, _ := progressOf(t, []string{"serve", "--manifest", outputManifest, "--progress-interval", "100ms"}, "say", "steps", "3", "300")
	if len(msgs) < 3 {
		t.Fatalf("want progress for each step, got %q", msgs)
	}
	carried := 0
	for _, m := range msgs {
		if strings.Contains(m, "tok-3b9f0c2e7d") {
			t.Errorf("progress %q: want the token hidden", m)
		}
		if bareHeartbeat(m) { // nothing written yet: nothing to hide
			continue
		}
		carried++
		if !strings.Contains(m, "with <hidden>") {
			t.Errorf("progress %q: want the token hidden", m)
		}
	}
	if carried < 3 {
		t.Errorf("want progress carrying each step, got %q", msgs)
	}
}

// bareHeartbeat reports whether m is a heartbeat sent before the command
// wrote a line to stderr: it says how long the command has run, and no more.
func bareHeartbeat(m string) bool {
	rest, ok := strings.CutPrefix(m, "standin has run for ")
	return ok && !strings.Contains(rest, ":")
}
