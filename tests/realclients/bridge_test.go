//go:build linux

package realclients

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bridge tests serve MCP servers others wrote, from the npm registry
// (the "servers" group of scripts/install-clients.sh), with "mcpship
// serve --transport http -- COMMAND", and talk to them with the Go SDK's
// streamable HTTP client (legacy sessions) and plain 2026-07-28 requests.

// bridged is mcpship serving a server command over HTTP.
type bridged struct {
	url string
	pid int // mcpship's
	log func() string
}

// serverBin returns the path of a program of the "servers" group.
func serverBin(t *testing.T, name string) string {
	t.Helper()
	return groupFile(t, "servers", filepath.Join("node_modules", ".bin", name))
}

// startBridged serves command over HTTP with flags, on a free loopback
// port; it stops with the test by SIGTERM and must then exit 0.
func startBridged(t *testing.T, env, flags []string, command ...string) *bridged {
	t.Helper()
	args := append([]string{"serve", "--transport", "http", "--listen", "127.0.0.1:0", "--log-level", "info"}, flags...)
	c := exec.Command(binPath, append(append(args, "--"), command...)...)
	c.Env = append(os.Environ(), env...)
	url, log := startServing(t, c, 2*time.Minute)
	return &bridged{url: url, pid: c.Process.Pid, log: log}
}

// connect opens a legacy session with the Go SDK's streamable HTTP client.
func (b *bridged) connect(t *testing.T, ctx context.Context, opts *mcp.ClientOptions, hdr http.Header) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-bridge", Version: "0"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: b.url}
	if hdr != nil {
		tr.HTTPClient = &http.Client{Transport: headerTransport{hdr}}
	}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev20251125})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, b.log())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// headerTransport adds headers to every request.
type headerTransport struct{ hdr http.Header }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.hdr {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// modern posts a tools/call of revision 2026-07-28 and returns the status
// and body.
func (b *bridged) modern(t *testing.T, hdr map[string]string, tool, args string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", b.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// childPids returns the pids of mcpship's children.
func childPids(pid int) []int {
	var pids []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
	}
	return pids
}

func text(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// TestBridgeEverything serves the reference server-everything: a legacy
// session sees its serverInfo, tools, resources and prompts, calls with
// progress, and many sessions at once; 2026-07-28 requests call it too;
// a crash in the middle of a call fails that call, and the server is
// started again.
func TestBridgeEverything(t *testing.T) {
	b := startBridged(t, nil, nil, serverBin(t, "mcp-server-everything"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var progress []float64
	cs := b.connect(t, ctx, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, req.Params.Progress)
		},
	}, nil)
	init := cs.InitializeResult()
	if init.ServerInfo == nil || init.ServerInfo.Name != "mcp-servers/everything" || !strings.Contains(init.Instructions, "Everything Server") {
		t.Errorf("initialize: serverInfo %+v, instructions %.60q", init.ServerInfo, init.Instructions)
	}
	if c := init.Capabilities; c == nil || c.Tools == nil || c.Resources == nil || c.Prompts == nil || c.Completions == nil {
		t.Errorf("capabilities %+v: want tools, resources, prompts and completions", init.Capabilities)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) < 10 {
		t.Fatalf("tools/list: %v, %d tools", err, len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "over the bridge"}})
	if err != nil || text(res) != "Echo: over the bridge" {
		t.Errorf("echo: %v %+v", err, res)
	}
	params := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 1, "steps": 4}}
	params.SetProgressToken("bridge-progress")
	if res, err := cs.CallTool(ctx, params); err != nil || !strings.Contains(text(res), "Long running operation completed") {
		t.Errorf("long-running operation: %v %+v", err, res)
	}
	testutil.WaitFor(t, 10*time.Second, "four progress notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(progress) >= 4
	})
	mu.Lock()
	if fmt.Sprint(progress) != "[1 2 3 4]" {
		t.Errorf("progress %v, want [1 2 3 4]", progress)
	}
	mu.Unlock()
	resources, err := cs.ListResources(ctx, nil)
	if err != nil || len(resources.Resources) == 0 {
		t.Fatalf("resources/list: %v %+v", err, resources)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: resources.Resources[0].URI})
	if err != nil || len(read.Contents) == 0 || read.Contents[0].Text == "" {
		t.Errorf("resources/read %s: %v %+v", resources.Resources[0].URI, err, read)
	}
	prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "args-prompt", Arguments: map[string]string{"city": "Lisbon"}})
	if err != nil || len(prompt.Messages) == 0 || !strings.Contains(fmt.Sprint(prompt.Messages[0].Content), "Lisbon") {
		t.Errorf("prompts/get: %v %+v", err, prompt)
	}

	// Sessions and stateless requests at once, on the one child.
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for i := 0; i < 8; i++ {
		s := b.connect(t, ctx, nil, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 5; n++ {
				a, c := 100*i, n
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": a, "b": c}})
				if want := fmt.Sprintf("The sum of %d and %d is %d.", a, c, a+c); err != nil || text(res) != want {
					errs <- fmt.Sprintf("session %d get-sum(%d, %d): %v %q, want %q", i, a, c, err, text(res), want)
				}
			}
		}()
	}
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := fmt.Sprintf("stateless %d", i)
			status, body := b.modern(t, nil, "echo", `{"message":"`+msg+`"}`)
			if status != 200 || !strings.Contains(body, `"text":"Echo: `+msg+`"`) || !strings.Contains(body, `"resultType":"complete"`) {
				errs <- fmt.Sprintf("%s: %d %s", msg, status, body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	// A crash in the middle of a call.
	children := childPids(b.pid)
	if len(children) != 1 {
		t.Fatalf("mcpship runs %v, want one child", children)
	}
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 30, "steps": 30}})
		done <- err
	}()
	time.Sleep(500 * time.Millisecond) // not a timing assertion: the kill may come before the call, which then fails the same way
	syscall.Kill(children[0], syscall.SIGKILL)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "the server command exited during the request") && !strings.Contains(err.Error(), "the server command is down") {
			t.Errorf("the call during the crash: %v, want the crash's error", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the call during the crash did not fail")
	}
	testutil.WaitFor(t, time.Minute, "server-everything to be started again", func() bool {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "again"}})
		return err == nil && text(res) == "Echo: again"
	})
	if now := childPids(b.pid); len(now) != 1 || now[0] == children[0] {
		t.Errorf("children after the crash %v, before %v", now, children)
	}
}

