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
	input := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
		strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n", 5000)
	// Once it is all written, serve has read all but a pipe's worth, and
	// its replies (over 1 MB) fill the output pipe many times over: serve
	// must go on reading all the same.
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
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("serve did not exit within 10 s of SIGTERM while its output was not read; stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "not reading") {
		t.Errorf("serve's stderr does not say the client stopped reading:\n%s", stderr.String())
	}
}
