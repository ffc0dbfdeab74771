//go:build linux

package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
)

// The bridge tests serve mcpship's own stdio server (serve --manifest
// testdata/bridge/tools.json) over HTTP with "serve --transport http --
// COMMAND", and servers that misbehave on purpose (testdata/bridge/*.sh).
// tests/realclients/bridge_test.go serves servers others wrote.

var bridgeTools, _ = filepath.Abs("testdata/bridge/tools.json")

// startBridge runs "mcpship serve --transport http" on a free loopback
// port with flags, serving command.
func startBridge(t *testing.T, env []string, flags []string, command ...string) *httpServer {
	t.Helper()
	args := append([]string{"serve", "--transport", "http", "--listen", "127.0.0.1:0", "--log-level", "info"}, flags...)
	return startHTTP(t, env, binPath, append(append(args, "--"), command...)...)
}

// selfServer is the command line of mcpship's own stdio server of the
// bridge tools.
func selfServer() []string { return []string{binPath, "serve", "--manifest", bridgeTools} }

// exchange posts one message and returns the status and body, or an
// error; unlike post it may run on any goroutine.
func exchange(url string, hdr map[string]string, body string) (int, string, http.Header, error) {
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header, err
}

// legacySession initializes a session of revision 2025-11-25 with extra
// headers and returns the headers of its requests.
func legacySession(t *testing.T, url string, extra map[string]string) map[string]string {
	t.Helper()
	status, body, hdr, err := exchange(url, extra, initializeBody)
	if err != nil || status != 200 || hdr.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %s %v", status, body, err)
	}
	h := map[string]string{"Mcp-Session-Id": hdr.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
	for k, v := range extra {
		h[k] = v
	}
	if status, body, _, err := exchange(url, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || status != 202 {
		t.Fatalf("notifications/initialized: %d %s %v", status, body, err)
	}
	return h
}

func legacyCallBody(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// callText makes a call and returns the text of its result, or the error
// message of its reply.
func callText(t *testing.T, url string, hdr map[string]string, body string) string {
	t.Helper()
	status, reply, _, err := exchange(url, hdr, body)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	var r struct {
		Result struct{ Content []struct{ Text string } }
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(reply), &r); err != nil {
		t.Fatalf("reply %d %q: %v", status, reply, err)
	}
	if r.Error != nil {
		return "error: " + r.Error.Message
	}
	if len(r.Result.Content) == 0 {
		t.Fatalf("reply %d %q has no content", status, reply)
	}
	return r.Result.Content[0].Text
}

// withHeaders returns a copy of a with b added.
func withHeaders(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// TestBridgeBothEras serves mcpship's own stdio server over HTTP: a
// legacy session and stateless requests of revision 2026-07-28 see the
// child's serverInfo, tools and results, and share the one child started
// at the beginning.
func TestBridgeBothEras(t *testing.T) {
	s := startBridge(t, nil, nil, selfServer()...)
	status, body, hdr, err := exchange(s.url, nil, initializeBody)
	if err != nil || status != 200 || !strings.Contains(body, `"serverInfo":{"name":"mcpship"`) || !strings.Contains(body, `"tools":{}`) {
		t.Fatalf("initialize: %d %s %v", status, body, err)
	}
	legacy := map[string]string{"Mcp-Session-Id": hdr.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
	status, body, _, _ = exchange(s.url, legacy, `{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	for _, tool := range []string{"echo", "whoami", "crash", "slow"} {
		if !strings.Contains(body, `"name":"`+tool+`"`) {
			t.Errorf("legacy tools/list lacks %s: %d %s", tool, status, body)
		}
	}
	if got := callText(t, s.url, legacy, legacyCallBody(`"x"`, "echo", `{"text":"hello legacy"}`)); got != "hello legacy\n" {
		t.Errorf("legacy echo: %q", got)
	}
	legacyWho := callText(t, s.url, legacy, legacyCallBody("7", "whoami", `{}`))

	modern := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}
	status, body, _, _ = exchange(s.url, modern, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	// The child's capabilities, as it announces them.
	if status != 200 || !strings.Contains(body, `"capabilities":{"tools":{},"logging":{},"resources":{}}`) || !strings.Contains(body, `"io.modelcontextprotocol/serverInfo":{"name":"mcpship"`) {
		t.Errorf("server/discover: %d %s", status, body)
	}
	status, body, hdr, _ = exchange(s.url, modernHeaders("echo"), modernCallBody("echo", `{"text":"hello modern"}`))
	if status != 200 || hdr.Get("Mcp-Session-Id") != "" || !strings.Contains(body, `"resultType":"complete"`) || !strings.Contains(body, `hello modern\n`) {
		t.Errorf("modern echo: %d %v %s", status, hdr, body)
	}
	if got := callText(t, s.url, modernHeaders("whoami"), modernCallBody("whoami", `{}`)); got != legacyWho {
		t.Errorf("modern whoami %q, legacy %q: want the same child", got, legacyWho)
	}
	// A method the child does not have is its own error, passed on: 404
	// in revision 2026-07-28.
	status, body, _, _ = exchange(s.url, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "prompts/list"},
		`{"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if status != 404 || !strings.Contains(body, `-32601`) {
		t.Errorf("prompts/list on a server without prompts: %d %s, want 404 and -32601", status, body)
	}
	// What revision 2026-07-28 removed never reaches the child, which
	// would answer it as a legacy server does.
	for _, method := range []string{"logging/setLevel", "resources/subscribe", "resources/unsubscribe"} {
		status, body, _, _ = exchange(s.url, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method},
			`{"jsonrpc":"2.0","id":3,"method":"`+method+`","params":{"level":"debug","uri":"mcpship://outputs/x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		if status != 404 || !strings.Contains(body, `"code":-32601`) {
			t.Errorf("%s at 2026-07-28: %d %s, want 404 and -32601", method, status, body)
		}
	}
}

// TestBridgeManyClients runs legacy sessions and stateless requests at
// once, every one with the same JSON-RPC ids: each reply carries the id
// its request had and the text its own call printed.
func TestBridgeManyClients(t *testing.T) {
	s := startBridge(t, nil, nil, selfServer()...)
	const clients, calls = 8, 6
	sessions := make([]map[string]string, clients)
	for i := range sessions {
		sessions[i] = legacySession(t, s.url, nil)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 2*clients*calls)
	for c := 0; c < clients; c++ {
		for _, era := range []string{"legacy", "modern"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; n < calls; n++ {
					text := fmt.Sprintf("%s client %d call %d", era, c, n)
					args := `{"text":"` + text + `"}`
					hdr, body := sessions[c], legacyCallBody("1", "echo", args)
					if era == "modern" {
						hdr, body = modernHeaders("echo"), modernCallBody("echo", args)
					}
					status, reply, _, err := exchange(s.url, hdr, body)
					if err != nil || status != 200 || !strings.HasPrefix(reply, `{"jsonrpc":"2.0","id":1,`) || !strings.Contains(reply, `"text":"`+text+`\n"`) {
						errs <- fmt.Sprintf("%s: %d %s %v", text, status, reply, err)
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// childWhoami calls the whoami tool and returns the token and the server pid it reports.
func childWhoami(t *testing.T, url string, hdr map[string]string, modern bool) (token, server string) {
	t.Helper()
	body := legacyCallBody("1", "whoami", `{}`)
	if modern {
		hdr, body = withHeaders(hdr, modernHeaders("whoami")), modernCallBody("whoami", `{}`)
	}
	got := callText(t, url, hdr, body)
	m := regexp.MustCompile(`^token=(\S*) server=(\d+)\n$`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("whoami: %q", got)
	}
	return m[1], m[2]
}

// TestBridgeCrashMidCall kills the child in the middle of a call: the
// call fails at once with an error that says so, and the child is
// started again, so that a later call succeeds in a new process.
func TestBridgeCrashMidCall(t *testing.T) {
	s := startBridge(t, nil, nil, selfServer()...)
	_, before := childWhoami(t, s.url, nil, true)
	got := callText(t, s.url, modernHeaders("crash"), modernCallBody("crash", `{}`))
	if !strings.HasPrefix(got, "error: the server command exited during the request: it exited") || !strings.Contains(got, "started again in") {
		t.Errorf("the call that crashed: %q", got)
	}
	var after string
	testutil.WaitFor(t, 60*time.Second, "the child to be started again", func() bool {
		got := callText(t, s.url, modernHeaders("whoami"), modernCallBody("whoami", `{}`))
		if m := regexp.MustCompile(`server=(\d+)`).FindStringSubmatch(got); m != nil {
			after = m[1]
			return true
		}
		// While it is down, calls fail at once, saying when to retry.
		if !strings.Contains(got, "the server command is down (it exited") && !strings.Contains(got, "exited during the request") {
			t.Fatalf("a call while the child is down: %q", got)
		}
		return false
	})
	if after == before {
		t.Errorf("whoami answers from server %s before and after the crash", before)
	}
	if !strings.Contains(s.log(), "the server command is down; it is started again after a backoff") {
		t.Errorf("the crash is not logged:\n%s", s.log())
	}
}

// TestBridgeCrashLoop serves a server that starts once and then fails at
// every start: calls fail fast with the reason, the backoff grows, and
// the crash loop is logged.
func TestBridgeCrashLoop(t *testing.T) {
	flaky, _ := filepath.Abs("testdata/bridge/flaky.sh")
	mark := filepath.Join(t.TempDir(), "started")
	s := startBridge(t, []string{"FLAKY_MARK=" + mark}, nil, append([]string{flaky}, selfServer()...)...)
	callText(t, s.url, modernHeaders("crash"), modernCallBody("crash", `{}`))
	testutil.WaitFor(t, 90*time.Second, "the crash loop to be logged", func() bool {
		return strings.Contains(s.log(), "the server command keeps failing")
	})
	start := time.Now()
	got := callText(t, s.url, modernHeaders("echo"), modernCallBody("echo", `{"text":"x"}`))
	if !strings.HasPrefix(got, "error: the server command is down (") || !strings.Contains(got, "exit status 3") {
		t.Errorf("a call during the crash loop: %q", got)
	}
	// Not a timing test: a call that waited for a start would have taken
	// the start's time at least, and these fail before any.
	if time.Since(start) > 20*time.Second {
		t.Errorf("a call during the crash loop took %v: it must fail at once", time.Since(start))
	}
	if !strings.Contains(s.log(), "flaky: refusing to start again") {
		t.Errorf("the child's stderr is not passed on:\n%s", s.log())
	}
	// /healthz takes the replica out meanwhile, saying when to look again.
	status, retry, body := getHealth(t, s)
	if n, _ := strconv.Atoi(retry); status != 503 || n < 1 || n > 30 || !strings.HasPrefix(body, "the server command keeps failing (") {
		t.Errorf("/healthz during the crash loop: %d, Retry-After %q, %q; want 503 keeps failing", status, retry, body)
	}
	if strings.Contains(body, "exit status") || strings.Contains(body, "flaky") {
		t.Errorf("/healthz, which needs no token, shows the command's exit or stderr: %q", body)
	}
}

// TestBridgeHealthFollowsChild checks /healthz through a crash of the
// shared child: 200 while it is up, 503 with Retry-After from its exit
// until it is up again (here its restart waits for a file), then 200, and
// calls work again.
func TestBridgeHealthFollowsChild(t *testing.T) {
	gate, _ := filepath.Abs("testdata/bridge/gate.sh")
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	s := startBridge(t, []string{"GATE_MARK=" + filepath.Join(dir, "started"), "GATE_OPEN=" + open}, nil, append([]string{gate}, selfServer()...)...)
	if status, _, body := getHealth(t, s); status != 200 || body != "ok\n" {
		t.Fatalf("/healthz with the child up: %d %q", status, body)
	}
	if !strings.Contains(s.log(), "msg=serving transport=http") || !strings.Contains(s.log(), "command="+gate) {
		t.Errorf("the serving log line does not name the command:\n%s", s.log())
	}
	if got := callText(t, s.url, modernHeaders("crash"), modernCallBody("crash", `{}`)); !strings.Contains(got, "exited during the request") {
		t.Fatalf("the call that crashed: %q", got)
	}
	// Down (for its backoff), then starting again until the gate opens:
	// 503 throughout.
	testutil.WaitFor(t, 60*time.Second, "/healthz to say the child is starting again", func() bool {
		status, retry, body := getHealth(t, s)
		if status != 503 || retry == "" {
			t.Fatalf("/healthz after the child exited: %d, Retry-After %q, %q; want 503", status, retry, body)
		}
		if body == "the server command is starting again\n" {
			return true
		}
		if !strings.HasPrefix(body, "the server command is down; it is started again in ") {
			t.Fatalf("/healthz after the child exited says %q", body)
		}
		return false
	})
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 60*time.Second, "/healthz to be 200 once the child may start", func() bool {
		status, _, body := getHealth(t, s)
		if status != 200 && status != 503 {
			t.Fatalf("/healthz once the child may start: %d %q", status, body)
		}
		return status == 200 && body == "ok\n"
	})
	if got := callText(t, s.url, modernHeaders("echo"), modernCallBody("echo", `{"text":"back"}`)); got != "back\n" {
		t.Errorf("a call once /healthz is 200 again: %q", got)
	}
}

// TestBridgeHungChild serves a server that answers initialize and then
// nothing: a request fails after --call-timeout, and the child, which
// answers no ping either, is stopped and started again.
func TestBridgeHungChild(t *testing.T) {
	hang, _ := filepath.Abs("testdata/bridge/hang.sh")
	s := startBridge(t, nil, []string{"--call-timeout", "1s", "--start-timeout", "2s"}, hang)
	legacy := legacySession(t, s.url, nil)
	status, body, _, err := exchange(s.url, legacy, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if err != nil || status != 200 || !strings.Contains(body, `"id":5`) ||
		!strings.Contains(body, "did not answer tools/list within 1s (mcpship serve --call-timeout); the request was cancelled") {
		t.Errorf("tools/list to a hung server: %d %s %v", status, body, err)
	}
	testutil.WaitFor(t, 60*time.Second, "the hung child to be stopped", func() bool {
		return strings.Contains(s.log(), "does not answer ping either; it is stopped and started again")
	})
}

// TestBridgeGarbage serves a server that writes lines that are not
// JSON-RPC between its messages: they are logged and skipped, and the
// calls work.
func TestBridgeGarbage(t *testing.T) {
	garbage, _ := filepath.Abs("testdata/bridge/garbage.sh")
	s := startBridge(t, nil, nil, append([]string{garbage}, selfServer()...)...)
	for i := 0; i < 3; i++ {
		if got := callText(t, s.url, modernHeaders("echo"), modernCallBody("echo", `{"text":"through the noise"}`)); got != "through the noise\n" {
			t.Errorf("echo: %q", got)
		}
	}
	for _, want := range []string{`not a JSON-RPC message; it was skipped`, `"\"starting up (this is not JSON)\""`, `debug: about to write a message`} {
		if !strings.Contains(s.log(), want) {
			t.Errorf("the log lacks %s:\n%s", want, s.log())
		}
	}
}

// TestBridgeEnvFromHeader passes X-Api-Token to the child's API_TOKEN:
// requests with different values get different children, the same value
// the same child, and a request without the header a child without the
// variable, though mcpship's own environment has it. The values are never
// logged.
func TestBridgeEnvFromHeader(t *testing.T) {
	s := startBridge(t, []string{"API_TOKEN=the-operators-own"}, []string{"--env-from-header", "X-Api-Token=API_TOKEN", "--log-level", "debug"}, selfServer()...)
	alice := map[string]string{"X-Api-Token": "alice-secret-1"}
	bob := map[string]string{"X-Api-Token": "bob-secret-2"}
	tokA, pidA := childWhoami(t, s.url, alice, true)
	tokB, pidB := childWhoami(t, s.url, bob, true)
	tok0, pid0 := childWhoami(t, s.url, nil, true)
	if tokA != "alice-secret-1" || tokB != "bob-secret-2" || tok0 != "" {
		t.Errorf("tokens: alice %q, bob %q, none %q", tokA, tokB, tok0)
	}
	if pidA == pidB || pidA == pid0 || pidB == pid0 {
		t.Errorf("children: alice %s, bob %s, none %s: want three", pidA, pidB, pid0)
	}
	// A legacy session of alice's gets alice's child.
	session := legacySession(t, s.url, alice)
	if tok, pid := childWhoami(t, s.url, session, false); tok != "alice-secret-1" || pid != pidA {
		t.Errorf("alice's legacy session: token %q server %s, want alice's child %s", tok, pid, pidA)
	}
	if _, pid := childWhoami(t, s.url, alice, true); pid != pidA {
		t.Errorf("alice again: server %s, want %s", pid, pidA)
	}
	for _, secret := range []string{"alice-secret-1", "bob-secret-2", "the-operators-own"} {
		if strings.Contains(s.log(), secret) {
			t.Errorf("%s is in the log:\n%s", secret, s.log())
		}
	}
}

// TestBridgeChildPerSession gives each legacy session a child of its own
// with --child-per-session, and stops children idle past
// --child-idle-timeout.
func TestBridgeChildPerSession(t *testing.T) {
	s := startBridge(t, nil, []string{"--child-per-session", "--child-idle-timeout", "5s"}, selfServer()...)
	one, two := legacySession(t, s.url, nil), legacySession(t, s.url, nil)
	_, pid1 := childWhoami(t, s.url, one, false)
	_, pid2 := childWhoami(t, s.url, two, false)
	_, again := childWhoami(t, s.url, one, false)
	if pid1 == pid2 || again != pid1 {
		t.Errorf("session one %s then %s, session two %s: want one child per session", pid1, again, pid2)
	}
	n, _ := strconv.Atoi(pid1)
	testutil.WaitFor(t, 60*time.Second, "the idle child "+pid1+" to stop", func() bool { return syscall.Kill(n, 0) != nil })
	// The session goes on, in a new child.
	if _, pid := childWhoami(t, s.url, one, false); pid == pid1 {
		t.Errorf("after the idle stop, session one is still served by %s", pid)
	}
}

// TestBridgeKilledWithSIGKILL kills mcpship with SIGKILL: the kernel
// kills its child (its parent-death signal), a child that would not
// notice the end of its input, since it does not read it.
func TestBridgeKilledWithSIGKILL(t *testing.T) {
	hang, _ := filepath.Abs("testdata/bridge/hang.sh")
	pidfile := filepath.Join(t.TempDir(), "pid")
	s := startBridge(t, []string{"HANG_PIDFILE=" + pidfile}, nil, hang)
	b, _ := os.ReadFile(pidfile)
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || syscall.Kill(n, 0) != nil {
		t.Fatalf("the child's pid %q: %v", b, err)
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	t.Cleanup(func() {
		if t.Failed() { // it outlived mcpship
			syscall.Kill(n, syscall.SIGKILL)
		}
	})
	testutil.WaitFor(t, 30*time.Second, "the child to end with mcpship", func() bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(n) + "/stat")
		// Gone, or a zombie: dead, waiting for init to collect it.
		return syscall.Kill(n, 0) != nil || strings.Contains(string(b), ") Z ")
	})
}

// TestBridgeBadInput checks the command lines that are wrong: each is a
// clear error, exit 64 for a usage error and 1 for a command that does
// not speak MCP.
func TestBridgeBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--transport", "http", "--"}, 64, "-- needs the server command after it"},
		{[]string{"--", "mcpship", "serve"}, 64, "add --transport http"},
		{[]string{"--transport", "http", "mcpship"}, 64, `serve takes no arguments, got "mcpship"; to serve a stdio server command, put it after --`},
		{[]string{"--transport", "http", "--", "no-such-server-xyz"}, 64, `cannot run the server command "no-such-server-xyz": executable file not found in $PATH`},
		{[]string{"--transport", "http", "--", "sh", "-c", "echo hello"}, 1, `the server command "sh" does not speak MCP over stdio: it exited before it answered initialize`},
		{[]string{"--transport", "http", "--start-timeout", "1s", "--", "sleep", "1000"}, 1, `did not answer initialize within 1s (mcpship serve --start-timeout)`},
		{[]string{"--transport", "http", "--env-from-header", "X-Token", "--", "mcpship", "serve"}, 64, `--env-from-header "X-Token": use HEADER=VAR`},
		{[]string{"--transport", "http", "--env-from-header", "X-Token=1BAD", "--", "mcpship", "serve"}, 64, `is not an environment variable name`},
		{[]string{"--transport", "http", "--env-from-header", "X-V=LD_PRELOAD", "--", "mcpship", "serve"}, 64, `--env-from-header "X-V=LD_PRELOAD": LD_PRELOAD tells the dynamic loader`},
		{[]string{"--transport", "http", "--env-from-header", "X-V=dyld_insert_libraries", "--", "mcpship", "serve"}, 64, "add --allow-unsafe-env dyld_insert_libraries"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=PATH", "--", "mcpship", "serve"}, 64, "PATH is a search path"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=PYTHONPATH", "--", "mcpship", "serve"}, 64, "PYTHONPATH is a search path"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=PERL5LIB", "--", "mcpship", "serve"}, 64, "PERL5LIB is a search path"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=NODE_OPTIONS", "--", "mcpship", "serve"}, 64, "NODE_OPTIONS gives options or start-up code"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=JAVA_TOOL_OPTIONS", "--", "mcpship", "serve"}, 64, "JAVA_TOOL_OPTIONS gives options"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=BASH_ENV", "--", "mcpship", "serve"}, 64, "BASH_ENV changes how a shell runs commands"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=GIT_SSH_COMMAND", "--", "mcpship", "serve"}, 64, "GIT_SSH_COMMAND changes which programs git runs"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=HOME", "--", "mcpship", "serve"}, 64, "HOME is a home or configuration directory"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=HTTPS_PROXY", "--", "mcpship", "serve"}, 64, "HTTPS_PROXY changes whom the server connects through"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=MCPSHIP_AUTH_TOKEN", "--", "mcpship", "serve"}, 64, "MCPSHIP_AUTH_TOKEN is mcpship's own"},
		{[]string{"--transport", "http", "--env-from-header", "X-V=API_KEY", "--allow-unsafe-env", "PATH", "--", "mcpship", "serve"}, 64, "--allow-unsafe-env PATH names no variable of an --env-from-header"},
		{[]string{"--transport", "http", "--allow-unsafe-env", "PATH"}, 64, "--allow-unsafe-env needs a server command after --"},
		{[]string{"--transport", "http", "--call-timeout", "1m"}, 64, "--call-timeout needs a server command after --"},
		{[]string{"--transport", "http", "--manifest", bridgeTools, "--", "mcpship", "serve"}, 64, "give one or the other"},
		{[]string{"--transport", "http", "--max-children", "0", "--", "mcpship", "serve"}, 64, "--max-children must be at least 1"},
	} {
		cmd := exec.Command(binPath, append([]string{"serve", "--listen", "127.0.0.1:0"}, c.args...)...)
		cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != c.code || !strings.Contains(string(out), c.want) {
			t.Errorf("serve %s: exit %d, %q; want %d and %q", strings.Join(c.args, " "), code, out, c.code, c.want)
		}
	}
}
