package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpship/mcpship/internal/procgroup"
	"github.com/mcpship/mcpship/internal/sandbox"
)

// markerVar marks the processes of one worker, so that those that leave
// its process group are found and stopped with it (on Linux).
const markerVar = "MCPSHIP_CALL"

var seq atomic.Int64

// proc is one worker process. The fields from waiting on are guarded by
// the pool's mu.
type proc struct {
	p      *Pool
	pid    int
	marker string
	stamp  string // the pool's stamp when it started
	tmp    string // its private TMPDIR when confined
	stdin  *os.File
	errR   *os.File
	out    *os.File     // its stdout, read by watch
	read   *boundReader // counts what watch took from out
	turn   int64        // singleplex: offset on out where answers to the request in flight may begin
	reqLen int          // singleplex: the length of the request in flight
	wmu    sync.Mutex   // one request written at a time

	waiting   map[int32]chan *workResponse // in flight; nil: abandoned, its answer dropped
	nextID    int32
	sent      int
	started   bool        // it sent a response: it did start
	why       string      // why mcpship stops it; "" while it may run
	idle      *time.Timer // stops it after IdleTimeout without a call
	idleSince time.Time
	exitErr   error
	reason    string        // why it ended, for messages
	dead      chan struct{} // closed once it and its group are gone
	stopOnce  sync.Once

	emu     sync.Mutex    // the stderr fields
	sink    io.Writer     // a singleplex call's stderr
	syncReq chan struct{} // syncStderr waits for the reader to close it
	tail    []byte        // the last bytes of stderr, for messages
	errDone chan struct{}
}

// tailBytes is how much of a worker's stderr messages quote.
const tailBytes = 2048

// start starts a worker process with p.mu held.
func (p *Pool) start() (*proc, error) {
	pr := &proc{
		p:       p,
		marker:  fmt.Sprintf("%s=%d.w%d", markerVar, os.Getpid(), seq.Add(1)),
		stamp:   p.stamp,
		waiting: map[int32]chan *workResponse{},
		dead:    make(chan struct{}),
		errDone: make(chan struct{}),
	}
	cmd := &exec.Cmd{Path: p.cfg.Command[0], Args: p.cfg.Command, Env: append(slicesClone(p.cfg.Env), pr.marker), Dir: p.cfg.Dir}
	policy := p.cfg.Sandbox
	if policy != nil {
		tmp, err := sandbox.TempDir()
		if err != nil {
			return nil, fmt.Errorf("cannot start %s: its private TMPDIR: %v", p.cfg.Name, err)
		}
		pr.tmp = tmp
		cmd.Env = sandbox.Env(cmd.Env, tmp)
		policy = &sandbox.Policy{Writable: append(slicesClone(policy.Writable), tmp), Network: policy.Network}
	}
	var files []*os.File // the child's ends, closed once it started
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		for _, f := range files {
			f.Close()
		}
		pr.removeTmp()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	procgroup.Set(cmd)
	waited, err := sandbox.Start(cmd, policy)
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		pr.removeTmp()
		return nil, fmt.Errorf("cannot start %s: %v", p.cfg.Name, err)
	}
	pr.pid, pr.stdin, pr.errR, pr.out = cmd.Process.Pid, inW, errR, outR
	pr.read = &boundReader{r: outR}
	go pr.readStderr(p)
	p.stopping.Add(1)
	go pr.watch(p, waited)
	p.procs = append(p.procs, pr)
	p.cfg.Log.Debug("worker started", "worker", p.cfg.Name, "pid", pr.pid, "dir", p.cfg.Dir)
	return pr, nil
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// removeTmp removes the private TMPDIR of a confined worker, once it
// and its group are gone.
func (pr *proc) removeTmp() {
	if pr.tmp != "" {
		_ = os.RemoveAll(pr.tmp)
	}
}

// usable reports whether pr may take new requests. p.mu is held.
func (pr *proc) usable(p *Pool) bool {
	return !pr.dying() && pr.stamp == p.stamp && (p.cfg.MaxRequests == 0 || pr.sent < p.cfg.MaxRequests)
}

func (pr *proc) dying() bool {
	select {
	case <-pr.dead:
		return true
	default:
		return pr.why != ""
	}
}

