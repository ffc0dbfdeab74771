package toolresult

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpship/mcpship/mcp"
)

// Budget cuts a result whose text is longer than the client takes. The
// cut keeps the head and the tail of the text, with a note between them
// saying how much was cut and where the rest is: the whole output, kept
// by Keep as a resource, which the result also links to.
type Budget struct {
	// Chars is the most characters (Unicode code points) of text a
	// result carries; ErrorChars, of an isError result (0: Chars).
	Chars, ErrorChars int
	// Setting names the setting that sets Chars, for the note, such as
	// "outputBudget in mcpship.json".
	Setting string
	// Keep keeps the whole output, data, and returns the resource that
	// names it; ok is false when it was not kept. nil keeps nothing.
	Keep func(mimeType string, data []byte) (res mcp.Resource, ok bool)
	// Link adds a "resource_link" block for the kept output to a cut
	// result: for clients of revision 2025-06-18 and later, which know
	// the block. The note names the resource either way.
	Link bool
}

// Budgets in characters: the default of a result and of an isError
// result, and the range a budget set by a tool's author may take (room
// for a head, a tail and the note between them; at most what the output
// limit can keep). Manifest tools and in-process tools share them; the
// manifest's documentation names the clients' limits they fit.
const (
	// DefaultChars is under the 50,000 characters past which Claude Code
	// sets a result aside in a file, and about 10,000 tokens, where it
	// warns.
	DefaultChars = 40000
	// DefaultErrorChars: Claude Code keeps only about 11,000 characters
	// of an isError result.
	DefaultErrorChars = 10000
	MinChars          = 1000
	MaxChars          = 64 << 20
)

// ToolMeta is the _meta of a tool whose results may be as long as chars:
// Claude Code sets aside in a file a result longer than 50,000 characters
// unless the tool says it may be longer (up to 500,000); nil when chars is
// within that.
func ToolMeta(chars int) map[string]any {
	if chars <= 50000 {
		return nil
	}
	return map[string]any{"anthropic/maxResultSizeChars": min(chars, 500000)}
}

// minBody is the fewest characters the cut keeps of the text, note
// included, however long the other blocks are.
const minBody = 600

// fit cuts res, when its text is over the budget: the last text block,
// the body, loses its middle, and a structured result loses its
// structuredContent (the JSON text that duplicates it is what was cut).
// data is the whole output, of type mimeType, to keep, and total how many
// bytes the program wrote of it (more than data when the limit of New cut
// it).
func (c *Capture) fit(res *mcp.CallToolResult, mimeType string, data []byte, total int64) *mcp.CallToolResult {
	b := c.Budget
	if b == nil || b.Chars <= 0 || len(res.Content) == 0 {
		return res
	}
	limit := b.Chars
	if res.IsError && b.ErrorChars > 0 {
		limit = b.ErrorChars
	}
	last := len(res.Content) - 1
	others := 0
	for _, ct := range res.Content[:last] {
		others += utf8.RuneCountInString(ct.Text)
	}
	body := res.Content[last].Text
	chars := utf8.RuneCountInString(body)
	if others+chars <= limit {
		return res
	}
	room := max(limit-others, minBody)
	if chars <= room {
		return res // the other blocks are over the budget; the body is short already
	}
	var link *mcp.Resource
	if b.Keep != nil {
		if r, ok := b.Keep(mimeType, data); ok {
			link = &r
		}
	}
	note := func(from, to, lines, cut int) string {
		var s strings.Builder
		s.WriteString("\n[… ")
		if lines > 0 {
			fmt.Fprintf(&s, "lines %d to %d of %d (%d characters)", from, to, lines, cut)
		} else {
			fmt.Fprintf(&s, "%d of %d characters", cut, chars)
		}
		fmt.Fprintf(&s, " cut here to fit the output budget of %d characters (%s). ", limit, b.Setting)
		switch {
		case link != nil && total > link.Size:
			fmt.Fprintf(&s, "The first %d of the %d bytes printed, all that %s keeps, are the resource %s: read it with resources/read, or narrow the request.", link.Size, total, c.limit, link.URI)
		case link != nil:
			fmt.Fprintf(&s, "The whole output, %d bytes, is the resource %s: read it with resources/read, or narrow the request.", link.Size, link.URI)
		default:
			s.WriteString("The rest was not kept: narrow the request, or raise the budget.")
		}
		s.WriteString(" …]\n")
		return s.String()
	}
	res.Content[last].Text = cutMiddle(body, room, note)
	c.Cut = true
	res.StructuredContent = nil
	if link != nil && b.Link {
		res.Content = append(res.Content, mcp.Content{Type: "resource_link", URI: link.URI, Name: link.Name,
			Description: link.Description, MimeType: link.MimeType, Size: link.Size})
	}
	return res
}

// cutMiddle returns text in at most room characters: its head, the note,
// and its tail. The head ends and the tail begins at a line break when one
// is near. note gets the lines cut (from, to, of how many lines; 0 when
// the text is one line) and the characters cut.
func cutMiddle(text string, room int, note func(from, to, lines, chars int) string) string {
	total := utf8.RuneCountInString(text)
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		lines++
	}
	if lines == 1 {
		lines = 0
	}
	// The note is longest with the largest numbers.
	keep := max(room-utf8.RuneCountInString(note(total, total, lines, total)), 2)
	headLen := byteOffset(text, keep*6/10)
	if nl := strings.LastIndexByte(text[:headLen], '\n'); nl >= 0 && nl >= headLen*4/5 {
		headLen = nl + 1
	}
	tailLen := len(text) - byteOffset(text, total-(keep-keep*6/10))
	tailStart := len(text) - tailLen
	if nl := strings.IndexByte(text[tailStart:], '\n'); nl >= 0 && nl < tailLen/5 && tailStart+nl+1 < len(text) {
		tailStart += nl + 1
	}
	if tailStart < headLen {
		tailStart = headLen
	}
	head, cut, tail := text[:headLen], text[headLen:tailStart], text[tailStart:]
	from := strings.Count(head, "\n") + 1
	to := from + strings.Count(cut, "\n")
	if strings.HasSuffix(cut, "\n") {
		to--
	}
	return head + note(from, to, lines, utf8.RuneCountInString(cut)) + tail
}

// byteOffset returns the offset in s of the character numbered n (the
// length of s when it has fewer).
func byteOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
