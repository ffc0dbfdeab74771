package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// startServe starts "mcpship serve ARGS" and returns a client for it.
func startServe(t *testing.T, args ...string) *mcp.Client {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"serve"}, args...)...)
	c, err := mcp.StartCommand(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestServeHandshakeAtEveryLegacyRevision(t *testing.T) {
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			c := startServe(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := c.Initialize(ctx, v)
			if err != nil {
				t.Fatalf("initialize: %v (stderr: %s)", err, c.Stderr())
			}
			if res.ProtocolVersion != v || res.ServerInfo.Name != "mcpship" || res.ServerInfo.Version == "" {
				t.Errorf("initialize result %+v", res)
			}
			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) == 0 || tools[0].Name != "mcpship_version" {
				t.Fatalf("tools/list = %+v, want mcpship_version first", tools)
			}
			out, err := c.CallTool(ctx, "mcpship_version", nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.IsError || len(out.Content) != 1 || !strings.HasPrefix(out.Content[0].Text, "mcpship "+res.ServerInfo.Version+" (") {
				t.Errorf("mcpship_version result %+v does not match serverInfo %+v", out, res.ServerInfo)
			}
			out, err = c.CallTool(ctx, "mcpship_version", map[string]bool{"json": true})
			if err != nil {
				t.Fatal(err)
			}
			sc, _ := out.StructuredContent.(map[string]any)
			if out.IsError || sc["version"] != res.ServerInfo.Version || len(out.Content) == 0 {
				t.Errorf("mcpship_version {json: true} result %+v does not match serverInfo %+v", out, res.ServerInfo)
			}
			if err := c.Close(); err != nil {
				t.Errorf("server exit after stdin closed: %v", err)
			}
		})
	}
}

func TestServeModernRevision(t *testing.T) {
	c := startServe(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	var disc struct {
		ResultType        string   `json:"resultType"`
		SupportedVersions []string `json:"supportedVersions"`
		Meta              map[string]struct {
			Name string `json:"name"`
		} `json:"_meta"`
	}
	if err := c.Call(ctx, "server/discover", map[string]any{"_meta": meta}, &disc); err != nil {
		t.Fatal(err)
	}
	if disc.ResultType != "complete" || len(disc.SupportedVersions) != 5 || disc.Meta["io.modelcontextprotocol/serverInfo"].Name != "mcpship" {
		t.Errorf("server/discover = %+v", disc)
	}
	var list struct {
		Tools []mcp.Tool `json:"tools"`
		TTL   *int       `json:"ttlMs"`
	}
	if err := c.Call(ctx, "tools/list", map[string]any{"_meta": meta}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) == 0 || list.TTL == nil {
		t.Errorf("modern tools/list = %+v", list)
	}
	err := c.Call(ctx, "tools/list", map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion": "1900-01-01", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}}, nil)
	var rpcErr *mcp.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeUnsupportedProtocolVersion {
		t.Errorf("unsupported version: got %v, want error %d", err, mcp.CodeUnsupportedProtocolVersion)
	}
}

// rawServe runs "mcpship serve ARGS" on input and returns its stdout lines,
// its stderr and its exit error.
func rawServe(t *testing.T, input []byte, args ...string) ([]string, string, error) {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"serve"}, args...)...)
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var lines []string
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Text()
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(line), &m) != nil || string(m["jsonrpc"]) != `"2.0"` {
			t.Errorf("stdout carries a line that is not a JSON-RPC message: %.200q", line)
		}
		lines = append(lines, line)
	}
	if b := stdout.Bytes(); len(b) > 0 && (b[len(b)-1] != '\n' || bytes.Contains(b, []byte("\r"))) {
		t.Errorf("stdout must be LF-terminated lines without CR")
	}
	return lines, stderr.String(), err
}

func TestServeSurvivesBadInput(t *testing.T) {
	input := "\xEF\xBB\xBF" + `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\r\n" +
		"\r\n" +
		"{not json\n" +
		`[{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("z", 4000) + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"nope"}` + "\r\n" +
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"mcpship_version","arguments":{}}}` + "\n"
	lines, stderr, err := rawServe(t, []byte(input), "--max-message-bytes", "2048")
	if err != nil {
		t.Fatalf("serve exited with %v; stderr:\n%s", err, stderr)
	}
	want := []string{
		`"id":1,"result":{"protocolVersion":"2025-11-25"`,
		`"id":null,"error":{"code":-32700`,
		`"id":null,"error":{"code":-32600`,
		`"id":3,"error":{"code":-32600,"message":"message exceeds the limit of 2048 bytes`,
		`"id":4,"error":{"code":-32601`,
		`"id":5,"result":{"content":[{"type":"text","text":"mcpship `,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %.200s\nwant it to contain %s", i+1, lines[i], w)
		}
	}
}