// reserve takes a request slot on pr, with p.mu held.
func (pr *proc) reserve(p *Pool) (int32, chan *workResponse) {
	var id int32
	if p.cfg.Multiplex {
		pr.nextID++
		if pr.nextID <= 0 {
			pr.nextID = 1
		}
		id = pr.nextID
	}
	ch := make(chan *workResponse, 1)
	pr.waiting[id] = ch
	pr.reqLen = -1
	pr.sent++
	return id, ch
}

// call sends one request on the reserved slot id and waits for its
// response.
func (pr *proc) call(ctx context.Context, args []string, id int32, ch chan *workResponse, stderr io.Writer) (Response, error) {
	p := pr.p
	if !p.cfg.Multiplex {
		pr.emu.Lock()
		pr.sink = stderr
		pr.emu.Unlock()
		defer func() { // when the call ends without a response
			pr.emu.Lock()
			if pr.sink == stderr {
				pr.sink = nil
			}
			pr.emu.Unlock()
		}()
	}
	req := (&workRequest{Arguments: args, RequestID: id}).encode()
	if !p.cfg.Multiplex {
		// What the worker wrote before it has this request is no answer
		// to it: pending first, then what was read, so that no byte of
		// the answer is counted.
		turn := int64(pending(pr.out))
		turn += pr.read.n.Load()
		p.mu.Lock()
		pr.turn, pr.reqLen = turn, 0
		p.mu.Unlock()
	}
	err := pr.write(req)
	if !p.cfg.Multiplex {
		p.mu.Lock()
		pr.reqLen = len(req)
		p.mu.Unlock()
	}
	if err != nil {
		p.mu.Lock()
		pr.stop(p, "") // it does not read its requests: it is ending
		p.mu.Unlock()
	}
	select {
	case r := <-ch:
		pr.syncStderr()
		p.mu.Lock()
		p.finish(pr, id)
		p.mu.Unlock()
		return Response{ExitCode: int(r.ExitCode), Output: r.Output}, nil
	case <-pr.dead:
		select {
		case r := <-ch: // answered just before it ended
			return Response{ExitCode: int(r.ExitCode), Output: r.Output}, nil
		default:
		}
		return Response{}, pr.deathError(p)
	case <-ctx.Done():
		return Response{}, pr.cancel(ctx, id, ch)
	}
}

// finish ends the request id on pr, with p.mu held.
func (p *Pool) finish(pr *proc, id int32) {
	delete(pr.waiting, id)
	if len(pr.waiting) == 0 {
		p.settle(pr)
	} else {
		p.freed()
	}
}

// cancel ends the request id of a call whose ctx ended: a cancel request
// when the worker takes them, answered within procgroup.Grace; otherwise
// a singleplex worker is stopped and replaced, and a multiplex worker's
// answer is dropped when it comes.
func (pr *proc) cancel(ctx context.Context, id int32, ch chan *workResponse) error {
	p := pr.p
	if p.cfg.Cancellation {
		if err := pr.write((&workRequest{RequestID: id, Cancel: true}).encode()); err == nil {
			select {
			case <-ch:
				pr.syncStderr()
				p.mu.Lock()
				p.finish(pr, id)
				p.mu.Unlock()
				return ctx.Err()
			case <-pr.dead:
				return ctx.Err()
			case <-time.After(procgroup.Grace):
			}
		}
	}
	p.mu.Lock()
	if !p.cfg.Multiplex {
		pr.stop(p, "a call was cancelled, which leaves the worker's state unknown")
		p.mu.Unlock()
		<-pr.dead
		p.mu.Lock()
		if !p.closed && !p.fallback {
			if _, err := p.start(); err != nil {
				p.unavailable(err.Error())
			}
		}
		p.mu.Unlock()
		return ctx.Err()
	}
	switch pr.waiting[id] {
	case ch:
		pr.waiting[id] = nil // its slot is held until the answer comes
	case answered:
		p.finish(pr, id)
	}
	p.mu.Unlock()
	return ctx.Err()
}

// write sends one encoded request.
func (pr *proc) write(b []byte) error {
	pr.wmu.Lock()
	defer pr.wmu.Unlock()
	_, err := pr.stdin.Write(b)
	return err
}

