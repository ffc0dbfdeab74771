package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
)

// httpServer is a program serving MCP over HTTP, started by startHTTP.
type httpServer struct {
	url    string
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan error
}

func (s *httpServer) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// startHTTP runs prog with args, which must make it serve over HTTP on
// 127.0.0.1:0 or the like, the stand-ins first on PATH and env added, and
// returns it once it says where it listens. It is stopped with SIGTERM at
// the end of the test, and must then exit 0.
func startHTTP(t *testing.T, env []string, prog string, args ...string) *httpServer {
	t.Helper()
	s := &httpServer{cmd: exec.Command(prog, args...), exited: make(chan error, 1)}
	s.cmd.Env = append(append(os.Environ(), "PATH="+standinDir+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	pipe, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			if u, ok := strings.CutPrefix(line, "serving MCP on "); ok {
				urls <- u
			}
		}
		s.exited <- s.cmd.Wait()
	}()
	select {
	case s.url = <-urls:
	case err := <-s.exited:
		t.Fatalf("%s exited before serving: %v\n%s", prog, err, s.log())
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		t.Fatalf("%s did not say where it listens\n%s", prog, s.log())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s's log:\n%s", prog, s.log())
		}
		if s.cmd.ProcessState != nil {
			return
		}
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-s.exited:
			if err != nil {
				t.Errorf("%s after SIGTERM: %v\n%s", prog, err, s.log())
			}
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			t.Errorf("%s did not exit after SIGTERM\n%s", prog, s.log())
		}
	})
	return s
}

// post sends one JSON-RPC message and returns the status, the headers and
// the body of the response.
func post(t *testing.T, url string, hdr map[string]string, body string) (int, http.Header, string) {
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
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

const initializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

func modernCallBody(tool, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
}

func modernHeaders(tool string) map[string]string {
	return map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool}
}

// resultText returns the text of the first content block of a JSON reply.
func resultText(t *testing.T, body string) string {
	t.Helper()
	var r struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error != nil || len(r.Result.Content) == 0 {
		t.Fatalf("reply %q: want a result with content (%v)", body, err)
	}
	return r.Result.Content[0].Text
}

