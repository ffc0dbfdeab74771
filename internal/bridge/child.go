package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpship/mcpship/internal/mcpproxy"
	"github.com/mcpship/mcpship/internal/procgroup"
	"github.com/mcpship/mcpship/mcp"
)

// child is one server process, and the processes that replace it when it
// exits: while it is down, requests fail at once until its backoff has
// passed; then it is started again.
type child struct {
	b   *Bridge
	key string
	env []string

	// Under Bridge.mu.
	busy     int       // requests using it
	lastUsed time.Time // when the last of them ended

	mu        sync.Mutex
	client    *proc         // nil while down
	down      chan struct{} // closed when client goes down
	starting  chan struct{} // closed when the start in progress ends
	why       string        // why it is down: the exit, or the failed start
	retryAt   time.Time     // no start before this
	crashes   int           // exits in a row that came soon after their start
	startedAt time.Time
	stopped   bool // shut down: never started again
	timer     *time.Timer

	// session is the legacy session the child serves alone, if any; set
	// under Bridge.mu before it starts. level is the log level it was
	// last set to for its sessions, under Bridge.smu.
	session string
	level   int

	// caps are the client capabilities the child is started with: those
	// of the one session it serves, when it serves one; under Bridge.mu
	// until it starts.
	caps json.RawMessage

	activeMu sync.Mutex
	active   []*mcpproxy.Request // requests the child is answering
	asking   *pendingCall        // the call of a 2026-07-28 client it answers alone, if any

	tokens   sync.Map // progress token sent to the child → *progressReq
	nextTick atomic.Int64
}

// proc is a running child: its client and process id, and whether it
// speaks revision 2026-07-28 too (it answered server/discover so), so
// that requests of that revision reach it as they are.
type proc struct {
	*mcp.Client
	pid    int
	modern bool
}

// progressReq is a request whose client asked for progress.
type progressReq struct {
	r     *mcpproxy.Request
	token json.RawMessage // the client's own token
}

func (b *Bridge) newChild(key string, env []string) *child {
	return &child{b: b, key: key, env: env, lastUsed: time.Now(), level: noLevel}
}

// up records a started child and watches for its exit.
func (c *child) up(cl *proc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.client, c.down, c.startedAt = cl, make(chan struct{}), time.Now()
	go c.watch(cl, c.down)
}

// get returns the running client, starting one when the child is down
// and its backoff has passed; while it has not, it fails at once.
func (c *child) get(ctx context.Context) (*proc, error) {
	for {
		c.mu.Lock()
		switch {
		case c.client != nil:
			cl := c.client
			c.mu.Unlock()
			return cl, nil
		case c.stopped:
			c.mu.Unlock()
			return nil, &mcp.Error{Code: mcp.CodeInternalError, Message: "the server process was stopped; try again"}
		case c.starting != nil:
			ch := c.starting
			c.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if wait := time.Until(c.retryAt); wait > 0 {
			why := c.why
			c.mu.Unlock()
			return nil, &mcp.Error{Code: mcp.CodeInternalError, Message: fmt.Sprintf(
				"the server command is down (%s); it is started again in %v: try again then", why, wait.Round(time.Millisecond))}
		}
		ch := make(chan struct{})
		c.starting = ch
		c.mu.Unlock()
		cl, _, err := c.b.launch(c)
		c.mu.Lock()
		c.starting = nil
		close(ch)
		if err != nil {
			c.failed(err.Error())
			c.mu.Unlock()
			return nil, &mcp.Error{Code: mcp.CodeInternalError, Message: err.Error()}
		}
		if c.stopped {
			c.mu.Unlock()
			go stopProc(cl)
			return nil, &mcp.Error{Code: mcp.CodeInternalError, Message: "the server process was stopped; try again"}
		}
		c.mu.Unlock()
		c.up(cl)
		go c.restore()
	}
}

// failed records a start that failed or a child that exited, and sets
// the backoff; the caller holds mu.
func (c *child) failed(why string) {
	c.why = why
	sup := &c.b.sup
	if !c.startedAt.IsZero() && time.Since(c.startedAt) >= sup.stableAfter {
		c.crashes = 0
	}
	c.crashes++
	backoff := sup.maxBackoff
	if c.crashes < sup.crashLoop {
		backoff = min(sup.firstBackoff<<(c.crashes-1), sup.maxBackoff)
	}
	c.retryAt = time.Now().Add(backoff)
	c.startedAt = time.Time{}
	if c.crashes == sup.crashLoop {
		c.b.log.Error("the server command keeps failing; it is started again only every "+sup.maxBackoff.String(),
			"times", c.crashes, "last", why)
	} else {
		c.b.log.Warn("the server command is down; it is started again after a backoff", "why", why, "backoff", backoff)
	}
	if c == c.b.first && !c.stopped {
		// The first child is started again without waiting for a request,
		// so that the next one finds it up.
		if c.timer != nil {
			c.timer.Stop()
		}
		c.timer = time.AfterFunc(backoff, func() { _, _ = c.get(context.Background()) })
	}
}

// watch waits for the client to end and records the child down.
func (c *child) watch(cl *proc, down chan struct{}) {
	<-cl.Done()
	why := "it exited"
	if err := cl.Close(); err != nil {
		why = "it exited: " + err.Error()
	}
	procgroup.Kill(cl.pid)
	c.mu.Lock()
	if c.client == cl {
		c.client = nil
		if !c.stopped {
			c.failed(why)
		}
	}
	c.mu.Unlock()
	close(down)
}

// downed returns a channel closed once cl is recorded down, so that the
// error of a request it failed can say why.
func (c *child) downed(cl *proc) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client == cl {
		return c.down
	}
	closed := make(chan struct{})
	close(closed)
	return closed
}