// TestBridgeEverythingEnvFromHeader passes a header to server-everything's
// environment, which its get-env tool prints: each value reaches its own
// child, and a request without the header gets no variable.
func TestBridgeEverythingEnvFromHeader(t *testing.T) {
	b := startBridged(t, []string{"USER_TOKEN=operator-own"}, []string{"--env-from-header", "X-User-Token=USER_TOKEN"}, serverBin(t, "mcp-server-everything"))
	for _, c := range []struct{ header, want, not string }{
		{"alice-1", `\"USER_TOKEN\": \"alice-1\"`, "bob-2"},
		{"bob-2", `\"USER_TOKEN\": \"bob-2\"`, "alice-1"},
		{"", "", "USER_TOKEN"},
	} {
		hdr := map[string]string{}
		if c.header != "" {
			hdr["X-User-Token"] = c.header
		}
		status, body := b.modern(t, hdr, "get-env", `{}`)
		if status != 200 || !strings.Contains(body, c.want) || strings.Contains(body, c.not) || strings.Contains(body, "operator-own") {
			t.Errorf("get-env with %q: %d %.300s", c.header, status, body)
		}
	}
	// A legacy session with the header gets the same child as stateless
	// requests with it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := b.connect(t, ctx, nil, http.Header{"X-User-Token": {"alice-1"}})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-env", Arguments: map[string]any{}})
	if err != nil || !strings.Contains(text(res), `"USER_TOKEN": "alice-1"`) {
		t.Errorf("legacy get-env: %v %.300s", err, text(res))
	}
	if n := len(childPids(b.pid)); n != 3 {
		t.Errorf("%d children, want 3 (none, alice, bob)", n)
	}
	for _, secret := range []string{"alice-1", "bob-2", "operator-own"} {
		if strings.Contains(b.log(), secret) {
			t.Errorf("%s is in the log:\n%s", secret, b.log())
		}
	}
}

