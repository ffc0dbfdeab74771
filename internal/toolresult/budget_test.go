package toolresult

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpship/mcpship/mcp"
)

// budgeted returns a Capture of stdout under a budget of chars, whose
// Keep records what it kept.
func budgeted(stdout string, chars int, kept *[]byte) *Capture {
	c := New(1<<20, "LIMIT")
	fmt.Fprint(&c.Stdout, stdout)
	c.Budget = &Budget{Chars: chars, ErrorChars: chars / 2, Setting: "BUDGET", Link: true,
		Keep: func(mimeType string, data []byte) (mcp.Resource, bool) {
			*kept = data
			return mcp.Resource{URI: "mcpship://output/x-1", Name: "t output 1", MimeType: mimeType, Size: int64(len(data))}, true
		}}
	return c
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d é\n", i)
	}
	return b.String()
}

func TestBudgetCutsTheMiddle(t *testing.T) {
	out := numbered(10000)
	var kept []byte
	c := budgeted(out, 2000, &kept)
	res := c.Text(0)
	if !c.Cut {
		t.Error("Cut is not set")
	}
	text := res.Content[0].Text
	if n := utf8.RuneCountInString(text); n > 2000 || n < 1500 {
		t.Errorf("cut text has %d characters, want at most 2000 and most of them", n)
	}
	if !strings.HasPrefix(text, "line 1 é\nline 2 é\n") || !strings.HasSuffix(text, "line 10000 é\n") {
		t.Errorf("the head or the tail is missing:\n%s", text)
	}
	if !bytes.Equal(kept, []byte(out)) {
		t.Errorf("kept %d bytes, want all %d of stdout", len(kept), len(out))
	}
	// The note says which lines were cut: the last line of the head is
	// the one before, the first of the tail the one after.
	i := strings.Index(text, "\n[… lines ")
	if i < 0 {
		t.Fatalf("no note:\n%s", text)
	}
	var from, to, of, chars int
	if _, err := fmt.Sscanf(text[i:], "\n[… lines %d to %d of %d (%d characters)", &from, &to, &of, &chars); err != nil {
		t.Fatalf("note %q: %v", text[i:i+80], err)
	}
	if of != 10000 || !strings.Contains(text[:i], fmt.Sprintf("\nline %d é\n", from-1)) ||
		!strings.Contains(text, fmt.Sprintf("…]\nline %d é\n", to+1)) {
		t.Errorf("note says lines %d to %d of %d:\n%s", from, to, of, text)
	}
	if want := utf8.RuneCountInString(out) - utf8.RuneCountInString(strings.Replace(text, text[i:strings.Index(text, "…]\n")+len("…]\n")], "", 1)); chars != want {
		t.Errorf("note says %d characters were cut, but %d were", chars, want)
	}
	for _, want := range []string{"output budget of 2000 characters (BUDGET)", fmt.Sprintf("The whole output, %d bytes, is the resource mcpship://output/x-1: read it with resources/read", len(out))} {
		if !strings.Contains(text, want) {
			t.Errorf("note lacks %q:\n%s", want, text[i:])
		}
	}
	if len(res.Content) != 2 || res.Content[1].Type != "resource_link" || res.Content[1].URI != "mcpship://output/x-1" || res.Content[1].MimeType != "text/plain" {
		t.Errorf("want a resource_link after the text, got %+v", res.Content[1:])
	}
}

func TestBudgetLeavesShortResults(t *testing.T) {
	var kept []byte
	c := budgeted("short\n", 2000, &kept)
	res := c.Text(0)
	if texts(res) != "short\n" || kept != nil || len(res.Content) != 1 || c.Cut {
		t.Errorf("got %+v, kept %q", res.Content, kept)
	}
}

func TestBudgetOneLongLine(t *testing.T) {
	out := strings.Repeat("ab", 5000)
	var kept []byte
	c := budgeted(out, 1000, &kept)
	c.Budget.Link = false
	res := c.Text(0)
	text := res.Content[0].Text
	if n := utf8.RuneCountInString(text); n > 1000 {
		t.Errorf("%d characters", n)
	}
	if !strings.Contains(text, "\n[… ") || !strings.Contains(text, " of 10000 characters cut here") {
		t.Errorf("note:\n%s", text)
	}
	if len(res.Content) != 1 {
		t.Errorf("Link false still linked: %+v", res.Content)
	}
}

func TestBudgetJSON(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := range 2000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"n":%d}`, i)
	}
	b.WriteString("]}")
	var kept []byte
	res := budgeted(b.String(), 3000, &kept).JSON("prog", 0, func(map[string]any) string { return "2000 items" })
	if res.StructuredContent != nil || res.IsError {
		t.Errorf("a cut JSON result keeps structuredContent (%v) or is an error (%v)", res.StructuredContent != nil, res.IsError)
	}
	if res.Content[0].Text != "2000 items" || !strings.HasPrefix(res.Content[1].Text, `{"items":[{"n":0}`) || !strings.HasSuffix(res.Content[1].Text, `{"n":1999}]}`) {
		t.Errorf("content: %.200q", texts(res))
	}
	if string(kept) != b.String() || res.Content[2].MimeType != "application/json" {
		t.Errorf("kept %d bytes as %s", len(kept), res.Content[2].MimeType)
	}
}

func TestBudgetErrors(t *testing.T) {
	var kept []byte
	c := budgeted(numbered(3000), 4000, &kept)
	fmt.Fprint(&c.Stderr, "bad things\n")
	res := c.Error("prog exited with status 2.")
	text := res.Content[0].Text
	if !res.IsError || utf8.RuneCountInString(text) > 2000 {
		t.Errorf("error result of %d characters, want at most ErrorChars 2000", utf8.RuneCountInString(text))
	}
	if !strings.HasPrefix(text, "prog exited with status 2.\nstderr:\nbad things\nstdout:\nline 1 é\n") || !strings.HasSuffix(text, "line 3000 é") {
		t.Errorf("head or tail lost:\n%s", text)
	}
	if !strings.HasPrefix(string(kept), "prog exited with status 2.\nstderr:\nbad things\n") || !strings.HasSuffix(string(kept), "line 3000 é") {
		t.Errorf("kept %q…", kept[:60])
	}
}

func TestBudgetNotKept(t *testing.T) {
	c := New(1<<20, "LIMIT")
	fmt.Fprint(&c.Stdout, numbered(1000))
	c.Budget = &Budget{Chars: 1000, Setting: "BUDGET", Link: true}
	res := c.Text(0)
	if len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, "The rest was not kept: narrow the request, or raise the budget.") {
		t.Errorf("got %+v", res.Content)
	}
}

// TestBudgetAfterTheLimit: when maxOutputBytes cut stdout, the note says
// the resource holds the first bytes only.
func TestBudgetAfterTheLimit(t *testing.T) {
	var kept []byte
	c := budgeted("", 1000, &kept)
	c.Stdout.max = 5000
	fmt.Fprint(&c.Stdout, numbered(2000))
	res := c.Text(0)
	if want := fmt.Sprintf("The first 5000 of the %d bytes printed, all that LIMIT keeps, are the resource mcpship://output/x-1", len(numbered(2000))); !strings.Contains(res.Content[0].Text, want) || len(kept) != 5000 {
		t.Errorf("kept %d bytes; note:\n%s", len(kept), res.Content[0].Text)
	}
}
