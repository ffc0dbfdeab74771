package httpserve

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

func writeFile(t *testing.T, name string, b []byte, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantUsage checks that err is a usage error (exit code 64) whose
// message holds every one of parts.
func wantUsage(t *testing.T, err error, parts ...string) {
	t.Helper()
	var u *UsageError
	if !errors.As(err, &u) || u.ExitCode() != 64 {
		t.Fatalf("got %v, want a usage error", err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

func TestToken(t *testing.T) {
	t.Setenv(TokenEnv, "  from-env \n")
	if tok, err := Token(""); tok != "from-env" || err != nil {
		t.Errorf("Token(\"\") = %q, %v; want the variable's value without spaces", tok, err)
	}
	if tok, err := Token(writeFile(t, "token", []byte("s3cret\n"), 0o600)); tok != "s3cret" || err != nil {
		t.Errorf("Token(file) = %q, %v; want the file's token", tok, err)
	}
	_, err := Token(writeFile(t, "empty", []byte(" \n"), 0o600))
	wantUsage(t, err, "is empty", "write the token")
	_, err = Token(writeFile(t, "words", []byte("two words\n"), 0o600))
	wantUsage(t, err, "more than one word")
	if strings.Contains(err.Error(), "two") {
		t.Errorf("the error shows the file's contents: %v", err)
	}
	_, err = Token(filepath.Join(t.TempDir(), "missing"))
	wantUsage(t, err, "--auth-token-file")
}

func TestSessionKey(t *testing.T) {
	hex := strings.Repeat("ab", 32)
	if k, err := SessionKey(writeFile(t, "key", []byte(hex+"\n"), 0o600)); string(k) != hex || err != nil {
		t.Errorf("a text key: %q, %v; want the text without the newline", k, err)
	}
	raw := bytes.Repeat([]byte{0, 1, 2, 0xff}, 8)
	raw[31] = '\n' // binary: white space is part of the key
	if k, err := SessionKey(writeFile(t, "raw", raw, 0o600)); !bytes.Equal(k, raw) || err != nil {
		t.Errorf("a binary key: %x, %v; want its bytes as they are", k, err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	_, err := SessionKey(missing)
	wantUsage(t, err, missing, "does not exist", "openssl rand -hex 32")
	_, err = SessionKey(writeFile(t, "short", []byte("abc\n"), 0o600))
	wantUsage(t, err, "3 bytes", "fewer than the 32")
	if strings.Contains(err.Error(), "abc") {
		t.Errorf("the error shows the key: %v", err)
	}
	_, err = SessionKey(t.TempDir())
	wantUsage(t, err, "not a regular file")
	_, err = SessionKey(writeFile(t, "large", bytes.Repeat([]byte("a"), 64<<10+1), 0o600))
	wantUsage(t, err, "larger than 64 KiB")
	if runtime.GOOS != "windows" {
		p := writeFile(t, "open", []byte(hex), 0o666)
		_, err = SessionKey(p)
		wantUsage(t, err, "writable by every user", "chmod o-w "+p)
	}
}

// serve runs Serve with o in the background; it returns the server's
// base URL and a channel with what Serve returned.
func serve(t *testing.T, ctx context.Context, o Options) (string, <-chan error) {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil)
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	var stderr bytes.Buffer
	o.Stderr = &stderr
	ready := make(chan string, 1)
	o.Ready = func(a net.Addr) { ready <- "http://" + a.String() }
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, srv, o) }()
	select {
	case u := <-ready:
		if !strings.Contains(stderr.String(), "serving MCP on "+u+Path) {
			t.Errorf("stderr says %q, want where it serves", stderr.String())
		}
		return u, done
	case err := <-done:
		t.Fatalf("Serve: %v", err)
	}
	return "", nil
}

func get(t *testing.T, method, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp, b.String()
}

func TestServeRefuses(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil)
	t.Setenv(TokenEnv, "")
	wantUsage(t, Serve(t.Context(), srv, Options{Listen: "localhost"}), `invalid --listen "localhost"`, "HOST:PORT")
	wantUsage(t, Serve(t.Context(), srv, Options{Listen: "0.0.0.0:0"}), "without a token", "--auth-token-file")
	wantUsage(t, Serve(t.Context(), srv, Options{Listen: "127.0.0.1:0", TokenFile: filepath.Join(t.TempDir(), "none")}), "--auth-token-file")
	wantUsage(t, Serve(t.Context(), srv, Options{Listen: "127.0.0.1:0", SessionKeyFile: filepath.Join(t.TempDir(), "none")}), "--session-key-file")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = Serve(t.Context(), srv, Options{Listen: ln.Addr().String()})
	if err == nil || !strings.Contains(err.Error(), "listen on "+ln.Addr().String()) || !strings.Contains(err.Error(), "--listen") {
		t.Errorf("listening on a port in use: %v, want an error that names it and --listen", err)
	}
}

// TestServeHealthAndPaths checks /healthz and the paths but the endpoint
// while serving.
func TestServeHealthAndPaths(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	u, done := serve(t, ctx, Options{DrainGrace: time.Millisecond})
	resp, body := get(t, "GET", u+HealthPath)
	if resp.StatusCode != 200 || body != "ok\n" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("GET /healthz: %d %q %v, want 200 ok, not cached", resp.StatusCode, body, resp.Header)
	}
	if resp, _ := get(t, "HEAD", u+HealthPath); resp.StatusCode != 200 {
		t.Errorf("HEAD /healthz: %d, want 200", resp.StatusCode)
	}
	if resp, _ := get(t, "POST", u+HealthPath); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /healthz: %d %v, want 405 with Allow", resp.StatusCode, resp.Header)
	}
	resp, body = get(t, "GET", u+"/.well-known/oauth-authorization-server")
	if resp.StatusCode != 404 || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "the MCP endpoint is /mcp") {
		t.Errorf("GET /.well-known/oauth-authorization-server: %d %s, want a JSON-RPC 404 naming the endpoint", resp.StatusCode, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestServeReturnsWithoutProbe checks that Serve returns when its
// context ends, without the grace, when nothing has probed /healthz: no
// one is there to see it drain.
func TestServeReturnsWithoutProbe(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	_, done := serve(t, ctx, Options{DrainGrace: 1 << 62})
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestServeHealthFollows checks that /healthz asks Options.Health: 503
// with its reason and Retry-After rounded up to a second while it gives
// one, 200 once it gives none.
func TestServeHealthFollows(t *testing.T) {
	var mu sync.Mutex
	reason, retry := "the server command is down", 1500*time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	u, _ := serve(t, ctx, Options{DrainGrace: time.Millisecond, Health: func() (string, time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		return reason, retry
	}})
	resp, body := get(t, "GET", u+HealthPath)
	if resp.StatusCode != 503 || body != "the server command is down\n" || resp.Header.Get("Retry-After") != "2" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("GET /healthz while down: %d %q %v, want 503 with the reason and Retry-After: 2", resp.StatusCode, body, resp.Header)
	}
	mu.Lock()
	reason, retry = "starting", 0
	mu.Unlock()
	if resp, _ := get(t, "HEAD", u+HealthPath); resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("HEAD /healthz while starting: %d %v, want 503 with Retry-After: 1", resp.StatusCode, resp.Header)
	}
	mu.Lock()
	reason = ""
	mu.Unlock()
	if resp, body := get(t, "GET", u+HealthPath); resp.StatusCode != 200 || body != "ok\n" {
		t.Errorf("GET /healthz once up: %d %q, want 200 ok", resp.StatusCode, body)
	}
}
