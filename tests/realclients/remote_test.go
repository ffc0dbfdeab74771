package realclients

import (
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The remote runs of the client tests: mcpship serves over HTTP with a
// bearer token ("mcpship serve --transport http --auth-token-file"),
// "mcpship init --url" registers it for the client, and the client
// connects through what init wrote.

// transports are the ways the client tests register mcpship: as a command
// the client starts, and as a remote server that init --url writes.
var transports = []string{"stdio", "http"}

// remoteTokenEnv is the variable that init --bearer-token-env names; the
// clients get the token in it.
const remoteTokenEnv = "MCPSHIP_REMOTE_TOKEN"

// subtest names a client test's subtest: as before for stdio, with the
// transport first for the remote run ("http/self/version").
func subtest(transport string, parts ...string) string {
	name := strings.Join(parts, "/")
	if transport != "stdio" {
		name = transport + "/" + name
	}
	return name
}

// serveRemote serves srv with "mcpship serve --transport http" on a free
// loopback port, requiring a bearer token (--auth-token-file), waits until
// it accepts connections, and returns its endpoint and the token. The
// server stops with the test.
func serveRemote(t *testing.T, srv server) (endpoint, token string) {
	t.Helper()
	token = fmt.Sprintf("tok-%x", time.Now().UnixNano())
	file := filepath.Join(t.TempDir(), "token")
	writeFile(t, file, []byte(token+"\n"))
	for try := 1; ; try++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // another process may take the port meanwhile: then try again
		args := append(srv.args(), "--transport", "http", "--listen", addr, "--auth-token-file", file)
		cmd := exec.Command(binPath, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		if listening(addr, exited) {
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-exited
				if t.Failed() {
					t.Logf("mcpship %s; its stderr:\n%s", strings.Join(args, " "), stderr.String())
				}
			})
			return "http://" + addr + "/mcp", token
		}
		cmd.Process.Kill()
		<-exited
		if try == 3 {
			t.Fatalf("mcpship %s does not listen on %s:\n%s", strings.Join(args, " "), addr, stderr.String())
		}
	}
}

// listening waits up to 30 s for addr to accept a connection, and
// reports whether it did before exited was closed.
func listening(addr string, exited <-chan struct{}) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case <-exited:
			return false
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return true
		}
	}
	return false
}

// initRemote runs "mcpship init --url endpoint --name mcpship" for client
// in scope, in dir with env (HOME and the client's own variables); extra
// says how the client gets the token.
func initRemote(t *testing.T, dir string, env []string, client, scope, endpoint string, extra ...string) {
	t.Helper()
	args := append([]string{"init", "--url", endpoint, "--name", regName, "--client", client, "--scope", scope}, extra...)
	r := runTool(t, time.Minute, dir, env, binPath, args...)
	if r.code != 0 || !strings.Contains(r.stdout, `added "`+regName+`"`) {
		t.Fatalf("mcpship %s: want it added\n%s", strings.Join(args, " "), r)
	}
}
