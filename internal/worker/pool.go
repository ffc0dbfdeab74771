// Package worker keeps programs that boot slowly warm between calls, as
// persistent workers: long-lived processes that speak Bazel's JSON
// persistent-worker protocol (bazel.build/remote/creating). Each call is
// one WorkRequest, a JSON object with the call's "arguments" written to
// the worker's stdin; the worker answers with one WorkResponse, a JSON
// object with "exitCode" and "output", on its stdout. A singleplex worker
// takes one request at a time, with requestId 0; a multiplex worker takes
// several at once, each with its own requestId. A worker that supports
// cancellation gets a cancel request when a call is cancelled.
//
// A [Pool] keeps the workers of one [Config]: a command, working
// directory and environment. It starts a worker only when every one is
// busy, up to Config.MaxInstances, and replaces one when it dies, when
// its executable or a file of Config.RestartOn changes, after
// Config.MaxRequests requests, and when it was idle for
// Config.IdleTimeout. Workers run in process groups of their own
// ([procgroup]), which die with mcpship. A worker that cannot start makes
// [Pool.Do] return [ErrUnavailable], so that the caller runs the command
// cold. A [Set] holds the pools of one manifest.
package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpship/mcpship/internal/sandbox"
)

// Config describes the workers of a pool.
type Config struct {
	// Command is the worker's argv: the program's resolved path, then
	// its arguments, such as the flag --persistent_worker.
	Command []string
	// Name names the worker in messages, such as "rigor --persistent_worker".
	Name string
	// Dir is the working directory; "" is mcpship's own.
	Dir string
	// Env is the worker's whole environment, as NAME=VALUE entries.
	Env []string
	// MaxInstances bounds a singleplex worker's processes, and the
	// requests a multiplex worker's one process has in flight. At least 1.
	MaxInstances int
	// Multiplex workers take several requests at once, by requestId.
	Multiplex bool
	// Cancellation says that the worker takes cancel requests. Without
	// it, a cancelled call stops a singleplex worker (its state is
	// unknown) and starts another; a multiplex worker's answer is
	// dropped when it comes.
	Cancellation bool
	// MaxRequests is how many requests a worker serves before it is
	// replaced; 0 is no limit.
	MaxRequests int
	// IdleTimeout stops a worker that served no request for that long; 0
	// keeps it.
	IdleTimeout time.Duration
	// RestartOn are absolute paths of files whose change (by stat)
	// replaces the workers, such as lockfiles and configs: a folder
	// stands for everything under it, and a pattern of filepath.Match
	// (see [CheckPattern]) for the paths it matches.
	RestartOn []string
	// MaxResponseBytes bounds what is read of one WorkResponse; a worker
	// that writes more ends the call with an error and is replaced. 0 is
	// [DefaultMaxResponseBytes].
	MaxResponseBytes int64
	// LimitName names the setting behind MaxResponseBytes in messages,
	// such as "maxOutputBytes in mcpship.json".
	LimitName string
	// Log receives what workers write to stderr outside a call, and why
	// workers start, stop or cannot start. nil discards it.
	Log *slog.Logger
	// Sandbox confines each worker process (package sandbox), which then
	// also gets a private TMPDIR of its own, removed when it ends. nil
	// runs workers unconfined.
	Sandbox *sandbox.Policy
}

// DefaultMaxResponseBytes bounds a WorkResponse when the Config does not.
const DefaultMaxResponseBytes = 2<<20 + 64<<10

// ResponseBytes is the bound on a WorkResponse for a call whose output
// is kept up to maxOutput bytes: twice that, as JSON escapes may double
// it, and room for the other fields.
func ResponseBytes(maxOutput int) int64 { return 2*int64(maxOutput) + 64<<10 }

func (c *Config) maxResponse() int64 {
	if c.MaxResponseBytes > 0 {
		return c.MaxResponseBytes
	}
	return DefaultMaxResponseBytes
}

func (c *Config) limitName() string {
	if c.LimitName != "" {
		return c.LimitName
	}
	return "worker.Config.MaxResponseBytes"
}

