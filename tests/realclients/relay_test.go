package realclients

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// httpRelay serves a stdio MCP server over the streamable HTTP transport,
// on loopback only, for clients that speak nothing else (the conformance
// suite). Each initialize starts a new server process and session
// (Mcp-Session-Id); requests without a session go to one shared process,
// as stateless 2026-07-28 requests may. So does an initialize whose
// MCP-Protocol-Version header names revision 2026-07-28, where initialize
// is not a method; the server answers it.
//
// A reply is plain JSON unless the server sends notifications while the
// request runs and the client accepts text/event-stream: then the response
// becomes an SSE stream of those notifications, in the order the server
// wrote them, followed by the reply. notifications/progress goes to the
// request whose _meta.progressToken it names; any other notification to the
// oldest request still waiting for its reply. Notifications sent while no
// request waits are dropped (there is no standalone GET stream), and so
// are requests from the server to the client, which the stdio side never
// sees answered.
//
// The relay answers nothing itself: every reply is the server's, byte for
// byte. Only the HTTP status of a revision 2026-07-28 request (one without
// a session whose MCP-Protocol-Version header names no legacy revision)
// follows the server's JSON-RPC error, as that revision's HTTP transport
// asks (see modernHTTPStatus); a legacy reply is always 200.
type httpRelay struct {
	t   *testing.T
	cmd []string // the server command: program and arguments
	url string

	mu        sync.Mutex
	sessions  map[string]*stdioChild
	stateless *stdioChild
}

// startHTTPRelay starts a relay for mcpship with args and returns it; it
// stops with the test.
func startHTTPRelay(t *testing.T, args []string) *httpRelay {
	t.Helper()
	return startHTTPRelayCmd(t, append([]string{binPath}, args...))
}

// startHTTPRelayCmd starts a relay for the stdio server that cmd (program
// and arguments) runs.
func startHTTPRelayCmd(t *testing.T, cmd []string) *httpRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &httpRelay{t: t, cmd: cmd, sessions: map[string]*stdioChild{}, url: "http://" + ln.Addr().String() + "/mcp"}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", r.serveHTTP)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, c := range r.sessions {
			c.stop()
		}
		if r.stateless != nil {
			r.stateless.stop()
		}
	})
	return r
}

