package mcp

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// stdoutTool is a server whose tool "where" says what os.Stdout is while
// it runs: "unchanged" when it is the file it was when stdoutTool was
// called, "stderr" when it is os.Stderr instead, else "other". Unchanged
// comes first: under "go test -json" the testing package makes os.Stderr
// the same file as os.Stdout.
func stdoutTool(t *testing.T) *Server {
	t.Helper()
	before := os.Stdout
	srv := NewServer(Implementation{Name: "t", Version: "1"}, nil)
	err := srv.AddTool(Tool{Name: "where"}, func(context.Context, *CallRequest) (*CallToolResult, error) {
		switch os.Stdout {
		case before:
			return TextResult("unchanged"), nil
		case os.Stderr:
			return TextResult("stderr"), nil
		}
		return TextResult("other"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

const whereSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"where","arguments":{}}}
`

// TestServeStdioLeavesStdout checks that ServeStdio does not touch the
// global os.Stdout unless asked.
func TestServeStdioLeavesStdout(t *testing.T) {
	var out bytes.Buffer
	err := stdoutTool(t).ServeStdio(context.Background(), &StdioOptions{Stdin: strings.NewReader(whereSession), Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"text":"unchanged"`) {
		t.Errorf("os.Stdout changed while serving without RedirectStdout:\n%s", out.String())
	}
}

// TestServeStdioRedirect checks RedirectStdout: while serving on
// os.Stdout, os.Stdout is standard error, and afterwards it is back.
func TestServeStdioRedirect(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	saved := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = saved }()
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		b.ReadFrom(r)
		got <- b.String()
	}()
	err = stdoutTool(t).ServeStdio(context.Background(), &StdioOptions{Stdin: strings.NewReader(whereSession), RedirectStdout: true})
	if os.Stdout != w {
		t.Error("os.Stdout was not put back")
	}
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out := <-got; !strings.Contains(out, `"text":"stderr"`) {
		t.Errorf("os.Stdout was not standard error while serving:\n%s", out)
	}
}
