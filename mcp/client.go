package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpship/mcpship/internal/mcpproxy"
)

// ErrConnectionClosed is the error, wrapped, that a [Client]'s calls return
// once the connection has ended: the server closed its output (a started
// command usually because it exited), writing to it found the other end
// closed, or [Client.Close] was called. Test for it with [errors.Is].
var ErrConnectionClosed = errors.New("mcp: connection closed")

// ClientOptions tune a [Client]. The zero value of each field picks the
// default documented on it.
type ClientOptions struct {
	// Info names the client in initialize. Default "mcpship-client".
	Info Implementation
	// MaxMessageBytes is the longest message read. Default
	// [DefaultMaxMessageBytes].
	MaxMessageBytes int
	// OnNotification, when set, receives every notification the server
	// sends, on the client's reading goroutine.
	OnNotification func(method string, params json.RawMessage)
	// Strict ends the connection with an error when the server writes a
	// line that is not a JSON-RPC message, as strict clients do; otherwise
	// such lines are skipped.
	Strict bool
	// Logger, when set, gets a warning for each line the server writes
	// that is not a JSON-RPC message and is skipped. Default: none.
	Logger *slog.Logger
	// TerminateTimeout is how long [Client.Close] waits for a started
	// command to exit after closing its input, and again after SIGTERM,
	// before killing it. Default 2s.
	TerminateTimeout time.Duration

	// onRequest and onResponse are mcpship's own hooks, which
	// internal/mcpproxy sets (see mcpproxy.OnRequest and OnResponse).
	onRequest  mcpproxy.OnRequest
	onResponse mcpproxy.OnResponse
}

// Client talks to one MCP server over a pair of streams ([NewClient]), or
// to a server command it started ([StartCommand]). Its methods are safe for
// concurrent use.
type Client struct {
	opts   ClientOptions
	out    *lineWriter
	closer io.Closer // the server's input, closed by Close
	nextID atomic.Int64

	mu      sync.Mutex
	pending map[int64]*pendingCall
	readErr error
	done    chan struct{} // closed when the reading goroutine ends

	cmd      *exec.Cmd
	stderr   *tail
	exited   chan struct{} // closed when the command has exited, or Serve returned (Server.Connect)
	waitErr  error
	orphaned atomic.Bool // the command exited, but its output stayed open
}

// NewClient returns a client that writes requests to w and reads the
// server's messages from r. It closes w on [Client.Close] when w is an
// [io.Closer].
func NewClient(r io.Reader, w io.Writer, opts *ClientOptions) *Client {
	c := &Client{out: &lineWriter{w: w}, pending: map[int64]*pendingCall{}, done: make(chan struct{})}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Info.Name == "" {
		c.opts.Info = Implementation{Name: "mcpship-client", Version: "1"}
	}
	if c.opts.MaxMessageBytes <= 0 {
		c.opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.opts.TerminateTimeout <= 0 {
		c.opts.TerminateTimeout = 2 * time.Second
	}
	if wc, ok := w.(io.Closer); ok {
		c.closer = wc
	}
	go c.readLoop(r)
	return c
}

// StartCommand starts cmd as an MCP server over its standard input and
// output and returns a client connected to it. The last few kilobytes
// the server writes to standard error are kept for [Client.Stderr], and
// passed on to cmd.Stderr when it is set. [Client.Close] stops the
// command.
func StartCommand(cmd *exec.Cmd, opts *ClientOptions) (*Client, error) {
	if cmd.Stdout != nil {
		return nil, errors.New("mcp: StartCommand: Stdout already set")
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// The server's output is a pipe of our own, not StdoutPipe's, so that
	// the command is waited for as soon as it exits, even while a process
	// it started holds its output open, and its last words are still read.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	t := &tail{max: 4 << 10, w: cmd.Stderr}
	cmd.Stderr = t
	if cmd.WaitDelay == 0 {
		// Do not wait forever for a grandchild that inherited stderr.
		cmd.WaitDelay = time.Second
	}
	err = cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		return nil, err
	}
	c := NewClient(stdout, stdin, opts)
	c.cmd, c.stderr, c.exited = cmd, t, make(chan struct{})
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
		// What the server wrote before it exited is read to its end,
		// unless a process it left holds its output open: then the
		// connection ends after TerminateTimeout.
		select {
		case <-c.done:
		case <-time.After(c.opts.TerminateTimeout):
			c.orphaned.Store(true)
		}
		stdout.Close()
	}()
	return c, nil
}