// stop has mcpship end the worker, for the reason why ("" when it is
// ending by itself): its stdin is closed, its group gets SIGTERM, and
// SIGKILL after procgroup.Grace. p.mu is held.
func (pr *proc) stop(p *Pool, why string) {
	if pr.why == "" {
		pr.why = why
	}
	pr.stopOnce.Do(func() {
		if pr.idle != nil {
			pr.idle.Stop()
		}
		pr.stdin.Close()
		procgroup.Terminate(pr.pid)
		go func() {
			select {
			case <-pr.dead:
			case <-time.After(procgroup.Grace):
				procgroup.Kill(pr.pid)
			}
		}()
	})
}

// watch reads the worker's responses until its stdout ends or carries
// something that is not a WorkResponse, then stops it and its group and
// takes it out of the pool.
func (pr *proc) watch(p *Pool, waited <-chan error) {
	defer p.stopping.Done()
	reason, bad := pr.readResponses(p)
	p.mu.Lock()
	if bad { // mcpship ends it: the call has an error, not a cold run
		pr.stop(p, reason)
	}
	pr.stop(p, "")
	p.mu.Unlock()
	err := <-waited
	procgroup.Reap(pr.pid)
	procgroup.Sweep(pr.pid, pr.marker)
	pr.out.Close()
	select {
	case <-pr.errDone:
	case <-time.After(procgroup.Grace): // a process out of reach holds stderr
	}
	pr.errR.Close()
	pr.removeTmp()
	p.mu.Lock()
	defer p.mu.Unlock()
	pr.exitErr = err
	pr.reason = reason
	if err != nil {
		pr.reason += " (" + exitText(err) + ")"
	}
	close(pr.dead)
	p.gone(pr, pr.reason+pr.stderrNote())
}

// readResponses decodes the worker's stdout, one WorkResponse after
// another, and hands each to its call. It returns why it stopped, and
// whether the worker broke the protocol or a limit (bad).
//
// A response is read into memory only up to the pool's
// MaxResponseBytes, and a singleplex worker's response counts only if
// it began after its request was sent and the worker took some of it:
// a late second answer to an earlier request is out of turn, never the
// next call's result.
func (pr *proc) readResponses(p *Pool) (reason string, bad bool) {
	dec := json.NewDecoder(pr.read)
	for {
		pr.read.limit.Store(dec.InputOffset() + p.cfg.maxResponse())
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return "it closed its stdout or exited", false
		}
		if errors.Is(err, errTooBig) {
			return fmt.Sprintf("it wrote a response of more than %d bytes, over the output limit (%s)", p.cfg.maxResponse(), p.cfg.limitName()), true
		}
		var r workResponse
		if err == nil {
			err = json.Unmarshal(raw, &r)
		}
		if err != nil {
			return fmt.Sprintf("it wrote something other than a WorkResponse on stdout (%v)", err), true
		}
		r.normalize()
		begin := dec.InputOffset() - int64(len(raw))
		id := int32(r.RequestID)
		p.mu.Lock()
		ch, ok := pr.waiting[id]
		early := !p.cfg.Multiplex && (begin < pr.turn || pr.reqLen < 0 || pr.reqLen > 0 && pending(pr.stdin) >= pr.reqLen)
		switch {
		case !ok || ch == answered || early:
			p.mu.Unlock()
			return fmt.Sprintf("it answered out of turn: a response with requestId %d when that request was not in flight or already answered", r.RequestID), true
		case ch == nil: // an abandoned request: its slot frees up
			pr.started, p.failed = true, 0
			p.finish(pr, id)
		default:
			pr.started, p.failed = true, 0
			pr.waiting[id] = answered
			ch <- &r
		}
		p.mu.Unlock()
	}
}

// errTooBig ends a read over a boundReader's limit.
var errTooBig = errors.New("response over the limit")

// boundReader reads from r up to limit bytes in all, and counts them.
type boundReader struct {
	r     io.Reader
	n     atomic.Int64
	limit atomic.Int64
}

func (b *boundReader) Read(p []byte) (int, error) {
	n, limit := b.n.Load(), b.limit.Load()
	if n >= limit {
		return 0, errTooBig
	}
	if int64(len(p)) > limit-n {
		p = p[:limit-n]
	}
	m, err := b.r.Read(p)
	b.n.Add(int64(m))
	return m, err
}

// answered stands in the waiting map for a request whose response was
// handed to its call, which has yet to finish it.
var answered = make(chan *workResponse)

