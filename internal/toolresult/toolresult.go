// Package toolresult turns what a command printed into an MCP tool result.
// Both tool sources use it, manifest commands run as processes and
// urfave/cli commands run in process, so a tool's output reads the same
// whichever way it was served. The policy:
//
//   - Each stream keeps its first bytes up to a limit ([New]); the rest is
//     counted and dropped. A kept stream that lost bytes ends with the note
//     "[stdout truncated: N of M bytes shown; raise LIMIT to keep more]".
//   - Text output ([Capture.Text]) is stdout, "(no output)" when empty, and
//     "(exit status N)" on a line of its own for a non-zero exit code that
//     the tool counts as normal.
//   - JSON output ([Capture.JSON]) is one JSON value on stdout. An object
//     is the result's structuredContent; any other value v is wrapped as
//     {"result": v}, because structuredContent must be an object and a
//     list or number is still data a client can use. The text content is
//     an optional summary, then the JSON itself for clients that ignore
//     structuredContent; a non-zero exit code the tool counts as normal is
//     noted after the summary. Output that is not one JSON value, or that was
//     truncated (the value is cut, so it cannot be read), is an error
//     result saying so: a tool that promised JSON and printed something
//     else is broken, and a silent text fallback would hide that.
//   - A command that prints JSON only when asked, as many command-line
//     programs do with a --json flag ([Capture.JSONOrText]), gets the JSON
//     rules when its stdout is one whole JSON object or array, and the text
//     rules otherwise: there a number or a cut value is more likely text.
//   - A run that failed ([Capture.Error]) is an isError result: the
//     message, then stderr and stdout, each with its truncation note.
//   - Stderr is in a normal result only when asked ([Capture.ShowStderr]),
//     for programs that report findings there: after stdout in a text
//     result, under a "stderr:" line; in a block of its own before the
//     JSON of a structured one, at most a quarter of the budget.
//   - With a [Budget], a result whose text is longer is cut to its head
//     and tail with a note between them; the whole output (stdout, or the
//     whole text of an error) is kept as a resource that the note names and
//     the result links to. A structured result that is cut loses its
//     structuredContent: the text it would duplicate is no longer whole.
//
// Numbers in JSON output keep their exact text (1e400 and
// 100000000000000000000 are passed on as written).
package toolresult

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpship/mcpship/mcp"
)

// Capture collects the stdout and stderr of one run.
type Capture struct {
	Stdout Buffer
	Stderr Buffer
	// Budget, when set, cuts results whose text is too long ([Budget]).
	Budget *Budget
	// ShowStderr puts what the run wrote to stderr in a result that is
	// not an error too, within the budget. An isError result always
	// carries it.
	ShowStderr bool
	// Cut is set once a result was cut to the budget: it links to output
	// kept elsewhere for a while, so it must not be stored to be served
	// again.
	Cut   bool
	limit string
}

// New returns a Capture keeping at most max bytes of each stream. limit
// names the setting that sets max, for messages, such as
// "maxOutputBytes in mcpship.json".
func New(max int, limit string) *Capture {
	c := &Capture{limit: limit}
	c.Stdout = Buffer{name: "stdout", max: max}
	c.Stderr = Buffer{name: "stderr", max: max}
	return c
}

// Text returns stdout as a text result; code is the exit status, noted
// when it is not 0.
func (c *Capture) Text(code int) *mcp.CallToolResult {
	text := c.Stdout.String() + c.note(&c.Stdout)
	if text == "" {
		text = "(no output)"
	}
	if code != 0 {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += fmt.Sprintf("(exit status %d)", code)
	}
	if errText := c.stderrText(); errText != "" {
		if c.Stdout.Total() == 0 && code == 0 {
			text = ""
		} else if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += "stderr:\n" + errText
		return c.fit(mcp.TextResult(text), "text/plain", []byte(text), int64(len(text)))
	}
	return c.fit(mcp.TextResult(text), "text/plain", c.Stdout.bytes(), c.Stdout.Total())
}

// stderrText is stderr with its truncation note, for a result that shows
// it: "" unless ShowStderr is set and the run wrote to stderr.
func (c *Capture) stderrText() string {
	if !c.ShowStderr || c.Stderr.Total() == 0 {
		return ""
	}
	return strings.TrimRight(c.Stderr.String(), "\n") + c.note(&c.Stderr)
}

// withStderr adds stderr, when shown, to a structured result, in a block
// before its JSON text: at most a quarter of the budget, its middle cut,
// so that the JSON keeps its room.
func (c *Capture) withStderr(res *mcp.CallToolResult) *mcp.CallToolResult {
	text := c.stderrText()
	if text == "" {
		return res
	}
	if b := c.Budget; b != nil && b.Chars > 0 {
		room := max(b.Chars/4, minBody)
		if n := utf8.RuneCountInString(text); n > room {
			text = cutMiddle(text, room, func(_, _, _, cut int) string {
				return fmt.Sprintf("\n[… %d of %d characters of stderr cut here to fit the output budget of %d characters (%s) …]\n", cut, n, b.Chars, b.Setting)
			})
		}
	}
	last := len(res.Content) - 1
	block := mcp.Content{Type: "text", Text: "stderr:\n" + text}
	res.Content = append(res.Content[:last], block, res.Content[last])
	return res
}