// key identifies the pool of a Config.
func (c *Config) key() string {
	env := slices.Clone(c.Env)
	slices.Sort(env)
	parts := [][]string{c.Command, {c.Dir}, env, c.RestartOn, {strconv.FormatInt(c.maxResponse(), 10)}}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(strings.Join(p, "\x00"))
		b.WriteString("\x01")
	}
	fmt.Fprint(&b, c.MaxInstances, c.MaxRequests, c.IdleTimeout, c.Multiplex, c.Cancellation)
	if c.Sandbox != nil {
		fmt.Fprint(&b, "\x01sandbox", c.Sandbox.Network, c.Sandbox.Writable)
	}
	return b.String()
}

// Response is a worker's answer to one call.
type Response struct {
	// ExitCode is the WorkResponse's exitCode: what the command would
	// have exited with, run cold.
	ExitCode int
	// Output is the WorkResponse's output: what the command would have
	// printed on stdout.
	Output string
}

// ErrUnavailable is what [Pool.Do] returns when the worker could not
// start: it could not be run, or it ended or broke the protocol before
// its first response. The caller runs the command cold. After two such
// workers in a row, or a program that cannot be run, the pool says
// ErrUnavailable at once, and logs so once, until the executable or a
// RestartOn file changes.
var ErrUnavailable = errors.New("the worker could not start")

// whyClosing is why workers stop when the pool closes.
const whyClosing = "mcpship is stopping"

// errClosed is what Do returns once the pool is closed.
var errClosed = errors.New("mcpship is shutting down; the worker takes no more calls")

// Pool keeps the workers of one Config. Its methods are safe for
// concurrent use.
type Pool struct {
	cfg   Config
	paths []string // the executable, then RestartOn: what a stamp covers

	mu       sync.Mutex
	procs    []*proc
	stamp    string
	fallback bool // the worker could not start
	said     bool // the fallback was logged
	failed   int  // workers in a row that died before their first response
	closed   bool
	evicted  bool          // closed by a Set that keeps too many pools
	changed  chan struct{} // closed and replaced when a slot frees up
	stopping sync.WaitGroup
}

// NewPool returns a pool that starts workers of cfg when calls come.
func NewPool(cfg Config) *Pool {
	if cfg.MaxInstances < 1 {
		cfg.MaxInstances = 1
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	p := &Pool{cfg: cfg, changed: make(chan struct{})}
	p.paths = append([]string{cfg.Command[0]}, cfg.RestartOn...)
	p.stamp = takeStamp(p.paths)
	return p
}

// Do sends args to a worker as one WorkRequest and returns its
// WorkResponse. While a singleplex worker serves the request, what it
// writes to stderr goes to stderr; a multiplex worker's stderr goes to
// the log, since it cannot be told apart by call. Do waits for a worker
// when all are busy and MaxInstances are running.
//
// When ctx ends first, Do cancels the request as the worker allows (see
// Config.Cancellation) and returns ctx.Err(); a stopped worker is stopped
// whole, its process group included, before Do returns. It returns
// [ErrUnavailable] when the worker cannot start, and an error saying what
// happened when the worker died or broke the protocol during the call.
func (p *Pool) Do(ctx context.Context, args []string, stderr io.Writer) (Response, error) {
	pr, id, ch, err := p.acquire(ctx)
	if err != nil {
		return Response{}, err
	}
	return pr.call(ctx, args, id, ch, stderr)
}

// acquire reserves a request slot on a worker, starting one when every
// worker is busy and fewer than MaxInstances run, and waiting otherwise.
func (p *Pool) acquire(ctx context.Context) (*proc, int32, chan *workResponse, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			if p.evicted {
				return nil, 0, nil, ErrUnavailable
			}
			return nil, 0, nil, errClosed
		}
		p.refresh()
		if p.fallback {
			p.mu.Unlock()
			return nil, 0, nil, ErrUnavailable
		}
		capacity := 1
		if p.cfg.Multiplex {
			capacity = p.cfg.MaxInstances
		}
		usable := 0
		var pick *proc
		for _, pr := range p.procs {
			if !pr.usable(p) {
				continue
			}
			usable++
			if len(pr.waiting) < capacity && (pick == nil || len(pr.waiting) < len(pick.waiting)) {
				pick = pr
			}
		}
		limit := p.cfg.MaxInstances
		if p.cfg.Multiplex {
			limit = 1
		}
		if pick == nil && usable < limit {
			var err error
			if pick, err = p.start(); err != nil {
				p.unavailable(err.Error())
				p.mu.Unlock()
				return nil, 0, nil, ErrUnavailable
			}
		}
		if pick != nil {
			id, ch := pick.reserve(p)
			p.mu.Unlock()
			return pick, id, ch, nil
		}
		wait := p.changed
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, 0, nil, ctx.Err()
		case <-wait:
		}
	}
}