// readStderr copies the worker's stderr to the call it serves
// (singleplex) or to the log, keeping its tail for messages. It also
// answers syncStderr.
func (pr *proc) readStderr(p *Pool) {
	defer close(pr.errDone)
	log := &lineLog{p: p, pid: &pr.pid}
	buf := make([]byte, 32<<10)
	deliver := func(b []byte) {
		if len(b) == 0 {
			return
		}
		pr.emu.Lock()
		defer pr.emu.Unlock()
		if pr.sink != nil {
			_, _ = pr.sink.Write(b)
		} else {
			log.write(b)
		}
		pr.tail = append(pr.tail, b...)
		if len(pr.tail) > tailBytes {
			pr.tail = pr.tail[len(pr.tail)-tailBytes:]
		}
	}
	for {
		n, err := pr.errR.Read(buf)
		deliver(buf[:n])
		if errors.Is(err, os.ErrDeadlineExceeded) { // syncStderr woke the read
			err = nil
		}
		pr.emu.Lock()
		req := pr.syncReq
		pr.emu.Unlock()
		if req != nil {
			// Reset the deadline before taking the request: a request made
			// after this sets it again and wakes the next read.
			_ = pr.errR.SetReadDeadline(time.Time{})
			pr.emu.Lock()
			req, pr.syncReq = pr.syncReq, nil
			pr.emu.Unlock()
			for left := pending(pr.errR); left > 0 && err == nil; left -= n {
				n, err = pr.errR.Read(buf[:min(left, len(buf))])
				deliver(buf[:n])
			}
			pr.emu.Lock()
			pr.sink = nil // what comes after the response is no call's
			pr.emu.Unlock()
			close(req)
		}
		if err != nil {
			log.flush()
			return
		}
	}
}

// syncStderr hands the call what the worker wrote to stderr before its
// response and then detaches the call's stderr. Only the reader knows
// which bytes it has taken from the pipe, so it does this itself: woken
// by a read deadline in the past, it reads what the pipe still holds
// (FIONREAD) before it answers. Where pipes take no deadline (Windows),
// the call's stderr is detached without that.
func (pr *proc) syncStderr() {
	if pr.p.cfg.Multiplex { // its stderr is the log's
		return
	}
	req := make(chan struct{})
	pr.emu.Lock()
	pr.syncReq = req
	pr.emu.Unlock()
	if err := pr.errR.SetReadDeadline(time.Now()); err != nil {
		pr.emu.Lock()
		pr.syncReq, pr.sink = nil, nil
		pr.emu.Unlock()
		return
	}
	select {
	case <-req:
	case <-pr.errDone:
	case <-time.After(procgroup.Grace): // the reader is stuck writing to the log
	}
}

// deathError says why the worker ended during a call; ErrUnavailable
// when it never answered a request, so the call runs cold.
func (pr *proc) deathError(p *Pool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case pr.why == whyClosing:
		return errClosed
	case !pr.started && pr.why == "":
		return ErrUnavailable
	}
	return fmt.Errorf("the worker %s (pid %d) ended during the call: %s, so the call has no result; mcpship starts a new worker for the next call%s",
		p.cfg.Name, pr.pid, pr.reason, pr.stderrNote())
}

// stderrNote quotes the end of the worker's stderr, or is "".
func (pr *proc) stderrNote() string {
	pr.emu.Lock()
	defer pr.emu.Unlock()
	t := strings.TrimSpace(strings.ToValidUTF8(string(pr.tail), "\uFFFD"))
	if t == "" {
		return ""
	}
	return "; the end of its stderr:\n" + t
}

// exitText describes a Wait error: "exit status 3", "signal: killed".
func exitText(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.String()
	}
	return err.Error()
}

// lineLog writes a worker's stderr to the pool's log, a record per line.
type lineLog struct {
	p    *Pool
	pid  *int
	line []byte
}

// maxLogLine bounds one logged line.
const maxLogLine = 4096

func (l *lineLog) write(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.line = append(l.line, b[:min(len(b), maxLogLine-len(l.line))]...)
			return
		}
		l.line = append(l.line, b[:min(i, maxLogLine-len(l.line))]...)
		l.flush()
		b = b[i+1:]
	}
}

func (l *lineLog) flush() {
	if s := strings.TrimRight(string(l.line), "\r"); strings.TrimSpace(s) != "" {
		l.p.cfg.Log.Info("worker stderr", "worker", l.p.cfg.Name, "pid", *l.pid, "line", strings.ToValidUTF8(s, "\uFFFD"))
	}
	l.line = l.line[:0]
}
