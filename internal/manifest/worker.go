package manifest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpship/mcpship/internal/toolresult"
	"github.com/mcpship/mcpship/internal/worker"
	"github.com/mcpship/mcpship/mcp"
)

// Worker declares a warm worker for a tool: a long-lived process of the
// tool's program that takes the tool's calls as requests of Bazel's JSON
// persistent-worker protocol. docs/manifest.md describes each field.
type Worker struct {
	// Command starts the worker: the tool's program (the leading words
	// it shares with the tool's command), then the flag that makes it a
	// persistent worker, as in ["rigor", "--persistent_worker"].
	Command []string `json:"command"`
	// MaxInstances bounds the worker processes per working directory and
	// environment (a multiplex worker: the requests its one process has
	// in flight). Default DefaultWorkerInstances.
	MaxInstances int `json:"maxInstances"`
	// Multiplex says that the worker takes several requests at once,
	// each with its requestId.
	Multiplex bool `json:"multiplex"`
	// Cancellation says that the worker takes cancel requests.
	Cancellation bool `json:"cancellation"`
	// MaxRequests is how many requests a worker serves before it is
	// replaced. Default DefaultWorkerMaxRequests.
	MaxRequests int `json:"maxRequests"`
	// IdleTimeout stops a worker that had no call for that long. Default
	// DefaultWorkerIdleTimeout.
	IdleTimeout time.Duration `json:"idleTimeout"`
	// RestartOn are files whose change replaces the workers (lockfiles,
	// configs), relative to the tool's working directory: a folder
	// stands for everything under it, a pattern for what it matches.
	RestartOn []string `json:"restartOn"`
}

// Defaults of a worker's settings.
const (
	DefaultWorkerInstances   = 2
	DefaultWorkerMaxRequests = 1000
	DefaultWorkerIdleTimeout = 10 * time.Minute
)

// warm is a tool's checked worker.
type warm struct {
	spec      *Worker
	words     []string // the command, as written
	shared    int      // leading words of the tool's command the worker's shares
	restartOn []string // absolute
}

