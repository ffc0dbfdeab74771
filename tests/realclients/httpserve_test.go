package realclients

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startHTTPServe starts mcpship serving args (as for stdio) over HTTP on a
// free loopback port, and returns the endpoint's URL. It stops with the
// test, by SIGTERM, and must then exit 0.
func startHTTPServe(t *testing.T, args []string) string {
	t.Helper()
	return startHTTPCmd(t, append([]string{binPath}, append(args, "--transport", "http", "--listen", "127.0.0.1:0")...))
}

// startHTTPCmd starts cmd, a server that serves HTTP and says so on
// standard error ("serving MCP on URL"), and returns the URL.
func startHTTPCmd(t *testing.T, cmd []string) string {
	t.Helper()
	url, _ := startServing(t, exec.Command(cmd[0], cmd[1:]...), time.Minute)
	return url
}

// startServing starts c, waits up to wait for it to say where it serves
// ("serving MCP on URL") on standard error, and returns that URL and a
// function giving what it has written there so far. It stops with the
// test, by SIGTERM, and must then exit 0.
func startServing(t *testing.T, c *exec.Cmd, wait time.Duration) (string, func() string) {
	t.Helper()
	name := c.Args[0]
	pipe, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stderr bytes.Buffer
	urls, exited := make(chan string, 1), make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			mu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if u, ok := strings.CutPrefix(sc.Text(), "serving MCP on "); ok {
				urls <- u
			}
		}
		exited <- c.Wait()
	}()
	log := func() string {
		mu.Lock()
		defer mu.Unlock()
		return stderr.String()
	}
	var url string
	select {
	case url = <-urls:
	case err := <-exited:
		t.Fatalf("%s exited before serving: %v\n%s", name, err, log())
	case <-time.After(wait):
		c.Process.Kill()
		t.Fatalf("%s did not say where it serves\n%s", name, log())
	}
	t.Cleanup(func() {
		c.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("%v after SIGTERM: %v\n%s", c.Args, err, log())
			}
		case <-time.After(time.Minute):
			c.Process.Kill()
			t.Errorf("%v did not exit after SIGTERM\n%s", c.Args, log())
		}
	})
	return url, log
}

// startConformanceServer builds conformanceserver and serves it over HTTP
// with the mcp package's handler.
func startConformanceServer(t *testing.T) string {
	t.Helper()
	return startHTTPCmd(t, []string{buildConformanceServer(t), "-http", "127.0.0.1:0"})
}

// startBridgedConformanceServer serves conformanceserver over stdio, its
// default, through mcpship serve --transport http -- (the bridge), and
// returns the endpoint's URL.
func startBridgedConformanceServer(t *testing.T) string {
	t.Helper()
	return startHTTPCmd(t, []string{binPath, "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--", buildConformanceServer(t)})
}
