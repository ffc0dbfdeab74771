package mcp

import (
	"context"
	"errors"
	"io"
)

// stdioConn is the connection of a session served over stdio (or any
// byte stream): its one output, and the reading, which goroutines hand
// to each other (see read) and which waits while the calls not yet
// answered hold too much (see waitForRoom).
type stdioConn struct {
	ss      *session
	out     *output          // the whole output, the session's sink
	readErr chan error       // how reading ended
	turn    chan *lineReader // hands the reading to an idle goroutine
}

// newSession returns a session that writes every message to w.
func newSession(s *Server, w io.Writer) *session {
	ss := newSessionCtx(s, context.Background())
	ss.stdio = &stdioConn{ss: ss, out: newOutput(w), readErr: make(chan error, 1), turn: make(chan *lineReader)}
	ss.to = ss.stdio.out
	return ss
}

// serve reads and dispatches messages from r until r ends or ctx is done,
// then stops the session.
func (sc *stdioConn) serve(ctx context.Context, r io.Reader) error {
	ss := sc.ss
	go sc.read(newLineReader(r, ss.srv.opts.MaxMessageBytes))
	var err error
	timeout := ss.srv.opts.DrainTimeout
	select {
	case err = <-sc.readErr:
	case <-ctx.Done():
		timeout = ss.srv.opts.ShutdownTimeout
	case <-sc.out.broken:
	}
	if werr := ss.stop(timeout); werr != nil && err == nil {
		err = werr
	}
	return err
}

// read reads and dispatches messages until the input ends (reported on
// readErr) or the session stops. One goroutine reads at a time. When it
// reads a tools/call to run, it hands the reading to an idle goroutine, or
// a new one, and runs the call; then it is idle until the reading is handed
// back to it. Idle goroutines keep the stacks that reading and running
// grew, which a new goroutine would grow again for every message.
func (sc *stdioConn) read(lr *lineReader) {
	ss := sc.ss
	for {
		c := sc.readCall(lr)
		if c == nil {
			return
		}
		select {
		case sc.turn <- lr:
		default:
			go sc.read(lr)
		}
		ss.run(c)
		select {
		case lr = <-sc.turn:
		case <-ss.ctx.Done():
			return
		}
	}
}

// maxHeld is how many bytes of arguments the calls not yet answered (those
// running and those waiting their turn) may hold before the reader stops
// reading, as output stops it while the replies not yet written hold
// maxQueued: a client that sends calls faster than they run slows itself,
// not the server's memory. One message is always read when nothing is
// held, so a call as long as MaxMessageBytes still runs.
const maxHeld = 4 << 20

// readCall reads and dispatches messages until one is a tools/call to run
// now, and returns it; nil once the input ends or the session stops.
func (sc *stdioConn) readCall(lr *lineReader) *task {
	ss := sc.ss
	for {
		sc.waitForRoom()
		line, tooLong, err := lr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			sc.out.hold(false)
			sc.readErr <- err
			return nil
		}
		ss.mu.Lock()
		stopping := ss.stopping
		ss.mu.Unlock()
		if stopping {
			sc.out.hold(false)
			sc.readErr <- nil
			return nil
		}
		// Replies wait while a message is dispatched and while another is
		// buffered: those of pipelined requests go out together.
		sc.out.hold(true)
		if tooLong {
			ss.srv.log.Warn("message over the size limit skipped", "limit", ss.srv.opts.MaxMessageBytes)
			ss.reply(prefixID(line), nil, errorf(CodeInvalidRequest,
				"message exceeds the limit of %d bytes and was skipped", ss.srv.opts.MaxMessageBytes))
		} else {
			ss.handle(line)
		}
		lr.release()
		sc.out.hold(lr.more())
		if c := ss.next; c != nil {
			ss.next = nil
			return c
		}
	}
}

// waitForRoom waits while the calls not yet answered hold more than
// maxHeld bytes of arguments and the session is not stopping. Replies
// queued meanwhile are not held for the next message.
func (sc *stdioConn) waitForRoom() {
	ss := sc.ss
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.queue.held <= maxHeld || ss.stopping {
		return
	}
	sc.out.hold(false)
	for ss.queue.held > maxHeld && !ss.stopping {
		ss.queue.room.Wait()
	}
}