// TestBridgeFilesystem serves the reference server-filesystem on a
// scratch directory, with a child per session: each legacy session lists
// and reads the directory through its own child.
func TestBridgeFilesystem(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("bridged file contents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := startBridged(t, nil, []string{"--child-per-session"}, serverBin(t, "mcp-server-filesystem"), dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := 0; i < 2; i++ {
		cs := b.connect(t, ctx, nil, nil)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_directory", Arguments: map[string]any{"path": dir}})
		if err != nil || !strings.Contains(text(res), "notes.txt") {
			t.Errorf("session %d list_directory: %v %+v", i, err, res)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": filepath.Join(dir, "notes.txt")}})
		if err != nil || !strings.Contains(text(res), "bridged file contents") {
			t.Errorf("session %d read_text_file: %v %+v", i, err, res)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/etc/passwd"}})
		if err != nil || !res.IsError {
			t.Errorf("session %d read outside the directory: %v %+v, want the server's refusal", i, err, res)
		}
	}
	// The first child (which serves stateless requests), and one per
	// session.
	if n := len(childPids(b.pid)); n != 3 {
		t.Errorf("%d children, want 3", n)
	}
}

// TestBridgeEverythingSampling serves server-everything to a client that
// can sample and elicit: its session gets a child of its own, started
// with those capabilities, and the child's sampling/createMessage and
// elicitation/create reach the client during the tool calls that send
// them, and the client's answers reach the child. With
// --child-per-session, the roots/list of get-roots-list does too. A
// client that declares none of them shares the first child.
func TestBridgeEverythingSampling(t *testing.T) {
	for _, perSession := range []bool{false, true} {
		t.Run(fmt.Sprintf("per-session=%v", perSession), func(t *testing.T) {
			var flags []string
			if perSession {
				flags = []string{"--child-per-session"}
			}
			b := startBridged(t, nil, flags, serverBin(t, "mcp-server-everything"))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-bridge", Version: "0"}, &mcp.ClientOptions{
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					prompt := ""
					if len(req.Params.Messages) > 0 {
						if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
							prompt = tc.Text
						}
					}
					return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "sampled: " + prompt}}, nil
				},
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "decline"}, nil
				},
			})
			client.AddRoots(&mcp.Root{URI: "file:///srv/project", Name: "project"})
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: b.url}, &mcp.ClientSessionOptions{ProtocolVersion: rev20251125})
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, b.log())
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "the bridge"}})
			if err != nil || !strings.Contains(text(res), "sampled: Resource trigger-sampling-request context: the bridge") {
				t.Errorf("trigger-sampling-request: %v %.300s\n%s", err, text(res), b.log())
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-elicitation-request", Arguments: map[string]any{}})
			if err != nil || !strings.Contains(text(res), "User declined to provide the requested information") {
				t.Errorf("trigger-elicitation-request: %v %.300s", err, text(res))
			}
			if perSession {
				res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-roots-list", Arguments: map[string]any{}})
				if err != nil || !strings.Contains(text(res), "file:///srv/project") {
					t.Errorf("get-roots-list: %v %.300s", err, text(res))
				}
			}
			// The first child and this session's.
			if n := len(childPids(b.pid)); n != 2 {
				t.Errorf("%d children, want 2", n)
			}
			// A plain session shares the first child, which offers no
			// sampling tool.
			plain := b.connect(t, ctx, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}, nil)
			tools, err := plain.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools.Tools {
				if tool.Name == "trigger-sampling-request" {
					t.Errorf("a client without sampling is offered trigger-sampling-request")
				}
			}
			if n := len(childPids(b.pid)); n != 2 && !perSession || n != 3 && perSession {
				t.Errorf("%d children after a plain session (per session: %v)", n, perSession)
			}
		})
	}
}

// postModern posts a 2026-07-28 request of method with params (to which
// it adds the _meta of that revision with the client capabilities caps)
// and decodes the reply.
func (b *bridged) postModern(t *testing.T, method, name string, params map[string]any, caps string) (int, map[string]any) {
	t.Helper()
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": json.RawMessage(caps)}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest("POST", b.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reply map[string]any
	out, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(out, &reply); err != nil {
		t.Fatalf("%s: %d %q: %v", method, resp.StatusCode, out, err)
	}
	return resp.StatusCode, reply
}

// TestBridgeEverythingInputRequired serves server-everything, which
// speaks only the legacy revisions, to a 2026-07-28 client that can
// sample and elicit: it lists the sampling tool the server offers such a
// client, and the server's sampling/createMessage and elicitation/create
// during a call come as an InputRequiredResult, whose retry with the
// answers gets the server's result.
func TestBridgeEverythingInputRequired(t *testing.T) {
	b := startBridged(t, nil, nil, serverBin(t, "mcp-server-everything"))
	const caps = `{"sampling":{},"elicitation":{}}`
	_, list := b.postModern(t, "tools/list", "", map[string]any{}, caps)
	if !strings.Contains(fmt.Sprint(list), "trigger-sampling-request") {
		t.Errorf("tools/list of a client that samples lacks trigger-sampling-request: %.500v", list)
	}
	for _, c := range []struct {
		tool, method string
		args         map[string]any
		answer       any
		want         string
	}{
		{"trigger-sampling-request", "sampling/createMessage", map[string]any{"prompt": "the bridge"},
			map[string]any{"role": "assistant", "model": "test-model", "content": map[string]any{"type": "text", "text": "sampled by the client"}}, "sampled by the client"},
		{"trigger-elicitation-request", "elicitation/create", map[string]any{},
			map[string]any{"action": "decline"}, "User declined to provide the requested information"},
	} {
		t.Run(c.tool, func(t *testing.T) {
			status, reply := b.postModern(t, "tools/call", c.tool, map[string]any{"name": c.tool, "arguments": c.args}, caps)
			res, _ := reply["result"].(map[string]any)
			reqs, _ := res["inputRequests"].(map[string]any)
			state, _ := res["requestState"].(string)
			if status != 200 || res["resultType"] != "input_required" || len(reqs) != 1 || state == "" {
				t.Fatalf("first round: %d %v, want one input request and a requestState\n%s", status, reply, b.log())
			}
			answers := map[string]any{}
			for key, ir := range reqs {
				if m, _ := ir.(map[string]any)["method"].(string); m != c.method {
					t.Errorf("input request %s is %s, want %s", key, m, c.method)
				}
				answers[key] = c.answer
			}
			status, reply = b.postModern(t, "tools/call", c.tool, map[string]any{"name": c.tool, "arguments": c.args,
				"inputResponses": answers, "requestState": state}, caps)
			res, _ = reply["result"].(map[string]any)
			if status != 200 || res["resultType"] != "complete" || !strings.Contains(fmt.Sprint(res["content"]), c.want) {
				t.Errorf("the retry: %d %v, want a result with %q", status, reply, c.want)
			}
		})
	}
}