// compileWorker checks the tool's worker.
func (t *tool) compileWorker(probs *problemList) {
	spec := t.spec.Worker
	if spec == nil {
		return
	}
	path := t.path + ".worker"
	w := &warm{spec: spec}
	if len(spec.Command) == 0 {
		probs.add(path, "missing \"command\": give the tool's program and the flag that makes it a persistent worker, as in [%q, \"--persistent_worker\"]", t.firstWord())
	}
	for i, s := range spec.Command {
		e, err := parseElem(s)
		if _, whole := e.whole(); err != nil || whole || len(e.parts) != 1 || s == "" {
			probs.add(fmt.Sprintf("%s.command[%d]", path, i), "%q: a worker's command is fixed text, with no {placeholder}: one worker serves every call, whose values go in its requests", s)
			return
		}
		w.words = append(w.words, e.parts[0].text)
	}
	for w.shared < len(w.words) && w.shared < len(t.elems) && len(t.elems[w.shared].parts) == 1 &&
		t.elems[w.shared].parts[0].input == "" && t.elems[w.shared].parts[0].text == w.words[w.shared] {
		w.shared++
	}
	switch {
	case len(w.words) == 0 || len(t.elems) == 0: // said already
	case w.shared == 0:
		probs.add(path+".command[0]", "the worker runs %q but the tool runs %q: a worker takes the tool's calls, so it must be the same program, as in [%q, \"--persistent_worker\"]",
			w.words[0], t.firstWord(), t.firstWord())
	case w.shared == len(w.words):
		probs.add(path+".command", "the worker's command is only the start of the tool's, which would run once and exit; add the flag that makes %s a persistent worker, as in [%q, \"--persistent_worker\"]",
			t.program(), t.firstWord())
	}
	if probs.hasKey(path+".maxInstances") && (spec.MaxInstances < 1 || spec.MaxInstances > 64) {
		probs.add(path+".maxInstances", "%d is out of range; use 1 to 64, or leave it out for %d", spec.MaxInstances, DefaultWorkerInstances)
	}
	if probs.hasKey(path+".maxRequests") && spec.MaxRequests < 1 {
		probs.add(path+".maxRequests", "%d: a worker serves at least 1 request; leave it out for %d", spec.MaxRequests, DefaultWorkerMaxRequests)
	}
	dir := t.dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	for i, f := range spec.RestartOn {
		if strings.TrimSpace(f) == "" {
			probs.add(fmt.Sprintf("%s.restartOn[%d]", path, i), "empty path; name a file such as \"Gemfile.lock\", relative to the tool's working directory")
			continue
		}
		if err := worker.CheckPattern(f); err != nil {
			probs.add(fmt.Sprintf("%s.restartOn[%d]", path, i), "%q is not a valid pattern (%v); write * for any name, ? for one character, [abc] for a set, or \\ before one of them to mean it", f, err)
			continue
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		w.restartOn = append(w.restartOn, f)
	}
	t.worker = w
}

func (t *tool) firstWord() string {
	if len(t.spec.Command) == 0 {
		return "program"
	}
	return t.spec.Command[0]
}

// warmTimeout says how a call served by a worker was stopped when it
// timed out: as a cold run, unless the worker takes cancel requests or,
// multiplex, goes on with the request.
func (t *tool) warmTimeout() string {
	prog, w := t.program(), t.worker.spec
	switch {
	case w.Cancellation && w.Multiplex:
		return fmt.Sprintf("%s timed out after %v; its worker was sent a cancel request, and an answer that comes later is dropped.", prog, t.timeout)
	case w.Cancellation:
		return fmt.Sprintf("%s timed out after %v and was stopped (a cancel request to its worker, which is stopped itself, SIGTERM then SIGKILL, when it does not answer within %v).", prog, t.timeout, KillGrace)
	case w.Multiplex:
		return fmt.Sprintf("%s timed out after %v; its multiplex worker goes on with the request, and its answer will be dropped.", prog, t.timeout)
	}
	return fmt.Sprintf("%s timed out after %v and was stopped (SIGTERM to its process group, SIGKILL after %v).", prog, t.timeout, KillGrace)
}

// pool returns the pool of workers for a call run with env.
func (t *tool) pool(prog string, env []string) *worker.Pool {
	w := t.worker
	cfg := worker.Config{
		Command:          append([]string{prog}, w.words[1:]...),
		Name:             strings.Join(w.words, " "),
		Dir:              t.dir,
		Env:              env,
		MaxInstances:     DefaultWorkerInstances,
		Multiplex:        w.spec.Multiplex,
		Cancellation:     w.spec.Cancellation,
		MaxRequests:      DefaultWorkerMaxRequests,
		IdleTimeout:      DefaultWorkerIdleTimeout,
		RestartOn:        w.restartOn,
		Log:              t.m.Logger,
		MaxResponseBytes: worker.ResponseBytes(t.maxOut),
		LimitName:        "maxOutputBytes in " + t.m.file,
		Sandbox:          t.policy(),
	}
	if w.spec.MaxInstances > 0 {
		cfg.MaxInstances = w.spec.MaxInstances
	}
	if w.spec.MaxRequests > 0 {
		cfg.MaxRequests = w.spec.MaxRequests
	}
	if w.spec.IdleTimeout > 0 {
		cfg.IdleTimeout = w.spec.IdleTimeout
	}
	return t.m.workers.Pool(cfg)
}

// runWarm serves a call with one of the tool's workers: argv after the
// words the worker's command shares becomes the WorkRequest's arguments,
// the WorkResponse's output and exitCode are the run's stdout and exit
// status, so that the result reads as the cold run's would. It returns
// nil when the worker cannot start: the call then runs cold.
func (t *tool) runWarm(ctx context.Context, req *mcp.CallRequest, prog string, argv, env []string) *runResult {
	r := &runResult{code: -1, out: toolresult.New(t.maxOut, "maxOutputBytes in "+t.m.file), warm: true, confined: t.policy() != nil}
	start := time.Now()
	defer func() { r.elapsed = time.Since(start) }()
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var resp worker.Response
	done := make(chan error, 1)
	go func() {
		var err error
		resp, err = t.pool(prog, env).Do(callCtx, argv[t.worker.shared:], &r.out.Stderr)
		done <- err
	}()
	err := t.wait(ctx, req, r, done, func() error { cancel(); return <-done }, start, hider(env))
	switch {
	case errors.Is(err, worker.ErrUnavailable) && !r.cancelled && !r.timedOut:
		return nil
	case r.cancelled || r.timedOut:
	case err != nil:
		r.workerErr = err
	default:
		r.code = resp.ExitCode
		_, _ = r.out.Stdout.Write([]byte(resp.Output))
	}
	return r
}