// Stderr returns the end of what a started server wrote to standard error.
func (c *Client) Stderr() string {
	if c.stderr == nil {
		return ""
	}
	return c.stderr.String()
}

func (c *Client) readLoop(r io.Reader) {
	lr := newLineReader(r, c.opts.MaxMessageBytes)
	var err error
	for {
		var line []byte
		var tooLong bool
		line, tooLong, err = lr.next()
		if err != nil {
			break
		}
		if tooLong {
			err = fmt.Errorf("mcp: the server sent a message over %d bytes", c.opts.MaxMessageBytes)
			break
		}
		var m message
		if json.Unmarshal(line, &m) != nil || m.JSONRPC != "2.0" {
			if c.opts.Strict {
				err = fmt.Errorf("mcp: the server wrote a line that is not a JSON-RPC message: %.100q", line)
				break
			}
			if c.opts.Logger != nil {
				c.opts.Logger.Warn("the server wrote a line that is not a JSON-RPC message; it was skipped", "line", fmt.Sprintf("%.100q", line))
			}
			continue
		}
		if m.Method != "" {
			switch {
			case m.ID != nil && c.opts.onRequest != nil && m.Method != "ping":
				go c.serve(bytes.Clone(m.ID), m.Method, bytes.Clone(m.Params))
			case m.ID != nil:
				go c.answer(m.ID, m.Method)
			case c.opts.OnNotification != nil:
				c.opts.OnNotification(m.Method, bytes.Clone(m.Params))
			}
			continue
		}
		var id int64
		if json.Unmarshal(m.ID, &id) != nil {
			continue
		}
		c.mu.Lock()
		pc := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if pc != nil {
			if c.opts.onResponse != nil {
				c.opts.onResponse(pc.ctx)
			}
			pc.ch <- &m
		}
	}
	switch {
	case errors.Is(err, io.EOF):
		err = fmt.Errorf("%w: the server closed its output", ErrConnectionClosed)
	case c.orphaned.Load() && errors.Is(err, os.ErrClosed):
		err = fmt.Errorf("%w: the server exited, and a process it started holds its output open", ErrConnectionClosed)
	}
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
	close(c.done)
}

// Done returns a channel that is closed when the connection has ended:
// the server closed its output (a started command usually because it
// exited), or it wrote a message over the limit, or [Client.Close] was
// called. Calls fail at once after that.
func (c *Client) Done() <-chan struct{} { return c.done }

// serve answers a request from the server with onRequest.
func (c *Client) serve(id json.RawMessage, method string, params json.RawMessage) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := c.opts.onRequest(ctx, method, params)
	r := &response{JSONRPC: "2.0", ID: msgID{raw: string(id)}}
	var e *Error
	switch {
	case errors.As(err, &e):
		r.Error = e
	case err != nil:
		r.Error = errorf(CodeInternalError, "%v", err)
	case len(res) == 0:
		r.Result = struct{}{}
	default:
		r.Result = res
	}
	_ = c.out.write(r)
}

// answer replies to a request from the server: ping with an empty result,
// as both sides must, and anything else with [CodeMethodNotFound], since
// the client declares no capabilities (roots, sampling, elicitation). A
// server that waits for an answer is not left waiting.
func (c *Client) answer(id json.RawMessage, method string) {
	r := &response{JSONRPC: "2.0", ID: msgID{raw: string(id)}}
	if method == "ping" {
		r.Result = struct{}{}
	} else {
		r.Error = errorf(CodeMethodNotFound, "the client does not support %s", method)
	}
	_ = c.out.write(r) // a connection that has ended is reported by the calls
}

