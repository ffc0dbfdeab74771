package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpship/mcpship/internal/procgroup"
	"github.com/mcpship/mcpship/internal/sandbox"
	"github.com/mcpship/mcpship/internal/toolresult"
	"github.com/mcpship/mcpship/mcp"
)

// handle runs one call of the tool.
func (t *tool) handle(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
	vals, err := decodeValues(req.Arguments)
	if err != nil {
		return nil, fmt.Errorf("tool %s: arguments: %v", t.spec.Name, err)
	}
	for name, in := range t.inputs {
		if _, given := vals[name]; !given && in.hasDef {
			vals[name] = in.def
		}
	}
	argv, err := t.argv(vals)
	if err != nil {
		return nil, err
	}
	prog, err := t.lookPath(argv[0])
	if err != nil {
		return nil, err
	}
	if t.confirm != nil {
		if res := t.confirm.Ask(req, vals, t.confirmRuns(argv, vals)); res != nil {
			return res, nil
		}
	}
	env := t.environ(vals)
	if t.cache != nil {
		return t.cached(ctx, req, vals, prog, argv, env)
	}
	res, _, err := t.execute(ctx, req, prog, argv, env)
	return res, err
}

// execute runs the command of one call, by its worker when it has one,
// and makes its result.
func (t *tool) execute(ctx context.Context, req *mcp.CallRequest, prog string, argv, env []string) (*mcp.CallToolResult, *runResult, error) {
	if !t.m.running.start() {
		return nil, nil, fmt.Errorf("mcpship is shutting down; %s was not run", t.spec.Name)
	}
	var r *runResult
	if t.worker != nil {
		r = t.runWarm(ctx, req, prog, argv, env)
	}
	if r == nil { // no worker, or it could not start
		r = t.run(ctx, req, prog, argv, env)
	}
	t.m.running.done()
	if r.cancelled {
		return nil, r, ctx.Err()
	}
	r.out.Budget = t.outputBudget(req)
	r.out.ShowStderr = t.stderr
	return t.result(r), r, nil
}

// outputBudget is how the call's result is cut to fit the client: the
// tool's budget, with the whole output kept in the manifest's Outputs,
// linked for clients that know resource_link (revision 2025-06-18 on).
func (t *tool) outputBudget(req *mcp.CallRequest) *toolresult.Budget {
	b := &toolresult.Budget{Chars: t.budget, ErrorChars: t.errorBudget,
		Setting: "outputBudget in " + t.m.file, Link: req.ProtocolVersion >= "2025-06-18"}
	if store := t.m.Outputs; store != nil {
		b.Keep = store.Keeper(t.spec.Name)
	}
	return b
}

// rawValue is a JSON value as it sits in the input that json.Unmarshal
// reads: unlike [json.RawMessage], it is not copied.
type rawValue []byte

func (r *rawValue) UnmarshalJSON(b []byte) error { *r = b; return nil }

// decodeValues decodes the arguments of a call, an object, with numbers
// as json.Number. Each member is decoded from args in place: a Decoder
// would first copy all of args into a buffer it grows by doubling, two or
// three times the size of a call as long as the message cap.
func decodeValues(args []byte) (map[string]any, error) {
	var members map[string]rawValue
	if err := json.Unmarshal(args, &members); err != nil {
		return nil, err
	}
	vals := make(map[string]any, len(members))
	for name, raw := range members {
		var v any
		var err error
		switch c := raw[0]; {
		case c == '-' || c >= '0' && c <= '9':
			v = json.Number(raw)
		case c == '{' || c == '[':
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			err = dec.Decode(&v)
		default: // a string, true, false or null
			err = json.Unmarshal(raw, &v)
		}
		if err != nil {
			return nil, err
		}
		vals[name] = v
	}
	return vals, nil
}