// TestServeHTTP serves the rigor manifest over HTTP and calls it in both
// eras: a legacy session (initialize, then calls with its id) and a
// stateless 2026-07-28 request.
func TestServeHTTP(t *testing.T) {
	s := startHTTP(t, nil, binPath, "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--manifest", "../examples/rigor/mcpship.json")
	status, hdr, body := post(t, s.url, nil, initializeBody)
	sid := hdr.Get("Mcp-Session-Id")
	if status != 200 || sid == "" {
		t.Fatalf("initialize: %d %q, session %q", status, body, sid)
	}
	legacy := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	if status, _, _ := post(t, s.url, legacy, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 202 {
		t.Errorf("notifications/initialized: %d, want 202", status)
	}
	status, _, body = post(t, s.url, legacy, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rigor_type_of","arguments":{"file":"a b.rb","line":3,"column":7}}}`)
	if status != 200 || !strings.Contains(resultText(t, body), `a b.rb:3:7`) {
		t.Errorf("legacy call: %d %s", status, body)
	}
	status, hdr, body = post(t, s.url, modernHeaders("rigor_type_of"), modernCallBody("rigor_type_of", `{"file":"x.rb","line":1,"column":2}`))
	if status != 200 || hdr.Get("Mcp-Session-Id") != "" || !strings.Contains(resultText(t, body), `x.rb:1:2`) {
		t.Errorf("modern call: %d %v %s", status, hdr, body)
	}
	// A tool's bad arguments are a result for the model; the server stays up.
	status, _, body = post(t, s.url, modernHeaders("rigor_type_of"), modernCallBody("rigor_type_of", `{"file":"x.rb","line":"one","column":2}`))
	if status != 200 || !strings.Contains(body, `"isError":true`) {
		t.Errorf("bad arguments: %d %s", status, body)
	}
	status, _, _ = post(t, s.url, legacy, `{"jsonrpc":"2.0","id":2,`)
	if status != 400 {
		t.Errorf("malformed JSON: %d, want 400", status)
	}
	if status, _, _ := post(t, s.url, legacy, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); status != 200 {
		t.Errorf("ping after bad input: %d, want 200", status)
	}
}

// TestServeHTTPRefusesOpenListenWithoutToken checks that a non-loopback
// --listen needs a token, and that the message says how to give one.
func TestServeHTTPRefusesOpenListenWithoutToken(t *testing.T) {
	cmd := exec.Command(binPath, "serve", "--transport", "http", "--listen", "0.0.0.0:0")
	cmd.Env = append(os.Environ(), "MCPSHIP_AUTH_TOKEN=")
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 64 || !strings.Contains(string(out), "--auth-token-file") {
		t.Errorf("exit %d (%v), output %q: want 64 and a word about --auth-token-file", code, err, out)
	}
	for _, args := range [][]string{{"--listen", "127.0.0.1:0"}, {"--auth-token-file", "x"}, {"--allow-origin", "https://a.example"}} {
		cmd := exec.Command(binPath, append([]string{"serve"}, args...)...)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 64 || !strings.Contains(string(out), "needs --transport http") {
			t.Errorf("serve %v: exit %d, output %q: want 64, needs --transport http", args, code, out)
		}
	}
	cmd = exec.Command(binPath, "serve", "--transport", "carrier-pigeon")
	if out, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 64 || !strings.Contains(string(out), `"http"`) {
		t.Errorf("unknown transport: exit %d, %q", cmd.ProcessState.ExitCode(), out)
	}
}

// TestServeHTTPToken checks the bearer token from --auth-token-file and
// from $MCPSHIP_AUTH_TOKEN: without it 401 with the realm and no
// resource_metadata, with it 200; the OAuth discovery paths answer 404
// without a token; the token is never logged.
func TestServeHTTPToken(t *testing.T) {
	const token = "tok-5d41402abc4b2a76"
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*httpServer{
		"file": startHTTP(t, nil, binPath, "serve", "--transport", "http", "--listen", "0.0.0.0:0", "--auth-token-file", file, "--log-level", "debug"),
		"env":  startHTTP(t, []string{"MCPSHIP_AUTH_TOKEN=" + token}, binPath, "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--log-level", "debug"),
	} {
		t.Run(name, func(t *testing.T) {
			url := strings.Replace(s.url, "[::]", "127.0.0.1", 1)
			status, hdr, _ := post(t, url, nil, initializeBody)
			if status != 401 || hdr.Get("WWW-Authenticate") != `Bearer realm="mcpship"` {
				t.Errorf("without the token: %d %q", status, hdr.Get("WWW-Authenticate"))
			}
			if status, _, _ := post(t, url, map[string]string{"Authorization": "Bearer nope"}, initializeBody); status != 401 {
				t.Errorf("a wrong token: %d, want 401", status)
			}
			auth := map[string]string{"Authorization": "Bearer " + token}
			if status, _, body := post(t, url, auth, initializeBody); status != 200 {
				t.Errorf("with the token: %d %s", status, body)
			}
			base := strings.TrimSuffix(url, "/mcp")
			for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/mcp"} {
				resp, err := http.Get(base + p)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 404 {
					t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
				}
			}
			if strings.Contains(s.log(), token) {
				t.Errorf("the token is in the log:\n%s", s.log())
			}
		})
	}
}

// TestServeHTTPShutdown sends SIGTERM while a call runs: the call still
// gets its result, and serve exits 0.
func TestServeHTTPShutdown(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "slow.json")
	os.WriteFile(manifest, []byte(`{"tools":[{"name":"nap","description":"Sleep a second.","command":["sleep","1"]}]}`), 0o644)
	s := startHTTP(t, nil, binPath, "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--manifest", manifest)
	type reply struct {
		status int
		body   string
	}
	done := make(chan reply, 1)
	go func() {
		status, _, body := post(t, s.url, modernHeaders("nap"), modernCallBody("nap", `{}`))
		done <- reply{status, body}
	}()
	// The call is running once its process exists; sleep has no other
	// sign of life.
	testutil.WaitFor(t, 10*time.Second, "the call's process to start", func() bool {
		out, _ := exec.Command("pgrep", "-P", strconv.Itoa(s.cmd.Process.Pid), "sleep").Output()
		return len(out) > 0
	})
	s.cmd.Process.Signal(syscall.SIGTERM)
	r := <-done
	if r.status != 200 || strings.Contains(r.body, `"isError":true`) {
		t.Errorf("the call running at SIGTERM: %d %s, want its result", r.status, r.body)
	}
	if err := <-s.exited; err != nil {
		t.Errorf("serve after SIGTERM: %v\n%s", err, s.log())
	}
}

// TestAdaptersServeHTTP checks that the same app on urfave/cli v2, Cobra
// and urfave/cli v3 serves the same tools over HTTP with "mcp --transport
// http", and refuses an open --listen without a token as a usage error.
func TestAdaptersServeHTTP(t *testing.T) {
	var lists []string
	for _, app := range []string{goappPath, cobraappPath, cliv3appPath} {
		s := startHTTP(t, nil, app, "mcp", "--transport", "http", "--listen", "127.0.0.1:0")
		status, _, body := post(t, s.url, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"},
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		if status != 200 || !strings.Contains(body, `"tools":[{`) {
			t.Fatalf("%s tools/list: %d %s", filepath.Base(app), status, body)
		}
		var r struct {
			Result struct{ Tools json.RawMessage }
		}
		json.Unmarshal([]byte(body), &r)
		// Each app names its tools after itself.
		lists = append(lists, strings.ReplaceAll(string(r.Result.Tools), `"`+filepath.Base(app)+`_`, `"APP_`))

		cmd := exec.Command(app, "mcp", "--transport", "http", "--listen", "0.0.0.0:0")
		cmd.Env = append(os.Environ(), "MCPSHIP_AUTH_TOKEN=")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 64 || !strings.Contains(string(out), "--auth-token-file") {
			t.Errorf("%s mcp --listen 0.0.0.0:0: exit %d, %q", filepath.Base(app), code, out)
		}
	}
	for i := range lists[1:] {
		if lists[i+1] != lists[0] {
			t.Errorf("the apps serve different tools over HTTP:\n%s\n%s", lists[0], lists[i+1])
		}
	}
}