// refresh retires the workers started before the executable or a
// RestartOn file changed, and gives a worker that could not start
// another chance. p.mu is held.
func (p *Pool) refresh() {
	now := takeStamp(p.paths)
	if now == p.stamp {
		return
	}
	p.stamp = now
	if p.fallback {
		p.fallback, p.said, p.failed = false, false, 0
	}
	for _, pr := range p.procs {
		if len(pr.waiting) == 0 {
			pr.stop(p, "its executable or a restartOn file changed")
		}
	}
}

// unavailable puts the pool in fallback and logs why, once. p.mu is held.
func (p *Pool) unavailable(why string) {
	p.fallback = true
	if !p.said {
		p.said = true
		p.cfg.Log.Warn("the worker could not start, so calls run cold, one process each, until its program or a restartOn file changes",
			"worker", p.cfg.Name, "reason", why)
	}
}

// freed wakes the calls waiting for a slot. p.mu is held.
func (p *Pool) freed() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// settle is called, with p.mu held, when pr has no request in flight:
// it stops pr when it is due for replacement, starting the replacement
// when it was retired for its request count, or arms its idle timer.
func (p *Pool) settle(pr *proc) {
	switch {
	case pr.dying():
	case pr.stamp != p.stamp:
		pr.stop(p, "its executable or a restartOn file changed")
	case p.cfg.MaxRequests > 0 && pr.sent >= p.cfg.MaxRequests:
		pr.stop(p, "it served maxRequests requests")
		if !p.closed {
			if _, err := p.start(); err != nil {
				p.unavailable(err.Error())
			}
		}
	case p.cfg.IdleTimeout > 0:
		pr.idleSince = time.Now()
		if pr.idle == nil {
			pr.idle = time.AfterFunc(p.cfg.IdleTimeout, func() { p.expire(pr) })
		} else {
			pr.idle.Reset(p.cfg.IdleTimeout)
		}
	}
	p.freed()
}

// expire stops pr when it has been idle for IdleTimeout. A timer that
// fires as a call takes pr, or after settle reset it, leaves it be.
func (p *Pool) expire(pr *proc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(pr.waiting) == 0 && time.Since(pr.idleSince) >= p.cfg.IdleTimeout-10*time.Millisecond {
		pr.stop(p, "it was idle for idleTimeout")
	}
}

// startStrikes is how many workers in a row must die before their first
// response for the worker to count as one that cannot start: one alone
// may have died of its request, which the cold run then shows.
const startStrikes = 2

// gone takes the dead pr out of the pool, with p.mu held. A worker that
// died before its first response could not start; one that died by
// itself later is replaced.
func (p *Pool) gone(pr *proc, why string) {
	p.procs = slices.DeleteFunc(p.procs, func(x *proc) bool { return x == pr })
	switch {
	case pr.why != "": // stopped by mcpship
		p.cfg.Log.Debug("worker stopped", "worker", p.cfg.Name, "pid", pr.pid, "reason", pr.why)
	case !pr.started:
		if p.failed++; p.failed >= startStrikes {
			p.unavailable(why)
		}
	default:
		p.cfg.Log.Warn("worker died; starting another", "worker", p.cfg.Name, "pid", pr.pid, "reason", why)
		if !p.closed && !p.fallback && pr.stamp == p.stamp {
			if _, err := p.start(); err != nil {
				p.unavailable(err.Error())
			}
		}
	}
	p.freed()
}

// Close stops every worker and waits until each is gone, its process
// group included. Calls then fail.
func (p *Pool) Close() { p.close(false) }

// close closes the pool; evicted when a Set let it go while mcpship
// runs on, so that a call that still reaches it runs cold.
func (p *Pool) close(evicted bool) {
	p.mu.Lock()
	p.closed, p.evicted = true, evicted
	for _, pr := range p.procs {
		pr.stop(p, whyClosing)
	}
	p.freed()
	p.mu.Unlock()
	p.stopping.Wait()
}
