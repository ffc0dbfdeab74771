package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// DefaultMaxMessageBytes is the largest message, in bytes without its line
// terminator, that a Server or Client reads unless told otherwise: 16 MiB.
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
		if tooLong || len(bytes.TrimSpace(line)) > 0 {
			return line, tooLong, nil
		}
	}
}

func (lr *lineReader) read() ([]byte, bool, error) {
	if cap(lr.buf) > 1<<20 {
		lr.buf = nil // do not keep a huge buffer alive after a huge message
	}
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
			lr.buf = append(lr.buf, chunk...)
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

// head returns at most the first keepPrefix bytes of b.
func head(b []byte) []byte { return b[:min(len(b), keepPrefix)] }

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// messageID returns the id of a message that is valid JSON but could not
// be decoded, as json.Unmarshal reads it (the last "id" member, when there
// are several), or the zero ID when it has no legal one.
func messageID(line []byte) ID {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || !validID(m.ID) {
		return ID{}
	}
	return ID{raw: string(m.ID)}
}

// prefixID tries to read the "id" member from the start of a JSON object
// whose end was cut off. It returns the zero ID when the id does not come
// before the cut or is not a legal id.
func prefixID(prefix []byte) ID {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ID{}
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ID{}
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ID{}
		}
		if key == "id" {
			if validID(v) {
				return ID{raw: string(v)}
			}
			return ID{}
		}
	}
	return ID{}
}

// lineWriter writes one JSON message per line, each with a single Write, so
// that messages from concurrent goroutines never interleave.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	err    error // first write error; later writes are dropped
	closed bool
}

// encoder is a buffer and a JSON encoder writing into it, reused across
// messages.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoderPool = sync.Pool{New: func() any {
	e := new(encoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// write encodes v as one line and writes it. It returns the first error
// the underlying writer ever returned, or errClosed once closed.
func (lw *lineWriter) write(v any) error {
	e := encoderPool.Get().(*encoder)
	defer func() {
		if e.buf.Cap() <= 64<<10 {
			encoderPool.Put(e)
		}
	}()
	e.buf.Reset()
	if err := e.encode(v); err != nil {
		return err
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.closed {
		return errClosed
	}
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(e.buf.Bytes()); err != nil {
		lw.err = err
	}
	return lw.err
}

// encode appends v and a newline to the buffer. A response's envelope is
// written directly, which gives the bytes encoding/json would (the id is
// compact JSON already) without reflecting over it.
func (e *encoder) encode(v any) error {
	r, ok := v.(*response)
	if !ok || r.JSONRPC != "2.0" {
		return e.enc.Encode(v) // Encode ends the line with '\n'
	}
	e.buf.WriteString(`{"jsonrpc":"2.0","id":`)
	if r.ID.raw == "" {
		e.buf.WriteString("null")
	} else {
		e.buf.WriteString(r.ID.raw)
	}
	if r.Result != nil {
		e.buf.WriteString(`,"result":`)
		if err := e.encodeMember(r.Result); err != nil {
			return err
		}
	}
	if r.Error != nil {
		e.buf.WriteString(`,"error":`)
		if err := e.encodeMember(r.Error); err != nil {
			return err
		}
	}
	e.buf.WriteString("}\n")
	return nil
}

// encodeMember appends v without the newline Encode ends it with.
func (e *encoder) encodeMember(v any) error {
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	e.buf.Truncate(e.buf.Len() - 1)
	return nil
}

// close makes every later write a no-op returning errClosed.
func (lw *lineWriter) close() {
	lw.mu.Lock()
	lw.closed = true
	lw.mu.Unlock()
}

var errClosed = errors.New("mcp: connection closed")

// failed returns the first error the underlying writer returned, if any.
func (lw *lineWriter) failed() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}
