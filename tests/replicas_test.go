package tests

import (
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
)

// writeKey writes a session key file of mode 0600 and returns its path.
func writeKey(t *testing.T, key string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "session.key")
	if err := os.WriteFile(file, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

const testSessionKey = "3f1c0a9b7d5e4f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a\n"

// TestServeHTTPReplicas runs two mcpship serve processes that share a
// session key: a session initialized on one is served by the other, and
// an id that is forged, altered or of another key gets 404 on both.
func TestServeHTTPReplicas(t *testing.T) {
	key := writeKey(t, testSessionKey)
	args := []string{"serve", "--transport", "http", "--listen", "127.0.0.1:0", "--session-key-file", key}
	one := startHTTP(t, nil, binPath, args...)
	two := startHTTP(t, nil, binPath, args...)
	other := startHTTP(t, nil, binPath, "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--session-key-file", writeKey(t, strings.Repeat("z", 40)))

	status, hdr, body := post(t, one.url, nil, initializeBody)
	sid := hdr.Get("Mcp-Session-Id")
	if status != 200 || sid == "" {
		t.Fatalf("initialize on the first: %d %s", status, body)
	}
	legacy := func(id string) map[string]string {
		return map[string]string{"Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25"}
	}
	if status, _, body := post(t, two.url, legacy(sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 202 {
		t.Errorf("notifications/initialized on the second: %d %s", status, body)
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcpship_version","arguments":{}}}`
	for _, s := range []*httpServer{two, one, two} {
		if status, _, body := post(t, s.url, legacy(sid), call); status != 200 || !strings.Contains(resultText(t, body), "mcpship") {
			t.Errorf("call on %s: %d %s", s.url, status, body)
		}
	}

	// Forged: a well-formed id with a MAC made up. Altered: the payload
	// of the real id changed, its MAC kept.
	parts := strings.Split(sid, ".")
	if len(parts) != 3 {
		t.Fatalf("session id %q is not PREFIX.PAYLOAD.MAC", sid)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("payload of %q: %v", sid, err)
	}
	altered := strings.Replace(string(payload), "2025-11-25", "2025-06-18", 1)
	if altered == string(payload) {
		t.Fatalf("payload %s does not carry the revision", payload)
	}
	forged := parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	for name, id := range map[string]string{
		"forged":  forged,
		"altered": parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(altered)) + "." + parts[2],
		"random":  "c2Vzc2lvbi1pZC1ndWVzcw",
	} {
		for _, s := range []*httpServer{one, two} {
			if status, _, body := post(t, s.url, legacy(id), call); status != 404 {
				t.Errorf("%s id on %s: %d %s, want 404", name, s.url, status, body)
			}
		}
	}
	if status, _, body := post(t, other.url, legacy(sid), call); status != 404 {
		t.Errorf("the id on a server of another key: %d %s, want 404", status, body)
	}
	for _, s := range []*httpServer{one, two, other} {
		if strings.Contains(s.log(), strings.TrimSpace(testSessionKey)) || strings.Contains(s.log(), "zzzzzzzz") {
			t.Errorf("the key is in the log:\n%s", s.log())
		}
	}
}

// TestServeHTTPSessionKeyRefused checks the key files serve refuses, each
// with exit 64 and a message that names the file and what to do, and
// never the key.
func TestServeHTTPSessionKeyRefused(t *testing.T) {
	dir := t.TempDir()
	short := writeKey(t, "0123456789abcdef-secret\n")
	open := writeKey(t, testSessionKey)
	os.Chmod(open, 0o666)
	unreadable := writeKey(t, testSessionKey)
	os.Chmod(unreadable, 0o000)
	cases := []struct {
		name, file, want string
	}{
		{"missing", filepath.Join(dir, "nope.key"), "does not exist: write a key of at least 32 random bytes into it, for example: openssl rand -hex 32 >"},
		{"too short", short, "holds a key of 23 bytes, fewer than the 32 it needs"},
		{"writable by all", open, "is writable by every user, who could then forge sessions: chmod o-w"},
		{"a folder", dir, "is not a regular file"},
		{"unreadable", unreadable, "permission denied"},
	}
	for _, c := range cases {
		if c.name == "unreadable" && os.Geteuid() == 0 {
			continue // root reads it anyway
		}
		for _, prog := range [][]string{{binPath, "serve", "--transport", "http"}, {goappPath, "mcp", "--transport", "http"}, {cobraappPath, "mcp", "--transport", "http"}} {
			cmd := exec.Command(prog[0], append(prog[1:], "--listen", "127.0.0.1:0", "--session-key-file", c.file)...)
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != 64 || !strings.Contains(string(out), c.file) || !strings.Contains(string(out), c.want) {
				t.Errorf("%s: %s: exit %d, %q: want 64, the file and %q", c.name, filepath.Base(prog[0]), code, out, c.want)
			}
			if strings.Contains(string(out), "secret") || strings.Contains(string(out), "3f1c0a9b") {
				t.Errorf("%s: the key is in the output %q", c.name, out)
			}
		}
	}
	for _, args := range [][]string{{"--session-key-file", open}, {"--drain-timeout", "5s"}, {"--drain-grace", "5s"}} {
		cmd := exec.Command(binPath, append([]string{"serve"}, args...)...)
		if out, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 64 || !strings.Contains(string(out), "needs --transport http") {
			t.Errorf("serve %v over stdio: exit %d, %q", args, cmd.ProcessState.ExitCode(), out)
		}
	}
	cmd := exec.Command(binPath, "serve", "--transport", "http", "--drain-grace", "0s")
	if out, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 64 || !strings.Contains(string(out), "--drain-grace must be positive, got 0s") {
		t.Errorf("--drain-grace 0s: exit %d, %q", cmd.ProcessState.ExitCode(), out)
	}
	cmd = exec.Command(binPath, "serve", "--transport", "http", "--session-lifetime", "1h")
	if out, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 64 || !strings.Contains(string(out), "--session-lifetime needs --session-key-file") {
		t.Errorf("--session-lifetime without a key: exit %d, %q", cmd.ProcessState.ExitCode(), out)
	}
}

// getHealth returns the status, Retry-After and body of GET /healthz.
func getHealth(t *testing.T, s *httpServer) (int, string, string) {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(s.url, "/mcp") + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
}

// blockingManifest writes a manifest whose tool "hold" runs until the
// file it returns exists, and says so by creating the file started.
func blockingManifest(t *testing.T) (manifest, started, release string) {
	dir := t.TempDir()
	started, release = filepath.Join(dir, "started"), filepath.Join(dir, "release")
	manifest = filepath.Join(dir, "hold.json")
	script := "touch " + started + "; while [ ! -e " + release + " ]; do sleep 0.05; done; echo released"
	body := `{"tools":[{"name":"hold","description":"Wait until released.","command":["sh","-c",` + strconv.Quote(script) + `],"readOnly":false}]}`
	if err := os.WriteFile(manifest, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return manifest, started, release
}

func waitForFile(t *testing.T, file string) {
	t.Helper()
	testutil.WaitFor(t, 30*time.Second, file+" to appear", func() bool {
		_, err := os.Stat(file)
		return err == nil
	})
}

// TestServeHTTPDrain sends SIGTERM while a call runs: /healthz, open to
// every client without the token and telling nothing but its state,
// turns 503; new calls and new sessions get 503 with Retry-After; the
// running call finishes with its result, and serve exits 0.
func TestServeHTTPDrain(t *testing.T) {
	manifest, started, release := blockingManifest(t)
	token := writeKey(t, "tok-drain-7c2e\n")
	s := startHTTP(t, nil, binPath, "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--manifest", manifest,
		"--auth-token-file", token, "--drain-timeout", "5m", "--drain-grace", "10m")
	auth := map[string]string{"Authorization": "Bearer tok-drain-7c2e"}
	if status, _, body := getHealth(t, s); status != 200 || body != "ok\n" {
		t.Errorf("healthz, serving, without the token: %d %q, want 200 \"ok\\n\"", status, body)
	}
	type reply struct {
		status int
		body   string
	}
	done := make(chan reply, 1)
	go func() {
		hdr := modernHeaders("hold")
		hdr["Authorization"] = auth["Authorization"]
		status, _, body := post(t, s.url, hdr, modernCallBody("hold", `{}`))
		done <- reply{status, body}
	}()
	waitForFile(t, started)
	s.cmd.Process.Signal(syscall.SIGTERM)
	var status int
	var retry, body string
	testutil.WaitFor(t, 30*time.Second, "/healthz to change after SIGTERM", func() bool {
		status, retry, body = getHealth(t, s)
		return status != 200
	})
	if status != 503 || retry == "" || !strings.HasPrefix(body, "draining") {
		t.Errorf("healthz after SIGTERM: %d, Retry-After %q, %q: want 503 draining", status, retry, body)
	}
	hdr := modernHeaders("hold")
	hdr["Authorization"] = auth["Authorization"]
	if status, h, body := post(t, s.url, hdr, modernCallBody("hold", `{}`)); status != 503 || h.Get("Retry-After") == "" {
		t.Errorf("a new call while draining: %d %v %s, want 503 with Retry-After", status, h, body)
	}
	if status, h, body := post(t, s.url, auth, initializeBody); status != 503 || h.Get("Retry-After") == "" {
		t.Errorf("a new session while draining: %d %v %s, want 503 with Retry-After", status, h, body)
	}
	select {
	case r := <-done:
		t.Fatalf("the running call ended before it was released: %d %s", r.status, r.body)
	default:
	}
	os.WriteFile(release, nil, 0o644)
	r := <-done
	if r.status != 200 || !strings.Contains(r.body, "released") || strings.Contains(r.body, `"isError":true`) {
		t.Errorf("the call running at SIGTERM: %d %s, want its result", r.status, r.body)
	}
	// /healthz was probed, so the port stays open for --drain-grace
	// after the last call: the balancer's next check must see the 503
	// before connections are refused.
	for range 3 {
		if status, _, body := getHealth(t, s); status != 503 || !strings.HasPrefix(body, "draining") {
			t.Errorf("healthz after the last call, within --drain-grace: %d %q, want 503 draining", status, body)
		}
	}
	select {
	case err := <-s.exited:
		t.Fatalf("serve exited within --drain-grace: %v\n%s", err, s.log())
	default:
	}
	// A second signal ends the grace.
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		if err != nil {
			t.Errorf("serve after draining: %v\n%s", err, s.log())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("serve did not exit once the running call finished\n%s", s.log())
	}
}

// TestServeHTTPDrainBound checks that a call still running when the
// drain timeout ends is cancelled, gets an answer that says so, and serve
// exits 0.
func TestServeHTTPDrainBound(t *testing.T) {
	manifest, started, _ := blockingManifest(t)
	s := startHTTP(t, nil, binPath, "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--manifest", manifest, "--drain-timeout", "1s")
	done := make(chan string, 1)
	go func() {
		status, _, body := post(t, s.url, modernHeaders("hold"), modernCallBody("hold", `{}`))
		done <- strconv.Itoa(status) + " " + body
	}()
	waitForFile(t, started)
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case r := <-done:
		if strings.Contains(r, "released") || !strings.Contains(r, "cancel") {
			t.Errorf("the call cut by the drain timeout: %s, want an answer that it was cancelled", r)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the call was not cancelled after the drain timeout")
	}
	select {
	case err := <-s.exited:
		if err != nil {
			t.Errorf("serve after the drain timeout: %v\n%s", err, s.log())
		}
	case <-time.After(60 * time.Second):
		t.Errorf("serve did not exit after the drain timeout\n%s", s.log())
	}
}

// TestAdaptersServeHTTPReplicas checks --session-key-file on the apps of
// the three adapters: a session initialized on one process of an app is
// served by another.
func TestAdaptersServeHTTPReplicas(t *testing.T) {
	key := writeKey(t, testSessionKey)
	for _, app := range []string{goappPath, cobraappPath, cliv3appPath} {
		args := []string{"mcp", "--transport", "http", "--listen", "127.0.0.1:0", "--session-key-file", key, "--drain-timeout", "5s"}
		one, two := startHTTP(t, nil, app, args...), startHTTP(t, nil, app, args...)
		_, hdr, body := post(t, one.url, nil, initializeBody)
		sid := hdr.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatalf("%s initialize: %s", filepath.Base(app), body)
		}
		status, _, body := post(t, two.url, map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if status != 200 || !strings.Contains(body, `"tools":[{`) {
			t.Errorf("%s tools/list on the other process: %d %s", filepath.Base(app), status, body)
		}
		if status, _, body := getHealth(t, two); status != 200 || body != "ok\n" {
			t.Errorf("%s healthz: %d %q", filepath.Base(app), status, body)
		}
	}
}

// TestServeHTTPTokenFileRefused checks that --auth-token-file is held to
// the rules of --session-key-file: a FIFO, a device or a folder is refused
// without being read (a FIFO would block start, /dev/zero never end), and
// so is a file every user may write.
func TestServeHTTPTokenFileRefused(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "token")
	if err := os.WriteFile(open, []byte("tok-3f1c0a9b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o666)
	fifo := filepath.Join(dir, "fifo")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, c := range []struct{ name, file, want string }{
		{"writable by all", open, "is writable by every user, who could then choose the token: chmod o-w"},
		{"a FIFO", fifo, "is not a regular file"},
		{"a device", "/dev/zero", "is not a regular file"},
		{"a folder", dir, "is not a regular file"},
		{"missing", filepath.Join(dir, "nope"), "does not exist: write the token into it"},
	} {
		cmd := exec.Command(binPath, "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--auth-token-file", c.file)
		done := make(chan []byte, 1)
		go func() { out, _ := cmd.CombinedOutput(); done <- out }()
		var out []byte
		select {
		case out = <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatalf("%s: serve did not exit: it is reading %s", c.name, c.file)
		}
		if code := cmd.ProcessState.ExitCode(); code != 64 || !strings.Contains(string(out), "--auth-token-file "+c.file) || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: exit %d, %q: want 64, the file and %q", c.name, code, out, c.want)
		}
		if strings.Contains(string(out), "3f1c0a9b") {
			t.Errorf("%s: the token is in the output %q", c.name, out)
		}
	}
}
