package tests

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeStopsWhenTheClientStopsReading fills the output pipe of
// "mcpship serve" with replies that nobody reads, then sends SIGTERM: serve
// must give up on the blocked write and exit (its bound is 2 s), saying why.
func TestServeStopsWhenTheClientStopsReading(t *testing.T) {
	cmd := exec.Command(binPath, "serve")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.StdoutPipe(); err != nil { // never read
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The requests (350 KB: serve must read most of them before the write
	// below returns) get replies of about 700 KB, which fill the output pipe
	// many times over but stay under the 1 MiB of replies that serve queues
	// before it stops reading a client that does not read
	// (TestClientThatSendsWithoutReadingIsSlowedDown in mcp pins that).
	id := `"` + strings.Repeat("i", 300) + `"`
	input := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
		strings.Repeat(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`+"\n", 1000)
	written := make(chan error, 1)
	go func() { _, err := io.WriteString(stdin, input); written <- err }()
	select {
	case err := <-written:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve stopped reading its input when its output was not read")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("serve did not exit within 10 s of SIGTERM while its output was not read; stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "not reading") {
		t.Errorf("serve (%v) did not say the client stopped reading; stderr:\n%s", err, stderr.String())
	}
}
