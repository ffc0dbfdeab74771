//go:build linux

package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// The tests serve a bridge over HTTP as mcpship serve does (mcp.Server
// with the bridge as its proxy, mcp.HTTPHandler) and talk to it with
// plain requests of both eras; its children are this test binary serving
// as a stdio server (child_test.go). Linux only: they look for the
// children's processes in /proc.

// buffer is a bytes.Buffer that many goroutines write.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

type served struct {
	b      *Bridge
	url    string
	log    *buffer // the bridge's log, at debug level
	stderr *buffer // what the children write on stderr
}

// childCommand is the command line of a child of mode (see runChild).
func childCommand(t *testing.T, mode string, args ...string) []string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{exe, childArg, mode}, args...)
}

// startErr starts a bridge with opts, logging at debug level.
func startErr(t *testing.T, opts Options) (*served, error) {
	t.Helper()
	s := &served{log: &buffer{}, stderr: &buffer{}}
	opts.Logger = slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts.Stderr = s.stderr
	b, err := Start(opts)
	if err != nil {
		return s, err
	}
	s.b = b
	srv := b.NewServer(mcp.ServerOptions{})
	ts := httptest.NewServer(mcp.NewHTTPHandler(srv, &mcp.HTTPOptions{}))
	s.url = ts.URL
	t.Cleanup(func() {
		ts.Close()
		b.Close()
	})
	return s, nil
}

// start serves a child of mode with opts.
func start(t *testing.T, opts Options, mode string, args ...string) *served {
	t.Helper()
	opts.Command = childCommand(t, mode, args...)
	s, err := startErr(t, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return s
}

// message is a JSON-RPC message the server sent.
type message struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result struct {
		Content []struct{ Text string }
		IsError bool
	}
	Error *struct{ Message string }
}

// post sends body with the headers hdr and returns the messages of the
// answer, as JSON or as an event stream, and its headers.
func (s *served) post(t *testing.T, hdr map[string]string, body string) ([]message, http.Header) {
	t.Helper()
	req, err := http.NewRequest("POST", s.url, strings.NewReader(body))
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
		t.Error(err)
		return nil, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusAccepted {
		return nil, resp.Header
	}
	var raw [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok && strings.TrimSpace(data) != "" {
				raw = append(raw, []byte(data))
			}
		}
	} else {
		b, _ := io.ReadAll(resp.Body)
		raw = append(raw, b)
	}
	var out []message
	for _, r := range raw {
		var m message
		if err := json.Unmarshal(r, &m); err != nil {
			t.Errorf("%d %s: %v", resp.StatusCode, r, err)
			continue
		}
		out = append(out, m)
	}
	return out, resp.Header
}

// legacy opens a session of revision 2025-11-25 with extra headers and
// returns the headers of its requests.
func (s *served) legacy(t *testing.T, extra map[string]string) map[string]string {
	t.Helper()
	return s.legacyCaps(t, extra, `{}`)
}

// legacyCaps is legacy with the client capabilities caps, a JSON object.
func (s *served) legacyCaps(t *testing.T, extra map[string]string, caps string) map[string]string {
	t.Helper()
	_, hdr := s.post(t, extra, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"0"}}}`)
	if hdr.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize opened no session: %v", hdr)
	}
	h := map[string]string{"Mcp-Session-Id": hdr.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
	for k, v := range extra {
		h[k] = v
	}
	s.post(t, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

// stateless returns the headers of a request of revision 2026-07-28
// calling tool, with extra headers.
func stateless(tool string, extra map[string]string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

// callBody is a tools/call of tool with args (a JSON object) and id;
// modern adds the _meta of revision 2026-07-28.
func callBody(id int, tool, args string, modern bool) string {
	meta := ""
	if modern {
		meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s}}`, id, tool, args, meta)
}

// call calls tool in the session or stateless request of hdr and returns
// the text of its result, or "error: " and the error's message.
func (s *served) call(t *testing.T, hdr map[string]string, tool, args string) string {
	t.Helper()
	modern := hdr["MCP-Protocol-Version"] == "2026-07-28"
	if modern {
		hdr = stateless(tool, hdr)
	}
	msgs, _ := s.post(t, hdr, callBody(7, tool, args, modern))
	for _, m := range msgs {
		if string(m.ID) != "7" {
			continue
		}
		if m.Error != nil {
			return "error: " + m.Error.Message
		}
		if len(m.Result.Content) > 0 {
			return m.Result.Content[0].Text
		}
	}
	t.Errorf("%s: no reply with id 7 in %+v", tool, msgs)
	return ""
}

var pidRE = regexp.MustCompile(`pid=(\d+)`)

// pid calls whoami and returns the pid of the child that answered, or 0
// with its error.
func (s *served) pid(t *testing.T, hdr map[string]string) (int, string) {
	t.Helper()
	got := s.call(t, hdr, "whoami", `{}`)
	m := pidRE.FindStringSubmatch(got)
	if m == nil {
		return 0, got
	}
	n, _ := strconv.Atoi(m[1])
	return n, got
}

// alive reports whether process pid runs (and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) STATE ...
	rest := string(b[bytes.LastIndexByte(b, ')')+1:])
	return !strings.HasPrefix(strings.TrimSpace(rest), "Z")
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// modern are the headers of stateless requests, for call and pid, which
// add those of the tool.
var modern = map[string]string{"MCP-Protocol-Version": "2026-07-28"}

// TestSharedChildIDs has four legacy sessions and four stateless clients
// call at once with the same request ids: all share the one child, and
// each gets its own replies.
func TestSharedChildIDs(t *testing.T) {
	s := start(t, Options{}, "serve")
	first, _ := s.pid(t, modern)
	if first == 0 {
		t.Fatal("no pid from whoami")
	}
	var wg sync.WaitGroup
	for c := range 8 {
		hdr := modern
		if c < 4 {
			hdr = s.legacy(t, nil)
		}
		for n := range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				text := fmt.Sprintf("client %d call %d", c, n)
				h, isModern := hdr, c >= 4
				if isModern {
					h = stateless("echo", nil)
				}
				msgs, _ := s.post(t, h, callBody(n+1, "echo", fmt.Sprintf(`{"text":%q}`, text), isModern))
				if len(msgs) == 0 {
					t.Errorf("%s: no reply", text)
					return
				}
				last := msgs[len(msgs)-1]
				if string(last.ID) != strconv.Itoa(n+1) || len(last.Result.Content) == 0 || last.Result.Content[0].Text != text {
					t.Errorf("%s: got id %s, %+v", text, last.ID, last.Result)
				}
			}()
		}
	}
	wg.Wait()
	for _, hdr := range []map[string]string{s.legacy(t, nil), modern} {
		if pid, got := s.pid(t, hdr); pid != first {
			t.Errorf("whoami answered from %q, want the one child %d", got, first)
		}
	}
}

// TestInfo checks what the bridge learnt from the child's initialize.
func TestInfo(t *testing.T) {
	s := start(t, Options{}, "serve")
	info, instructions := s.b.Info()
	if info.Name != "child" || info.Version != "1.0.0" || instructions != "a test child" {
		t.Errorf("Info() = %+v, %q", info, instructions)
	}
	var caps map[string]json.RawMessage
	if err := json.Unmarshal(s.b.Capabilities(), &caps); err != nil || caps["tools"] == nil {
		t.Errorf("Capabilities() = %s, want the child's, with tools", s.b.Capabilities())
	}
}
