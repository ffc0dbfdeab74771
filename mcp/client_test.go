package mcp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"testing"
)

// TestClientConnectionClosed checks that every way a connection ends is
// reported as ErrConnectionClosed, which callers test with errors.Is.
func TestClientConnectionClosed(t *testing.T) {
	ctx := context.Background()
	t.Run("server closes its output", func(t *testing.T) {
		outR, outW := io.Pipe()
		inR, inW := io.Pipe()
		go io.Copy(io.Discard, inR)
		c := NewClient(outR, inW, nil)
		defer c.Close()
		outW.Close()
		if _, err := c.Initialize(ctx, ""); !errors.Is(err, ErrConnectionClosed) {
			t.Errorf("Initialize after the server closed its output: %v, want ErrConnectionClosed", err)
		}
	})
	t.Run("server closes its input", func(t *testing.T) {
		outR, _ := io.Pipe()
		inR, inW := io.Pipe()
		inR.Close()
		c := NewClient(outR, inW, nil)
		defer c.Close()
		if _, err := c.ListTools(ctx); !errors.Is(err, ErrConnectionClosed) {
			t.Errorf("ListTools to a server that closed its input: %v, want ErrConnectionClosed", err)
		}
		if err := c.Notify("notifications/initialized", nil); !errors.Is(err, ErrConnectionClosed) {
			t.Errorf("Notify to a server that closed its input: %v, want ErrConnectionClosed", err)
		}
	})
	t.Run("client closed", func(t *testing.T) {
		c, _ := pipeSession(t, newTestServer(t, nil))
		if _, err := c.Initialize(ctx, ""); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if _, err := c.CallTool(ctx, "echo", nil); !errors.Is(err, ErrConnectionClosed) {
			t.Errorf("CallTool after Close: %v, want ErrConnectionClosed", err)
		}
	})
}

// TestClientAnswersServerRequests checks that a request from the server
// gets a reply while a call waits: ping an empty result, anything else
// method not found, each with its id as sent.
func TestClientAnswersServerRequests(t *testing.T) {
	outR, outW := io.Pipe() // the server's output
	inR, inW := io.Pipe()   // the server's input
	c := NewClient(outR, inW, nil)
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.ListTools(context.Background())
		done <- err
	}()
	in := bufio.NewScanner(inR)
	in.Scan() // tools/list
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":"s-1","method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`,
	} {
		if _, err := io.WriteString(outW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{
		`{"jsonrpc":"2.0","id":"s-1","result":{}}`:                                                            true,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"the client does not support roots/list"}}`: true,
	}
	for range want {
		if !in.Scan() {
			t.Fatal("no reply to the server's request")
		}
		if !want[in.Text()] {
			t.Errorf("unexpected reply %s", in.Text())
		}
	}
	if _, err := io.WriteString(outW, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("ListTools: %v", err)
	}
}
