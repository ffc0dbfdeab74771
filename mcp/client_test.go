package mcp

import (
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
