package toolresult

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpship/mcpship/mcp"
)

// TestShowStderr: with ShowStderr, a normal result carries stderr too:
// after stdout in text, in a block before the JSON of a structured
// result; without it, stderr is only in isError results.
func TestShowStderr(t *testing.T) {
	for _, tc := range []struct {
		stdout, stderr string
		code           int
		want           string
	}{
		{"ok\n", "warn: x\n", 0, "ok\nstderr:\nwarn: x"},
		{"ok", "warn: x", 1, "ok\n(exit status 1)\nstderr:\nwarn: x"},
		{"", "finding at a:3\n", 0, "stderr:\nfinding at a:3"},
		{"", "finding\n", 1, "(no output)\n(exit status 1)\nstderr:\nfinding"},
		{"ok\n", "", 0, "ok\n"},
		{"ok\n", "0123456789abcdefXYZ", 0, "ok\nstderr:\n0123456789abcdef\n[stderr truncated: 16 of 19 bytes shown; raise LIMIT to keep more]"},
	} {
		c := run(tc.stdout, tc.stderr)
		c.ShowStderr = true
		if res := c.Text(tc.code); res.IsError || texts(res) != tc.want {
			t.Errorf("Text(%q, stderr %q, %d) = isError %v, %q; want %q", tc.stdout, tc.stderr, tc.code, res.IsError, texts(res), tc.want)
		}
	}
	if got := texts(run("ok\n", "warn\n").Text(0)); got != "ok\n" {
		t.Errorf("without ShowStderr: %q", got)
	}

	c := run(`{"a":1}`, "warn: slow\n")
	c.ShowStderr = true
	res := c.JSON("p", 0, func(map[string]any) string { return "one" })
	if want := "one | stderr:\nwarn: slow | {\"a\":1}"; res.IsError || res.StructuredContent == nil || texts(res) != want {
		t.Errorf("JSON: isError %v, structuredContent %v, %q; want %q", res.IsError, res.StructuredContent, texts(res), want)
	}
	c = run(`[1]`, "warn\n")
	c.ShowStderr = true
	if res := c.JSONOrText(0); res.StructuredContent == nil || texts(res) != "stderr:\nwarn | {\"result\":[1]}" {
		t.Errorf("JSONOrText: %q", texts(res))
	}
}

// TestShowStderrBudget: stderr counts against the budget. Text is cut
// as a whole and kept whole, stdout and stderr; in a structured result
// stderr keeps at most a quarter of the budget, so the JSON stays whole.
func TestShowStderrBudget(t *testing.T) {
	var kept []byte
	b := &Budget{Chars: 2000, Setting: "outputBudget in m.json"}
	b.Keep = keepInto(&kept)
	c := New(1<<20, "LIMIT")
	c.ShowStderr, c.Budget = true, b
	c.Stdout.Write([]byte("out\n"))
	c.Stderr.Write([]byte(strings.Repeat("finding line\n", 1000)))
	res := c.Text(0)
	text := texts(res)
	if n := utf8.RuneCountInString(res.Content[0].Text); n > 2000 || !strings.HasPrefix(text, "out\nstderr:\nfinding line\n") || !strings.Contains(text, "cut here to fit the output budget of 2000") {
		t.Errorf("text result of %d characters:\n%s", n, text)
	}
	if !strings.HasPrefix(string(kept), "out\nstderr:\n") || strings.Count(string(kept), "finding line") != 1000 {
		t.Errorf("kept %d bytes, not the whole text", len(kept))
	}

	c = New(1<<20, "LIMIT")
	c.ShowStderr, c.Budget = true, &Budget{Chars: 4000, Setting: "outputBudget in m.json"}
	c.Stdout.Write([]byte(`{"a":1}`))
	c.Stderr.Write([]byte(strings.Repeat("finding line\n", 1000)))
	res = c.JSON("p", 0, nil)
	if len(res.Content) != 2 || res.StructuredContent == nil || res.Content[1].Text != `{"a":1}` {
		t.Fatalf("structured result: %+v", res)
	}
	if n := utf8.RuneCountInString(res.Content[0].Text); n > 1000+len("stderr:\n") || !strings.Contains(res.Content[0].Text, "characters of stderr cut here to fit the output budget of 4000 characters (outputBudget in m.json)") {
		t.Errorf("stderr block of %d characters:\n%s", n, res.Content[0].Text)
	}
}

// keepInto is a Budget.Keep that keeps the output in *kept.
func keepInto(kept *[]byte) func(string, []byte) (mcp.Resource, bool) {
	return func(mimeType string, data []byte) (mcp.Resource, bool) {
		*kept = append([]byte(nil), data...)
		return mcp.Resource{URI: "mcpship://output/1", Name: "output", MimeType: mimeType, Size: int64(len(data))}, true
	}
}