// downReason says why the child is down and when it is started again.
func (c *child) downReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return "it was stopped"
	}
	return fmt.Sprintf("%s; it is started again in %v: try again then", c.why, time.Until(c.retryAt).Round(time.Millisecond))
}

// check pings a child whose request timed out: one that does not answer
// within a few seconds is hung, and is stopped (and started again).
func (c *child) check(cl *proc) {
	ctx, cancel := context.WithTimeout(context.Background(), min(c.b.opts.StartTimeout, c.b.sup.pingTimeout))
	defer cancel()
	if err := cl.Call(ctx, "ping", nil, nil); err == nil || ctx.Err() == nil {
		return
	}
	c.b.log.Warn("the server command does not answer ping either; it is stopped and started again")
	c.mu.Lock()
	if c.client == cl {
		c.client = nil
		c.failed("it stopped answering")
	}
	c.mu.Unlock()
	stopProc(cl)
}

// shutdown stops the child for good.
func (c *child) shutdown() {
	c.mu.Lock()
	c.stopped = true
	cl := c.client
	c.client = nil
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	if cl != nil {
		stopProc(cl)
	}
}

// stopProc closes the child's input and waits for it to exit, as the
// stdio transport's shutdown asks, then ends what is left of its process
// group.
func stopProc(cl *proc) {
	_ = cl.Close()
	procgroup.Kill(cl.pid)
}

// progress returns the request's params with its progress token, if it
// has one, replaced by one of the bridge's own, unique on this child,
// and that token.
func (c *child) progress(r *mcpproxy.Request, params json.RawMessage) (json.RawMessage, string) {
	var p map[string]json.RawMessage
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return params, ""
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) != nil || meta["progressToken"] == nil {
		return params, ""
	}
	token := "mcpship-" + strconv.FormatInt(c.nextTick.Add(1), 10)
	c.tokens.Store(token, &progressReq{r: r, token: meta["progressToken"]})
	meta["progressToken"], _ = json.Marshal(token)
	p["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(p)
	if err != nil {
		c.tokens.Delete(token)
		return params, ""
	}
	return b, token
}

func (c *child) forgetProgress(token string) { c.tokens.Delete(token) }

// notification passes the child's progress notifications to the request
// they are about, with the client's own token, and the others to the
// sessions they concern (see relay).
func (c *child) notification(method string, params json.RawMessage) {
	if method != "notifications/progress" {
		c.relay(method, params)
		return
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var token string
	if json.Unmarshal(p["progressToken"], &token) != nil {
		return
	}
	v, ok := c.tokens.Load(token)
	if !ok {
		return
	}
	pr := v.(*progressReq)
	p["progressToken"] = pr.token
	pr.r.Notify(method, p)
}

// callKey is the context key of the *call that a request forwarded to
// the child is made with.
type callKey struct{}

// call is a request forwarded to the child, with the progress token it
// was given there, if any.
type call struct {
	r     *mcpproxy.Request
	token string
}

// answered is called on the child's reading goroutine as soon as its
// answer to a call is read, before its next message: a forwarded
// request's log and progress messages end there.
func (c *child) answered(ctx context.Context) {
	cl, ok := ctx.Value(callKey{}).(*call)
	if !ok {
		return
	}
	c.leave(cl.r)
	if cl.token != "" {
		c.forgetProgress(cl.token)
	}
}

func (c *child) enter(r *mcpproxy.Request) {
	c.activeMu.Lock()
	c.active = append(c.active, r)
	c.activeMu.Unlock()
}

func (c *child) leave(r *mcpproxy.Request) {
	c.activeMu.Lock()
	c.active = slices.DeleteFunc(c.active, func(a *mcpproxy.Request) bool { return a == r })
	c.activeMu.Unlock()
}

// request passes a request of the child's (sampling, elicitation, roots)
// to the client, on the stream of the latest request the child is
// answering for it: a child that sends such requests serves one session
// (see childFor), and they come while it answers one of the session's.
func (c *child) request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	c.activeMu.Lock()
	if pc := c.asking; pc != nil {
		c.activeMu.Unlock()
		return pc.ask(ctx, method, params)
	}
	var r *mcpproxy.Request
	if n := len(c.active); n > 0 && c.caps != nil {
		r = c.active[n-1]
	}
	c.activeMu.Unlock()
	if r == nil {
		return nil, &mcp.Error{Code: mcp.CodeMethodNotFound, Message: fmt.Sprintf(
			"%s: no request of a client is open to carry it (mcpship passes a server's requests to a legacy client that declared the capability, during one of that client's requests)", method)}
	}
	return r.Request(ctx, method, params)
}
