package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"unicode/utf8"
)

// DefaultMaxMessageBytes is the largest message, in bytes without its line
// terminator, that a [Server] or [Client] reads unless told otherwise
// ([ServerOptions.MaxMessageBytes], [ClientOptions.MaxMessageBytes]): 16 MiB.
const DefaultMaxMessageBytes = 16 << 20

// keepPrefix is how much of an over-long line is kept to recover its id.
const keepPrefix = 4 << 10

var bom = []byte("\xEF\xBB\xBF")

// lineReader splits a stream into newline-delimited messages. It accepts
// LF and CRLF, strips a UTF-8 byte order mark, skips blank lines, and never
// holds more than max bytes of one line.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-blank line without its terminator. The slice is
// valid until the following call. When the line is longer than the limit,
// next consumes all of it, returns its first bytes and tooLong set. At the
// end of input it returns io.EOF; a last line without a newline is returned
// first, as a line.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	for {
		line, tooLong, err = lr.read()
		if err != nil {
			return nil, false, err
		}
		line = bytes.TrimPrefix(line, bom)
		if tooLong || !blank(line) {
			return line, tooLong, nil
		}
	}
}

// blank reports whether a line without its byte order mark is one that
// next skips: nothing but white space.
func blank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// release lets go of the last line, when it was a huge one: the reader
// may wait before it reads the next (see session.waitForRoom), and the
// call it read has its own copy.
func (lr *lineReader) release() {
	if cap(lr.buf) > 1<<20 {
		lr.buf = nil
	}
}

func (lr *lineReader) read() ([]byte, bool, error) {
	lr.release()
	lr.buf = lr.buf[:0]
	tooLong := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if err == nil && len(lr.buf) == 0 && !tooLong {
			// The common case: the whole line sits in the reader's buffer.
			chunk = trimEOL(chunk)
			if len(chunk) > lr.max {
				return head(chunk), true, nil
			}
			return chunk, false, nil
		}
		if !tooLong {
			lr.buf = appendDoubling(lr.buf, chunk, lr.max+2)
			// Allow for the terminator, which is not part of the message.
			if len(lr.buf) > lr.max+2 {
				tooLong = true
				lr.buf = head(lr.buf)
			}
		}
		switch {
		case err == nil:
			line := trimEOL(lr.buf)
			if len(line) > lr.max {
				tooLong = true
				line = head(line)
			}
			return line, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && (len(lr.buf) > 0 || tooLong):
			line := trimEOL(lr.buf)
			return line, tooLong || len(line) > lr.max, nil
		default:
			return nil, false, err
		}
	}
}

// appendDoubling appends chunk to buf, doubling its capacity when it must
// grow, but not past limit unless chunk needs it: append grows a large
// slice by about a quarter, which copies a 16 MiB line some twenty times
// on its way in, and may leave it twice the room it needs.
func appendDoubling(buf, chunk []byte, limit int) []byte {
	if need := len(buf) + len(chunk); need > cap(buf) {
		grown := make([]byte, len(buf), max(min(2*cap(buf), limit), need))
		copy(grown, buf)
		buf = grown
	}
	return append(buf, chunk...)
}

// more reports whether another whole line that is not blank is buffered,
// so that next will return it without waiting for input.
func (lr *lineReader) more() bool {
	b, _ := lr.r.Peek(lr.r.Buffered())
	for {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			return false
		}
		if !blank(bytes.TrimPrefix(line, bom)) {
			return true
		}
		b = rest
	}
}

// head returns at most the first keepPrefix bytes of b.
func head(b []byte) []byte { return b[:min(len(b), keepPrefix)] }

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// messageID returns the id of a message that is valid JSON but could not
// be decoded, as json.Unmarshal reads it (the last "id" member, when there
// are several), or the zero ID when it has no legal one.
func messageID(line []byte) msgID {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || !validID(m.ID) {
		return msgID{}
	}
	return msgID{raw: string(m.ID)}
}

// prefixID tries to read the "id" member from the start of a JSON object
// whose end was cut off. It returns the zero ID when the id does not come
// before the cut or is not a legal id.
func prefixID(prefix []byte) msgID {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return msgID{}
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return msgID{}
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return msgID{}
		}
		if key == "id" {
			if validID(v) {
				return msgID{raw: string(v)}
			}
			return msgID{}
		}
	}
	return msgID{}
}

// encodeLine encodes v as one line of JSON ending in a newline. The text
// is always valid UTF-8 (RFC 8259 §8.1): encoding/json replaces invalid
// UTF-8 in the strings it encodes, but passes raw JSON (a request id or a
// progress token echoed as the client sent it, a [json.RawMessage] in a
// result) through as it is, so any invalid byte left is replaced by
// the escape \ufffd. Such bytes can only be inside strings, since the
// encoder checked that raw JSON is JSON, so the line stays valid JSON.
func encodeLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode ends the line with '\n'
		return nil, err
	}
	b := buf.Bytes()
	if utf8.Valid(b) {
		return b, nil
	}
	// One \ufffd per invalid byte, as encoding/json decodes them, so that
	// an echoed id still equals the id the server read.
	valid := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			valid = append(valid, `\ufffd`...)
		} else {
			valid = append(valid, b[:n]...)
		}
		b = b[n:]
	}
	return valid, nil
}

