package mcp

import (
	"context"
	"errors"
	"testing"
)

// TestConnectEnds checks that the session of Connect ends with the client
// or with its context, that Close waits for it and reports how it ended,
// and that the client's calls then fail with ErrConnectionClosed.
func TestConnectEnds(t *testing.T) {
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	if err := s.AddTool(Tool{Name: "hi"}, func(context.Context, *CallRequest) (*CallToolResult, error) {
		return TextResult("hi"), nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"close", "cancel"} {
		ctx, cancel := context.WithCancel(context.Background())
		c := s.Connect(ctx, &ClientOptions{Info: Implementation{Name: "tester", Version: "2"}})
		if _, err := c.Initialize(ctx, ""); err != nil {
			t.Fatalf("%s: initialize: %v", how, err)
		}
		if res, err := c.CallTool(ctx, "hi", nil); err != nil || res.Content[0].Text != "hi" {
			t.Fatalf("%s: call: %v %+v", how, err, res)
		}
		if how == "cancel" {
			cancel()
			<-c.exited // Serve has returned; the client is still open
			if _, err := c.CallTool(context.Background(), "hi", nil); !errors.Is(err, ErrConnectionClosed) {
				t.Errorf("a call after the context ended the session: %v, want ErrConnectionClosed", err)
			}
		}
		if err := c.Close(); err != nil {
			t.Errorf("%s: Close: %v, want nil (the session ended at the end of its input or by cancellation)", how, err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("%s: second Close: %v", how, err)
		}
		if _, err := c.CallTool(context.Background(), "hi", nil); !errors.Is(err, ErrConnectionClosed) {
			t.Errorf("%s: a call after the session ended: %v, want ErrConnectionClosed", how, err)
		}
		cancel()
	}
}