func (r *httpRelay) serveHTTP(w http.ResponseWriter, req *http.Request) {
	switch req.Method {
	case http.MethodPost:
	case http.MethodDelete:
		r.mu.Lock()
		c, ok := r.sessions[req.Header.Get("Mcp-Session-Id")]
		delete(r.sessions, req.Header.Get("Mcp-Session-Id"))
		r.mu.Unlock()
		if !ok {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		c.stop()
		w.WriteHeader(http.StatusOK)
		return
	default:
		// No server-initiated SSE stream: the transport allows 405.
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "only POST and DELETE", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 8<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		http.Error(w, "one JSON-RPC message per POST: "+err.Error(), http.StatusBadRequest)
		return
	}
	isRequest := msg.Method != "" && len(msg.ID) > 0 && string(msg.ID) != "null"

	var child *stdioChild
	session := req.Header.Get("Mcp-Session-Id")
	modern := session == "" && isModernHeader(req.Header.Get("Mcp-Protocol-Version"))
	switch {
	case msg.Method == "initialize" && !modern:
		if child, err = r.newChild(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		b := make([]byte, 16)
		rand.Read(b)
		session = hex.EncodeToString(b)
		r.mu.Lock()
		r.sessions[session] = child
		r.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", session)
	case session != "":
		r.mu.Lock()
		child = r.sessions[session]
		r.mu.Unlock()
		if child == nil {
			http.Error(w, "unknown or ended session", http.StatusNotFound)
			return
		}
	default:
		r.mu.Lock()
		if r.stateless == nil {
			r.stateless, err = r.newChild()
		}
		child = r.stateless
		r.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}

	if !isRequest {
		if err := child.send(body, nil); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	p := &pendingReply{
		id:    string(msg.ID),
		token: string(msg.Params.Meta.ProgressToken),
		reply: make(chan []byte, 1),
		notes: make(chan []byte, 256),
	}
	if err := child.send(body, p); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer child.forget(p)
	ctx, cancel := context.WithTimeout(req.Context(), 60*time.Second)
	defer cancel()
	sse := strings.Contains(req.Header.Get("Accept"), "text/event-stream")
	streaming := false
	event := func(b []byte) {
		if !streaming {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-cache")
			w.WriteHeader(http.StatusOK)
			streaming = true
		}
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
		http.NewResponseController(w).Flush()
	}
	for {
		select {
		case n := <-p.notes:
			if sse {
				event(n)
			}
		case b := <-p.reply:
			// The notifications written before the reply are all queued
			// by now: send them first.
			for drained := false; !drained; {
				select {
				case n := <-p.notes:
					if sse {
						event(n)
					}
				default:
					drained = true
				}
			}
			if streaming {
				event(b)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			if modern {
				w.WriteHeader(modernHTTPStatus(b))
			}
			w.Write(b)
			return
		case <-ctx.Done():
			if !streaming {
				http.Error(w, "the server did not reply", http.StatusGatewayTimeout)
			}
			return
		}
	}
}

// legacyRevisions are the protocol revisions whose HTTP transport answers
// every JSON-RPC reply, error or not, with 200.
var legacyRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// isModernHeader reports whether an MCP-Protocol-Version header value
// belongs to revision 2026-07-28 or later (or to a revision nobody knows,
// which the server answers with -32022).
func isModernHeader(v string) bool {
	return v != "" && !slices.Contains(legacyRevisions, v)
}

// modernHTTPStatus is the HTTP status of a plain JSON reply to a 2026-07-28
// request, from the JSON-RPC error code the server put in it. The
// conformance suite (0.2.0-alpha.12) quotes the transport's rules: "If the
// server does not implement the requested RPC method, it MUST respond with
// 404 Not Found and a JSON-RPC error with code -32601"; rejections of
// requests missing required _meta fields (-32602), an unsupported protocol
// version (-32022), a header mismatch (-32020) and a missing client
// capability (-32021) use 400 Bad Request. Any other reply is 200.
func modernHTTPStatus(reply []byte) int {
	var r struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(reply, &r) != nil || r.Error == nil {
		return http.StatusOK
	}
	switch r.Error.Code {
	case -32601:
		return http.StatusNotFound
	case -32700, -32600, -32602, -32020, -32021, -32022:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// pendingReply is a request waiting for its reply, with the notifications
// that belong to it meanwhile.
type pendingReply struct {
	id    string
	token string // its _meta.progressToken as JSON, or ""
	reply chan []byte
	notes chan []byte
}

// stdioChild is one server process behind the relay.
type stdioChild struct {
	cmd *exec.Cmd
	in  io.WriteCloser

	mu      sync.Mutex
	pending []*pendingReply // oldest first
	done    chan struct{}
}

func (r *httpRelay) newChild() (*stdioChild, error) {
	cmd := exec.Command(r.cmd[0], r.cmd[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &stdioChild{cmd: cmd, in: in, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		br := bufio.NewReader(out)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				c.deliver(bytes.TrimSpace(line))
			}
			if err != nil {
				return
			}
		}
	}()
	return c, nil
}

// deliver hands a reply to the request waiting for it and a notification
// to the request it belongs to (see httpRelay); anything else is dropped.
func (c *stdioChild) deliver(line []byte) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &msg) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case msg.Method == "" && len(msg.ID) > 0: // a reply
		for i, p := range c.pending {
			if p.id == string(msg.ID) {
				c.pending = append(c.pending[:i], c.pending[i+1:]...)
				p.reply <- line
				return
			}
		}
	case msg.Method != "" && len(msg.ID) == 0: // a notification
		for _, p := range c.pending {
			if msg.Method != "notifications/progress" || p.token == string(msg.Params.ProgressToken) {
				select {
				case p.notes <- line:
				default: // the client stopped reading: drop it
				}
				return
			}
		}
	}
}

// send writes one message to the server, after registering p when the
// message is a request.
func (c *stdioChild) send(body []byte, p *pendingReply) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p != nil {
		c.pending = append(c.pending, p)
	}
	line := append(bytes.TrimSpace(bytes.ReplaceAll(body, []byte("\n"), []byte(" "))), '\n')
	_, err := c.in.Write(line)
	return err
}

// forget stops routing messages to p, whose HTTP request has ended.
func (c *stdioChild) forget(p *pendingReply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, q := range c.pending {
		if q == p {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return
		}
	}
}

func (c *stdioChild) stop() {
	c.in.Close()
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
	}
	c.cmd.Wait()
}

// TestHTTPRelayModernStatus checks the HTTP status the relay gives replies:
// at revision 2026-07-28 the one the server's JSON-RPC error asks for, with
// the server's reply as the body; at a legacy revision always 200.
func TestHTTPRelayModernStatus(t *testing.T) {
	relay := startHTTPRelay(t, servers[0].args())
	meta := func(version string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientCapabilities":{}}`
	}
	post := func(header, session, body string) (int, string, http.Header) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, relay.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if header != "" {
			req.Header.Set("Mcp-Protocol-Version", header)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b), res.Header
	}
	for _, c := range []struct {
		name, header, body string
		status             int
		reply              string // in the body
	}{
		{"discover", rev20260728, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta(rev20260728) + `}}`, 200, `"supportedVersions"`},
		{"removed-method", rev20260728, `{"jsonrpc":"2.0","id":2,"method":"ping","params":{` + meta(rev20260728) + `}}`, 404, `"code":-32601`},
		{"initialize", rev20260728, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{` + meta(rev20260728) + `}}`, 404, `"code":-32601`},
		{"unsupported-version", "v999", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + meta("v999") + `}}`, 400, `"code":-32022`},
		{"missing-meta", rev20260728, `{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{}}`, 400, `"code":-32602`},
		{"tool-error", rev20260728, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"mcpship_version","arguments":[1],` + meta(rev20260728) + `}}`, 200, `"isError":true`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body, _ := post(c.header, "", c.body)
			if status != c.status || !strings.Contains(body, c.reply) {
				t.Errorf("HTTP %d %s, want %d and %s", status, body, c.status, c.reply)
			}
		})
	}
	t.Run("legacy", func(t *testing.T) {
		status, body, h := post("", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+rev20251125+`","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
		session := h.Get("Mcp-Session-Id")
		if status != 200 || session == "" {
			t.Fatalf("initialize: HTTP %d, session %q: %s", status, session, body)
		}
		post(rev20251125, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		status, body, _ = post(rev20251125, session, `{"jsonrpc":"2.0","id":2,"method":"no/such/method"}`)
		if status != 200 || !strings.Contains(body, `"code":-32601`) {
			t.Errorf("legacy unknown method: HTTP %d %s, want 200 and -32601", status, body)
		}
	})
}
