//go:build linux

package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// The tests' children are this test binary started again as a stdio MCP
// server: "TEST_BINARY childArg MODE [ARGS...]", which TestMain runs
// instead of the tests.
const childArg = "bridge-test-child"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == childArg {
		os.Exit(runChild(os.Args[2], os.Args[3:]))
	}
	os.Exit(m.Run())
}

// runChild serves as the child of mode:
//   - serve [MARK]: a server on the mcp package with the tools echo,
//     whoami, env, crash, slow, progress and noise; with MARK, a file
//     that, once it exists, makes every later start fail with exit
//     status 3, as a server whose restart keeps failing;
//   - garbage: serve, after lines on stdout that are not JSON-RPC;
//   - hang: answers initialize, then nothing, reading nothing either;
//   - silent: never answers initialize;
//   - exit: writes a line on stderr and exits 1 before initialize;
//   - sampler: a server written by hand whose tool "ask" sends the client
//     sampling/createMessage and answers with what came back.
func runChild(mode string, args []string) int {
	switch mode {
	case "serve", "garbage":
		if len(args) > 0 {
			if _, err := os.Stat(args[0]); err == nil {
				fmt.Fprintln(os.Stderr, "child: refusing to start again")
				return 3
			}
			os.WriteFile(args[0], nil, 0o644)
		}
		if mode == "garbage" {
			os.Stdout.WriteString("starting up (this is not JSON)\n{\"half\":\n")
		}
		return serveChild()
	case "hang", "silent":
		in := bufio.NewReader(os.Stdin)
		line, _ := in.ReadString('\n')
		if mode == "hang" {
			fmt.Fprintf(os.Stderr, "hang: pid %d\n", os.Getpid())
			var m struct{ ID json.RawMessage }
			json.Unmarshal([]byte(line), &m)
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hang","version":"1"}}}`+"\n", m.ID)
		}
		time.Sleep(time.Hour)
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "child: no luck today")
		return 1
	case "sampler":
		return sampler()
	}
	fmt.Fprintln(os.Stderr, "child: unknown mode", mode)
	return 2
}

func serveChild() int {
	srv := mcp.NewServer(mcp.Implementation{Name: "child", Version: "1.0.0"}, &mcp.ServerOptions{Instructions: "a test child"})
	object := json.RawMessage(`{"type":"object"}`)
	add := func(name string, h mcp.ToolHandler) {
		if err := srv.AddTool(mcp.Tool{Name: name, InputSchema: object}, h); err != nil {
			panic(err)
		}
	}
	add("echo", func(_ context.Context, r *mcp.CallRequest) (*mcp.CallToolResult, error) {
		var in struct{ Text string }
		if err := r.Bind(&in); err != nil {
			return nil, err
		}
		return mcp.TextResult(in.Text), nil
	})
	add("whoami", func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
		token, set := os.LookupEnv("API_TOKEN")
		if !set {
			token = "(unset)"
		}
		return mcp.TextResult(fmt.Sprintf("pid=%d API_TOKEN=%s", os.Getpid(), token)), nil
	})
	add("env", func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult(strings.Join(os.Environ(), "\n")), nil
	})
	add("crash", func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
		os.Exit(2)
		return nil, nil
	})
	add("slow", func(ctx context.Context, _ *mcp.CallRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	add("progress", func(_ context.Context, r *mcp.CallRequest) (*mcp.CallToolResult, error) {
		r.Progress(1, 2, "half")
		return mcp.TextResult("done"), nil
	})
	add("noise", func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
		os.Stdout.WriteString("debug: about to answer\n")
		return mcp.TextResult("quiet again"), nil
	})
	if err := srv.ServeStdio(context.Background(), nil); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// sampler serves the tool "ask", whose call sends the client a
// sampling/createMessage request and answers with the text of the
// client's result, or its error.
func sampler() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	send := func(v any) {
		b, _ := json.Marshal(v)
		os.Stdout.Write(append(b, '\n'))
	}
	var call json.RawMessage // the id of the call of ask waiting for the client
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result struct {
				Content struct{ Text string }
			}
			Error *struct{ Message string }
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		reply := func(result any) { send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result}) }
		switch {
		case m.Method == "initialize":
			reply(map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]string{"name": "sampler", "version": "1"}})
		case m.Method == "tools/call":
			call = m.ID
			send(map[string]any{"jsonrpc": "2.0", "id": "ask-1", "method": "sampling/createMessage",
				"params": map[string]any{"messages": []any{}, "maxTokens": 10}})
		case m.Method == "" && string(m.ID) == `"ask-1"`:
			text := "the client said: " + m.Result.Content.Text
			if m.Error != nil {
				text = "the client refused: " + m.Error.Message
			}
			send(map[string]any{"jsonrpc": "2.0", "id": call, "result": map[string]any{"content": []any{map[string]string{"type": "text", "text": text}}}})
		case m.ID != nil && m.Method != "":
			reply(map[string]any{})
		}
	}
	return 0
}