func TestServeRefuses20MiBMessageAndGoesOn(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"mcpship_version","arguments":{"pad":"` +
		strings.Repeat("a", 20<<20) + `"}}}` + "\n"
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" + big +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	lines, stderr, err := rawServe(t, []byte(input))
	if err != nil {
		t.Fatalf("serve exited with %v; stderr:\n%s", err, stderr)
	}
	if len(lines) != 3 || !strings.Contains(lines[1], `"id":"big","error":{"code":-32600,"message":"message exceeds the limit of 16777216 bytes`) ||
		!strings.Contains(lines[2], `"id":2,"result":{}`) {
		t.Errorf("got:\n%.300s", strings.Join(lines, "\n"))
	}
}

func TestServeLogsOnlyToStderr(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n{bad\n"
	lines, stderr, err := rawServe(t, []byte(input), "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Errorf("stdout: %q", lines)
	}
	if !strings.Contains(stderr, "serving") {
		t.Errorf("--log-level debug wrote nothing useful to stderr: %q", stderr)
	}
}

func TestServeUsageErrorsExit64(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--transport", "sse"},
		{"serve", "--listen", "127.0.0.1:0"},
		{"serve", "--transport", "http", "--listen", "nonsense"},
		{"serve", "--transport", "http", "--max-sessions", "0"},
		{"serve", "--transport", "http", "--auth-token-file", "/nonexistent/token"},
		{"serve", "--log-level", "chatty"},
		{"serve", "--max-message-bytes", "10"},
		{"serve", "--no-such-flag"},
		{"serve", "extra-arg"},
	} {
		cmd := exec.Command(binPath, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 64 {
			t.Errorf("%v: exit %v, want 64", args, err)
		}
		if stdout.Len() != 0 {
			t.Errorf("%v wrote to stdout: %q", args, stdout.String())
		}
		if !strings.Contains(stderr.String(), "mcpship help") {
			t.Errorf("%v: stderr %q does not say where to get help", args, stderr.String())
		}
	}
}

func TestServeExitsOnEOFAndSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(binPath, "serve")
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n")
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || !strings.Contains(line, `"id":1`) {
			t.Fatalf("no initialize reply: %q %v", line, err)
		}
		start := time.Now()
		if sig == 0 {
			stdin.Close()
		} else {
			cmd.Process.Signal(sig)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("signal %v: exit %v, want 0", sig, err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("signal %v: took %v to exit", sig, d)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("signal %v: serve did not exit", sig)
		}
		stdin.Close()
	}
}

// TestServeLongCallOnTheWire drives a long-running manifest call over raw
// pipes: ping and tools/list are answered while it runs, a cancelled call
// is never answered, and a call still running when stdin closes is
// answered before the server exits 0.
func TestServeLongCallOnTheWire(t *testing.T) {
	cmd, stdin, lines := startRaw(t, "serve", "--manifest", standinManifest)
	send := func(s string) {
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(want string) {
		t.Helper()
		select {
		case l := <-lines:
			if !strings.Contains(l, want) {
				t.Fatalf("got %.300s\nwant a line containing %s", l, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no line containing %s within 10s", want)
		}
	}
	pidfile := filepath.Join(t.TempDir(), "pids")
	call := func(id, tool string, words ...string) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": map[string]any{"words": words}}})
		return string(b)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	expect(`"id":1,"result"`)
	send(call("2", "slow", "sleep", pidfile))
	readPids(t, pidfile, 3) // the call is running
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	expect(`{"jsonrpc":"2.0","id":3,"result":{}}`)
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	expect(`"id":4,"result":{"tools":[`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	send(call("5", "slow", "quick"))
	expect(`"id":5,"result"`)
	send(call("6", "fast", "sleep", filepath.Join(t.TempDir(), "pids6")))
	stdin.Close()
	expect(`"id":6,"result":{"content":[`) // timed out after 1s, answered after EOF
	for l := range lines {
		t.Errorf("unexpected line after the last reply (the cancelled call must stay silent): %.300s", l)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve exit after EOF: %v", err)
	}
}

// startRaw starts mcpship with args and the stand-in programs first on
// PATH, and returns it, its standard input, and the lines it writes to
// standard output. The process is killed when the test ends.
func startRaw(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, <-chan string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "PATH="+standinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return cmd, stdin, lines
}