// Call sends a request and decodes its result into result (which may be
// nil). A JSON-RPC error comes back as an [*Error]; a connection that has
// ended, as [ErrConnectionClosed]. When ctx ends first, Call sends
// notifications/cancelled for the request and returns ctx.Err().
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	id := c.nextID.Add(1)
	ch := make(chan *message, 1)
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		return err
	}
	c.pending[id] = &pendingCall{ch: ch, ctx: ctx}
	c.mu.Unlock()
	if err := c.out.write(&request{JSONRPC: "2.0", ID: id, Method: method, Params: params}); err != nil {
		c.forget(id)
		return fmt.Errorf("mcp: sending %s: %w", method, closedError(err))
	}
	select {
	case m := <-ch:
		if len(m.Error) > 0 {
			var e Error
			if err := json.Unmarshal(m.Error, &e); err != nil {
				return fmt.Errorf("mcp: %s: malformed error: %s", method, m.Error)
			}
			return &e
		}
		if result == nil {
			return nil
		}
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("mcp: %s: decoding the result: %v", method, err)
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		_ = c.Notify("notifications/cancelled", map[string]any{"requestId": id, "reason": ctx.Err().Error()})
		return ctx.Err()
	case <-c.done:
		c.mu.Lock()
		err := c.readErr
		c.mu.Unlock()
		return fmt.Errorf("mcp: %s: %w", method, err)
	}
}

// pendingCall is a call awaiting its answer: where the answer goes, and
// the call's context, for onResponse.
type pendingCall struct {
	ch  chan *message
	ctx context.Context
}

func (c *Client) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	if err := c.out.write(&notification{JSONRPC: "2.0", Method: method, Params: params}); err != nil {
		return fmt.Errorf("mcp: sending %s: %w", method, closedError(err))
	}
	return nil
}

// closedError adds [ErrConnectionClosed] to a write error that says the
// connection has ended: a broken pipe, or a stream already closed.
func closedError(err error) error {
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe) {
		return fmt.Errorf("%w: %w", ErrConnectionClosed, err)
	}
	return err
}

// Initialize performs the handshake at protocol revision version
// ([LatestLegacyVersion] when empty), naming the client as
// [ClientOptions.Info], and sends notifications/initialized.
func (c *Client) Initialize(ctx context.Context, version string) (*InitializeResult, error) {
	if version == "" {
		version = LatestLegacyVersion
	}
	var res InitializeResult
	err := c.Call(ctx, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      c.opts.Info,
	}, &res)
	if err != nil {
		return nil, err
	}
	return &res, c.Notify("notifications/initialized", nil)
}

// ListTools returns every tool the server has, following pagination.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	var all []Tool
	cursor := ""
	for page := 0; ; page++ {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		var res struct {
			Tools      []Tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := c.Call(ctx, "tools/list", params, &res); err != nil {
			return nil, err
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			return all, nil
		}
		if res.NextCursor == cursor || page > 10000 {
			return nil, fmt.Errorf("mcp: tools/list: the server's nextCursor does not advance (%q)", res.NextCursor)
		}
		cursor = res.NextCursor
	}
}

// CallTool calls a tool with arguments (any value that encodes to a JSON
// object, or nil).
func (c *Client) CallTool(ctx context.Context, name string, arguments any) (*CallToolResult, error) {
	if arguments == nil {
		arguments = struct{}{}
	}
	var res CallToolResult
	if err := c.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": arguments}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Close closes the server's input. For a started command it then waits
// for the command to exit, sending SIGTERM and then SIGKILL when it takes
// longer than [ClientOptions.TerminateTimeout], as the stdio transport's
// shutdown asks, and ends the connection at most TerminateTimeout later,
// even when a process the command started holds its output open (Close
// stops the command, not what it started); it returns the command's exit
// error, if any. For a client of [Server.Connect] it waits for the session
// to end and returns [Server.Serve]'s error, if any.
func (c *Client) Close() error {
	var err error
	if c.closer != nil {
		err = c.closer.Close()
	}
	if c.cmd == nil {
		if c.exited == nil {
			return err
		}
		<-c.exited
		if c.waitErr != nil {
			return c.waitErr
		}
		return err
	}
	wait := func() bool {
		select {
		case <-c.exited:
			return true
		case <-time.After(c.opts.TerminateTimeout):
			return false
		}
	}
	if !wait() {
		if c.cmd.Process.Signal(syscall.SIGTERM) != nil || !wait() {
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	}
	select {
	case <-c.done:
	case <-time.After(2 * c.opts.TerminateTimeout): // a pipe whose Close cannot stop a read
	}
	return c.waitErr
}

// tail keeps the last max bytes written to it, and passes them on to w
// when it is not nil.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
	w   io.Writer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