// lookPath finds the program: a bare name on mcpship's PATH, a relative
// path from the manifest's directory.
func (t *tool) lookPath(prog string) (string, error) {
	if strings.ContainsAny(prog, `/\`) && !filepath.IsAbs(prog) {
		prog = filepath.Join(t.m.dir, prog)
	}
	p, err := exec.LookPath(prog)
	if err != nil {
		return "", fmt.Errorf("cannot run %s: %v; install it or put its full path in %s.command[0] of %s",
			prog, errors.Unwrap(err), t.path, t.m.file)
	}
	return p, nil
}

// environ builds the command's environment: the pass-through variables
// that are set, the manifest's env, then inputs bound to variables.
func (t *tool) environ(vals map[string]any) []string {
	env := map[string]string{}
	for _, name := range t.passEnv {
		if v, ok := os.LookupEnv(name); ok {
			env[name] = v
		}
	}
	for k, v := range t.env {
		env[k] = v
	}
	for name, in := range t.inputs {
		if v, given := vals[name]; given && in.Env != "" {
			env[in.Env] = scalarString(v)
		}
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// callVar is the environment variable that marks the processes of one
// call, so that those that leave its process group can be found and
// stopped when the call ends (on Linux).
const callVar = "MCPSHIP_CALL"

// callSeq numbers the calls of this process, for callVar.
var callSeq atomic.Int64

// runResult is what one run of a command produced.
type runResult struct {
	code      int // exit status; -1 when killed by a signal or not started
	startErr  error
	timedOut  bool
	warm      bool     // a worker served it
	confined  bool     // in the read-only sandbox
	writable  []string // where the sandbox let it write, when known
	workerErr error    // the worker ended during the call
	cancelled bool
	out       *toolresult.Capture
	elapsed   time.Duration
}

// run starts argv in its own process group with stdin closed and waits
// for it, stopping the whole group when ctx ends or the timeout passes.
// No process of the group outlives run. While it waits, it reports
// progress to req (see wait).
func (t *tool) run(ctx context.Context, req *mcp.CallRequest, prog string, argv, env []string) *runResult {
	r := &runResult{code: -1, out: toolresult.New(t.maxOut, "maxOutputBytes in "+t.m.file)}
	start := time.Now()
	defer func() { r.elapsed = time.Since(start) }()
	env, policy, removeTmp, err := t.confine(env)
	if err != nil {
		r.startErr = err
		return r
	}
	defer removeTmp() // after the group and what left it are stopped
	if policy != nil {
		r.confined, r.writable = true, policy.Writable
	}
	marker := fmt.Sprintf("%s=%d.%d", callVar, os.Getpid(), callSeq.Add(1))
	cmd := &exec.Cmd{Path: prog, Args: argv, Env: append(env, marker), Dir: t.dir}
	pipes, waited, err := startPiped(cmd, policy, &r.out.Stdout, &r.out.Stderr)
	if err != nil {
		r.startErr = err
		return r
	}
	err = t.wait(ctx, req, r, waited, func() error { return procgroup.Stop(cmd.Process.Pid, waited) }, start, hider(env))
	// The leader has exited; stop whatever it left running in its group,
	// and what left the group.
	procgroup.Reap(cmd.Process.Pid)
	procgroup.Sweep(cmd.Process.Pid, marker)
	pipes.drain()
	var exit *exec.ExitError
	switch {
	case err == nil:
		r.code = 0
	case errors.As(err, &exit):
		r.code = exit.ExitCode() // -1 when killed by a signal
	}
	return r
}

// lineGap is the shortest time between two progress notifications that
// carry stderr lines: at most four a second, however fast the program
// writes. A line that comes sooner is sent when the gap has passed, or a
// later one instead.
const lineGap = 250 * time.Millisecond

// wait waits for the run to end, when waited receives its error, calling
// stop on timeout or cancellation. It returns the run's error: the
// leader's Wait error, or the worker's. Meanwhile it reports progress to
// req: each new stderr line (at most one per lineGap), and, when nothing
// was sent for ProgressInterval, how long the command has run. hide
// hides the values of secret variables in both.
func (t *tool) wait(ctx context.Context, req *mcp.CallRequest, r *runResult, waited <-chan error, stop func() error, start time.Time, hide func(string) string) error {
	timer := time.NewTimer(t.timeout)
	defer timer.Stop()
	every := t.m.ProgressInterval
	if every <= 0 {
		every = DefaultProgressInterval
	}
	heartbeat := time.NewTimer(every)
	defer heartbeat.Stop()
	ended, seen := r.out.Stderr.Lines()
	var gap *time.Timer
	var gapDone <-chan time.Time // set while a line waits for the gap
	var lastSent time.Time
	send := func(msg string) {
		req.Progress(time.Since(start).Seconds(), 0, hide(msg))
		lastSent = time.Now()
		heartbeat.Reset(every)
	}
	sendLine := func() {
		if n, line := r.out.Stderr.Completed(); n != seen {
			seen = n
			send(line)
		}
	}
	for {
		select {
		case err := <-waited:
			if gap != nil {
				gap.Stop()
			}
			return err
		case <-timer.C:
			r.timedOut = true
			return stop()
		case <-ctx.Done():
			r.cancelled = true
			return stop()
		case <-ended:
			if gapDone != nil {
				break // the line waiting is replaced by this one
			}
			if wait := lineGap - time.Since(lastSent); wait > 0 {
				gap = time.NewTimer(wait)
				gapDone = gap.C
			} else {
				sendLine()
			}
		case <-gapDone:
			gapDone = nil
			sendLine()
		case <-heartbeat.C:
			msg := fmt.Sprintf("%s has run for %v", t.program(), time.Since(start).Round(time.Second))
			if line := r.out.Stderr.LastLine(); line != "" {
				msg += ": " + line
			}
			send(msg)
		}
	}
}

// pipes are the read ends of a command's stdout and stderr, copied into
// buffers until drain.
type pipes struct {
	files   [2]*os.File
	copying sync.WaitGroup
}

// startPiped starts cmd in its own process group, confined by policy
// (see package sandbox), stdin the null device, with its stdout and
// stderr copied into out and errOut. waited receives cmd.Wait's error.
func startPiped(cmd *exec.Cmd, policy *sandbox.Policy, out, errOut *toolresult.Buffer) (_ *pipes, waited <-chan error, _ error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	procgroup.Set(cmd) // stdin stays nil: the command reads from the null device
	waited, err = sandbox.Start(cmd, policy)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, nil, err
	}
	p := &pipes{files: [2]*os.File{outR, errR}}
	for i, dst := range []*toolresult.Buffer{out, errOut} {
		p.copying.Add(1)
		go func() {
			defer p.copying.Done()
			_, _ = io.Copy(dst, p.files[i])
		}()
	}
	return p, waited, nil
}

// drain waits for the copies to end, at most KillGrace: after that a
// process outside the group still holds the pipes, and reading stops.
func (p *pipes) drain() {
	done := make(chan struct{})
	go func() { p.copying.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(KillGrace):
		p.files[0].Close()
		p.files[1].Close()
		<-done
	}
	p.files[0].Close()
	p.files[1].Close()
}