// JSON returns stdout, which must be one JSON value, as a structured
// result. prog names the command in messages; code is the exit status.
// summary, when not nil, gives the text shown before the JSON, followed by
// "(exit status N)" when code is not 0. Without a summary the content is
// the JSON alone, which clients compare with structuredContent.
func (c *Capture) JSON(prog string, code int, summary func(obj map[string]any) string) *mcp.CallToolResult {
	v, err := c.decode()
	if err == errTruncated {
		return mcp.ErrorResult("%s printed %d bytes of JSON, more than the %d this tool keeps (%s); narrow the request or raise the limit.",
			prog, c.Stdout.Total(), c.Stdout.max, c.limit)
	}
	if err != nil {
		return c.Error("%s was expected to print JSON but printed something else (%v).", prog, err)
	}
	return c.fit(c.withStderr(structured(v, code, summary)), "application/json", c.Stdout.bytes(), c.Stdout.Total())
}

// JSONOrText is for a command that prints JSON when asked, such as with
// a --json flag: stdout that is one JSON object or array, whole, is a
// structured result as with [Capture.JSON]; anything else is text as with
// [Capture.Text].
func (c *Capture) JSONOrText(code int) *mcp.CallToolResult {
	v, err := c.decode()
	switch v.(type) {
	case map[string]any, []any:
		if err == nil {
			return c.fit(c.withStderr(structured(v, code, nil)), "application/json", c.Stdout.bytes(), c.Stdout.Total())
		}
	}
	return c.Text(code)
}

var errTruncated = errors.New("truncated")

// decode reads stdout as one JSON value.
func (c *Capture) decode() (any, error) {
	out := &c.Stdout
	out.mu.Lock()
	kept, truncated := out.buf, out.total > int64(len(out.buf))
	out.mu.Unlock()
	if truncated {
		return nil, errTruncated
	}
	dec := json.NewDecoder(bytes.NewReader(kept))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// structured makes a result of a JSON value, wrapping a non-object.
func structured(v any, code int, summary func(obj map[string]any) string) *mcp.CallToolResult {
	obj, ok := v.(map[string]any)
	if !ok {
		obj = map[string]any{"result": v}
	}
	raw, err := json.Marshal(obj)
	if err != nil { // Decode gives nothing Marshal refuses
		panic("toolresult: " + err.Error())
	}
	res := &mcp.CallToolResult{StructuredContent: obj}
	if summary != nil {
		head := summary(obj)
		if code != 0 {
			head += fmt.Sprintf(" (exit status %d)", code)
		}
		res.Content = append(res.Content, mcp.Content{Type: "text", Text: head})
	}
	res.Content = append(res.Content, mcp.Content{Type: "text", Text: string(raw)})
	return res
}

// Error returns an isError result: the message, then stderr and stdout
// when they are not empty.
func (c *Capture) Error(format string, args ...any) *mcp.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, format, args...)
	for _, s := range []*Buffer{&c.Stderr, &c.Stdout} {
		if text := s.String(); text != "" || s.Total() > 0 {
			fmt.Fprintf(&b, "\n%s:\n%s%s", s.name, strings.TrimRight(text, "\n"), c.note(s))
		}
	}
	return c.fit(mcp.ErrorResult("%s", b.String()), "text/plain", []byte(b.String()), int64(b.Len()))
}

// note says how much of a stream was dropped, or is "".
func (c *Capture) note(b *Buffer) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total == int64(len(b.buf)) {
		return ""
	}
	return fmt.Sprintf("\n[%s truncated: %d of %d bytes shown; raise %s to keep more]", b.name, len(b.buf), b.total, c.limit)
}

// Buffer keeps the first bytes written to it, up to its Capture's limit,
// counts the rest, and remembers the last line written. It is safe for
// concurrent use.
type Buffer struct {
	mu    sync.Mutex
	name  string
	max   int
	buf   []byte
	total int64
	line  []byte        // the line being written, at most maxLine bytes
	last  string        // the last complete non-blank line
	lines int           // complete non-blank lines written
	ended chan struct{} // gets a value when a line ends, if made (Lines)
}

// maxLine bounds what LastLine keeps of one line.
const maxLine = 200

// Write keeps what fits and always reports success, so that a writer is
// never blocked or failed by the limit.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	for rest := p; len(rest) > 0; {
		i := bytes.IndexAny(rest, "\r\n") // a progress bar redraws with \r
		if i < 0 {
			b.line = append(b.line, rest[:min(len(rest), maxLine-len(b.line))]...)
			break
		}
		b.line = append(b.line, rest[:min(i, maxLine-len(b.line))]...)
		if l := bytes.TrimSpace(b.line); len(l) > 0 {
			b.last = string(l)
			b.lines++
			if b.ended != nil {
				select {
				case b.ended <- struct{}{}:
				default: // one is pending already
				}
			}
		}
		b.line, rest = b.line[:0], rest[i+1:]
	}
	return len(p), nil
}

// String returns what was kept.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// bytes returns a copy of what was kept.
func (b *Buffer) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf)
}

// Total returns how many bytes were written, kept or not.
func (b *Buffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Lines returns a channel that gets a value when a non-blank line has
// been written since the last value was taken (values do not pile up),
// and how many such lines were written so far.
func (b *Buffer) Lines() (ended <-chan struct{}, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended == nil {
		b.ended = make(chan struct{}, 1)
	}
	return b.ended, b.lines
}

// Completed returns the number of complete non-blank lines written and the
// last of them, at most 200 bytes of it, as valid UTF-8.
func (b *Buffer) Completed() (n int, last string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lines, strings.ToValidUTF8(b.last, "\uFFFD")
}

// LastLine returns the last non-blank line written so far (the line
// being written when it has text), at most 200 bytes of it, as valid
// UTF-8. It is "" before any text.
func (b *Buffer) LastLine() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.last
	if l := bytes.TrimSpace(b.line); len(l) > 0 {
		s = string(l)
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}
