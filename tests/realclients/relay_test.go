package realclients

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// httpRelay serves a stdio MCP server over the streamable HTTP transport,
// on loopback only, for clients that speak nothing else (the conformance
// suite). Each initialize starts a new server process and session
// (Mcp-Session-Id); requests without a session go to one shared process,
// as stateless 2026-07-28 requests may. Replies are plain JSON, never an
// SSE stream, so notifications the server sends during a request are
// dropped: enough for scenarios that only look at the replies.
type httpRelay struct {
	t    *testing.T
	args []string
	url  string

	mu        sync.Mutex
	sessions  map[string]*stdioChild
	stateless *stdioChild
}

// startHTTPRelay starts a relay for mcpship with args and returns it; it
// stops with the test.
func startHTTPRelay(t *testing.T, args []string) *httpRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &httpRelay{t: t, args: args, sessions: map[string]*stdioChild{}, url: "http://" + ln.Addr().String() + "/mcp"}
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
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		http.Error(w, "one JSON-RPC message per POST: "+err.Error(), http.StatusBadRequest)
		return
	}
	isRequest := msg.Method != "" && len(msg.ID) > 0 && string(msg.ID) != "null"

	var child *stdioChild
	session := req.Header.Get("Mcp-Session-Id")
	switch {
	case msg.Method == "initialize":
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
	reply := make(chan []byte, 1)
	if err := child.send(body, &pendingReply{id: string(msg.ID), ch: reply}); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	ctx, cancel := context.WithTimeout(req.Context(), 60*time.Second)
	defer cancel()
	select {
	case b := <-reply:
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	case <-ctx.Done():
		http.Error(w, "the server did not reply", http.StatusGatewayTimeout)
	}
}

type pendingReply struct {
	id string
	ch chan []byte
}

// stdioChild is one mcpship process behind the relay.
type stdioChild struct {
	cmd *exec.Cmd
	in  io.WriteCloser

	mu      sync.Mutex
	pending map[string]chan []byte
	done    chan struct{}
}

func (r *httpRelay) newChild() (*stdioChild, error) {
	cmd := exec.Command(binPath, r.args...)
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
	c := &stdioChild{cmd: cmd, in: in, pending: map[string]chan []byte{}, done: make(chan struct{})}
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

// deliver hands a reply to the request waiting for it; other messages
// (notifications) are logged and dropped.
func (c *stdioChild) deliver(line []byte) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Method != "" || len(msg.ID) == 0 {
		return
	}
	c.mu.Lock()
	ch := c.pending[string(msg.ID)]
	delete(c.pending, string(msg.ID))
	c.mu.Unlock()
	if ch != nil {
		ch <- line
	}
}

// send writes one message to the server, after registering p when the
// message is a request.
func (c *stdioChild) send(body []byte, p *pendingReply) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p != nil {
		c.pending[p.id] = p.ch
	}
	line := append(bytes.TrimSpace(bytes.ReplaceAll(body, []byte("\n"), []byte(" "))), '\n')
	_, err := c.in.Write(line)
	return err
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
