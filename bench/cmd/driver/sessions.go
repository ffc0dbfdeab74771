package main

import (
	"bufio"
	"fmt"
	"time"

	"github.com/mcpship/mcpship/bench/internal/load"
)

// live is one server's process during the call phases.
type live struct {
	s     *server
	p     *proc
	r     *sessionResult
	lat   []float64
	el    time.Duration
	cpu0  time.Duration
	w0    int64
	seen  []bool
	b     []byte
	arena []byte
	ends  []int
}

func (l *live) fail(format string, args ...any) {
	if l.r.Err == "" {
		l.r.Err = fmt.Sprintf(format, args...)
	}
}

// sessions runs the call phases on one process per server, all alive at
// once: warm untimed calls, then nSeq sequential calls, then nPipe
// pipelined calls, each phase cut into chunks that take turns across the
// servers (the first server rotating), so that a change in the machine's
// load hits every server alike. Every reply is checked after its chunk's
// timing. Peak RSS is read before each process's input is closed.
func sessions(servers []*server, warm, nSeq, nPipe, chunks int) map[string]*sessionResult {
	var ls []*live
	out := map[string]*sessionResult{}
	for _, s := range servers {
		l := &live{s: s, r: &sessionResult{}}
		out[s.Name] = l.r
		p, err := start(s)
		if err != nil {
			l.fail("%v", err)
			continue
		}
		l.p = p
		ls = append(ls, l)
	}
	watchdog := time.AfterFunc(10*time.Minute, func() {
		for _, l := range ls {
			l.p.cmd.Process.Kill()
		}
	})
	defer watchdog.Stop()
	defer func() {
		for _, l := range ls {
			l.r.Exit = l.p.close(15 * time.Second)
			if l.r.Err != "" || !l.p.state.Success() {
				l.r.Stderr = l.p.stderr.String()
			}
		}
	}()
	ok := func(l *live) bool { return l.r.Err == "" }
	for _, l := range ls {
		if err := l.p.handshake(); err != nil {
			l.fail("%v", err)
			continue
		}
		for i := range warm {
			if err := l.call(100 + i); err != nil {
				l.fail("warm-up: %v", err)
				break
			}
		}
	}
	turns := func(f func(l *live, chunk int)) {
		for c := range chunks {
			for k := range ls {
				if l := ls[(k+c)%len(ls)]; ok(l) {
					f(l, c)
				}
			}
		}
	}

	// Sequential.
	seqChunk := nSeq / chunks
	for _, l := range ls {
		l.lat, l.el, l.cpu0 = make([]float64, 0, nSeq), 0, procCPU(l.p.pid())
	}
	turns(func(l *live, c int) { l.seqChunk(1_000_000+c*seqChunk, seqChunk) })
	for _, l := range ls {
		if ok(l) {
			n := seqChunk * chunks
			l.r.Seq = seqResult{N: n, CallsPerSec: float64(n) / l.el.Seconds(),
				P50us: quantile(l.lat, .5), P99us: quantile(l.lat, .99), CPUus: perCall(procCPU(l.p.pid())-l.cpu0, n)}
		}
	}

	// Pipelined.
	pipeChunk := nPipe / chunks
	for _, l := range ls {
		l.el, l.cpu0, l.w0 = 0, procCPU(l.p.pid()), syscw(l.p.pid())
		l.r.Pipe.InOrder = true
	}
	turns(func(l *live, c int) { l.pipeChunk(2_000_000+c*pipeChunk, pipeChunk) })
	for _, l := range ls {
		if ok(l) {
			n := pipeChunk * chunks
			l.r.Pipe.N, l.r.Pipe.CallsPerSec = n, float64(n)/l.el.Seconds()
			l.r.Pipe.CPUus = perCall(procCPU(l.p.pid())-l.cpu0, n)
			l.r.Pipe.WritesPerCall = float64(syscw(l.p.pid())-l.w0) / float64(n)
			// Every reply of every chunk had a distinct id among those the
			// chunk sent: each id was answered exactly once.
		}
		m := load.StatusBytes(l.p.pid(), "VmHWM:", "RssAnon:", "RssFile:")
		l.r.HWM, l.r.Anon, l.r.File = m[0], m[1], m[2]
	}
	return out
}

// call makes one untimed call and checks its reply.
func (l *live) call(id int) error {
	l.b = callLine(l.b[:0], l.s, id)
	if err := l.p.send(l.b); err != nil {
		return err
	}
	line, err := l.p.recv()
	if err != nil {
		return err
	}
	got, err := checkCall(l.s, line)
	if err == nil && got != id {
		err = fmt.Errorf("reply has id %d, want %d", got, id)
	}
	return err
}

func (l *live) seqChunk(id, n int) {
	l.arena, l.ends = l.arena[:0], l.ends[:0]
	t0 := time.Now()
	for i := range n {
		l.b = callLine(l.b[:0], l.s, id+i)
		ts := time.Now()
		if err := l.p.send(l.b); err != nil {
			l.fail("sequential: %v", err)
			return
		}
		line, err := l.p.recv()
		if err != nil {
			l.fail("sequential: %v", err)
			return
		}
		l.lat = append(l.lat, float64(time.Since(ts).Nanoseconds())/1e3)
		l.arena = append(l.arena, line...)
		l.ends = append(l.ends, len(l.arena))
	}
	l.el += time.Since(t0)
	start := 0
	for i, end := range l.ends {
		got, err := checkCall(l.s, l.arena[start:end])
		if err == nil && got != id+i {
			err = fmt.Errorf("reply %d has id %d, want %d", i, got, id+i)
		}
		if err != nil {
			l.fail("sequential: %v", err)
			return
		}
		start = end
	}
}

func (l *live) pipeChunk(id, n int) {
	l.arena, l.ends = l.arena[:0], l.ends[:0]
	werr := make(chan error, 1)
	t0 := time.Now()
	go func() {
		bw := bufio.NewWriterSize(l.p.in, 64<<10)
		var b []byte
		for i := range n {
			b = callLine(b[:0], l.s, id+i)
			if _, err := bw.Write(b); err != nil {
				werr <- err
				return
			}
		}
		werr <- bw.Flush()
	}()
	for range n {
		line, err := l.p.recv()
		if err != nil {
			l.fail("pipelined: %v", err)
			return
		}
		l.arena = append(l.arena, line...)
		l.ends = append(l.ends, len(l.arena))
	}
	l.el += time.Since(t0)
	if err := <-werr; err != nil {
		l.fail("pipelined write: %v", err)
		return
	}
	if cap(l.seen) < n {
		l.seen = make([]bool, n)
	}
	seen := l.seen[:n]
	clear(seen)
	start := 0
	for i, end := range l.ends {
		got, err := checkCall(l.s, l.arena[start:end])
		k := got - id
		switch {
		case err != nil:
		case k < 0 || k >= n:
			err = fmt.Errorf("reply for id %d, which this chunk did not send", got)
		case seen[k]:
			err = fmt.Errorf("id %d answered twice", got)
		}
		if err != nil {
			l.fail("pipelined: %v", err)
			return
		}
		seen[k] = true
		if k != i {
			l.r.Pipe.InOrder = false
			l.r.Pipe.MaxOutOfOrder = max(l.r.Pipe.MaxOutOfOrder, abs(k-i))
		}
		start = end
	}
}