// lineWriter writes one JSON message per line, each with a single Write, so
// that messages from concurrent goroutines never interleave. The Client
// writes with it.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error // first write error; later writes are dropped
}

// write encodes v as one line and writes it. It returns the first error
// the underlying writer ever returned.
func (lw *lineWriter) write(v any) error {
	b, err := encodeLine(v)
	if err != nil {
		return err
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(b); err != nil {
		lw.err = err
	}
	return lw.err
}

// output is a server session's writer. Messages are queued, and one
// goroutine at a time writes the queue, with one Write for all that is
// queued, until the queue is empty. A call writes its own reply when
// nobody else is writing (send), so a client making one call at a time
// gets each reply from the call's goroutine, and replies that pile up
// behind a Write go out together. While the reader dispatches a request
// or has another one buffered (see hold), the queue waits for their
// replies, up to flushSize, so that replies to pipelined requests go out
// in few writes. The reader only queues (post) and leaves the writing to
// another goroutine, so that a client that stops reading cannot keep it
// from seeing the end of its input; and closing needs no lock that a
// blocked Write holds. The queue is bounded: while it holds maxQueued
// bytes or more, a new message waits for the writer to take it, so a
// client that sends without reading slows itself, not the server's
// memory.
type output struct {
	w      io.Writer
	mu     sync.Mutex
	room   sync.Cond     // signalled when the writer takes the queue, or on close
	queue  []byte        // lines not yet written
	spare  []byte        // the last written buffer, for reuse
	busy   bool          // a goroutine is writing the queue
	held   bool          // the reader has a request in hand
	closed bool          // nothing more is queued
	err    error         // the first write error
	idle   chan struct{} // closed when the writer stops, if close waits
	broken chan struct{} // closed on the first write error
}

// maxQueued is how many bytes of messages may wait for the writer before
// a new one waits for room.
const maxQueued = 1 << 20

// flushSize is how many bytes of messages are written even while the
// reader has another request in hand.
const flushSize = 64 << 10

func newOutput(w io.Writer) *output {
	o := &output{w: w, broken: make(chan struct{})}
	o.room.L = &o.mu
	return o
}

// send puts a message from a call's goroutine; post, from the reader.
func (o *output) send(v any) error { return o.put(v, false) }
func (o *output) post(v any) error { return o.put(v, true) }

// put queues a message and, unless another goroutine is writing or the
// queue waits (see hold), writes the queue: itself, or with async set
// (the reader) on a goroutine it starts. A message is dropped once the
// output is closed or broken. put returns an error only when v cannot be
// encoded.
func (o *output) put(v any, async bool) error {
	b, err := encodeLine(v)
	if err != nil {
		return err
	}
	o.mu.Lock()
	for len(o.queue) >= maxQueued && !o.closed && o.err == nil {
		o.room.Wait()
	}
	if o.closed || o.err != nil {
		o.mu.Unlock()
		return nil
	}
	o.queue = append(o.queue, b...)
	write := o.claim()
	o.mu.Unlock()
	switch {
	case !write: // the writer takes it on its next turn, or a later message does
	case async:
		go o.flush()
	default:
		o.flush()
	}
	return nil
}

// open and done make output a sink: a stdio session waits for nothing.
func (o *output) open() {}
func (o *output) done() {}

// hold tells whether the reader has a request in hand: one it dispatches,
// or another one buffered. While it has, what is queued waits for that
// request's reply (up to flushSize); once it has not, a goroutine is
// started to write what waited. Once the output is closed, nothing waits.
func (o *output) hold(more bool) {
	o.mu.Lock()
	o.held = more && !o.closed
	write := o.claim()
	o.mu.Unlock()
	if write {
		go o.flush()
	}
}

// due reports whether what is queued is to be written now.
func (o *output) due() bool {
	return len(o.queue) > 0 && o.err == nil && (!o.held || len(o.queue) >= flushSize)
}

// claim makes the caller the writer when the queue is due and nobody is
// writing it. The caller holds mu.
func (o *output) claim() bool {
	if o.busy || !o.due() {
		return false
	}
	o.busy = true
	return true
}

// flush writes the queue while it is due; the caller has set busy.
func (o *output) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.due() {
		buf := o.queue
		o.queue = o.spare[:0]
		o.room.Broadcast()
		o.mu.Unlock()
		_, err := o.w.Write(buf)
		o.mu.Lock()
		o.spare = buf
		if cap(buf) > 2*flushSize {
			o.spare = nil // do not keep a huge buffer alive after a huge message
		}
		if err != nil {
			o.err = err
			o.queue = nil
			close(o.broken)
			o.room.Broadcast()
		}
	}
	o.busy = false
	if o.idle != nil {
		close(o.idle)
	}
}

// close stops all later messages and waits for what is queued to be
// written, until bound is done. It returns the first write error, or an
// error when it gave up waiting.
func (o *output) close(bound <-chan struct{}) error {
	o.mu.Lock()
	o.closed = true
	o.held = false
	o.room.Broadcast()
	write := o.claim()
	if !o.busy {
		defer o.mu.Unlock()
		return o.err
	}
	idle := make(chan struct{})
	o.idle = idle
	o.mu.Unlock()
	if write {
		go o.flush()
	}
	select {
	case <-idle:
	case <-bound:
		return errBlocked
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

var errBlocked = errors.New("a write is still blocked: the client is not reading")
