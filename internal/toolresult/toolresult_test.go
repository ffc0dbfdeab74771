package toolresult

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/mcp"
)

// run returns a Capture that kept at most 16 bytes of each of stdout and
// stderr as given.
func run(stdout, stderr string) *Capture {
	c := New(16, "LIMIT")
	fmt.Fprint(&c.Stdout, stdout)
	fmt.Fprint(&c.Stderr, stderr)
	return c
}

// texts joins a result's text blocks with " | ".
func texts(res *mcp.CallToolResult) string {
	var s []string
	for _, c := range res.Content {
		s = append(s, c.Text)
	}
	return strings.Join(s, " | ")
}

func TestText(t *testing.T) {
	for _, tc := range []struct {
		stdout string
		code   int
		want   string
	}{
		{"hello\n", 0, "hello\n"},
		{"", 0, "(no output)"},
		{"", 3, "(no output)\n(exit status 3)"},
		{"partial", 3, "partial\n(exit status 3)"},
		{"line\n", 3, "line\n(exit status 3)"},
		{"0123456789abcdefXYZ", 0, "0123456789abcdef\n[stdout truncated: 16 of 19 bytes shown; raise LIMIT to keep more]"},
	} {
		res := run(tc.stdout, "ignored").Text(tc.code)
		if res.IsError || texts(res) != tc.want {
			t.Errorf("Text(%q, %d) = isError %v, %q; want %q", tc.stdout, tc.code, res.IsError, texts(res), tc.want)
		}
	}
}

func TestJSON(t *testing.T) {
	for _, tc := range []struct {
		stdout string
		code   int
		want   string // the structuredContent, as JSON
		text   string
	}{
		{`{"a":1}`, 0, `{"a":1}`, `{"a":1}`},
		{" [1,2]\n", 0, `{"result":[1,2]}`, `{"result":[1,2]}`},
		{`"s"`, 0, `{"result":"s"}`, `{"result":"s"}`},
		{`null`, 0, `{"result":null}`, `{"result":null}`},
		{`1e400`, 0, `{"result":1e400}`, `{"result":1e400}`},
		{`-1e20`, 0, `{"result":-1e20}`, `{"result":-1e20}`},
		{`{"n":123456789}`, 0, `{"n":123456789}`, `{"n":123456789}`},
		{`{}`, 2, `{}`, `{}`},
	} {
		res := run(tc.stdout, "").JSON("prog", tc.code, nil)
		got, _ := json.Marshal(res.StructuredContent)
		if res.IsError || string(got) != tc.want || texts(res) != tc.text {
			t.Errorf("JSON(%q) = isError %v, structured %s, text %q; want %s, %q", tc.stdout, res.IsError, got, texts(res), tc.want, tc.text)
		}
	}
	summary := func(obj map[string]any) string { return fmt.Sprint(len(obj), " keys") }
	if res := run(`{"a":1,"b":2}`, "").JSON("prog", 1, summary); texts(res) != `2 keys (exit status 1) | {"a":1,"b":2}` {
		t.Errorf("with a summary: %q", texts(res))
	}
}

func TestJSONThatCannotBeRead(t *testing.T) {
	for _, tc := range []struct{ stdout, want string }{
		{"plain text", "prog was expected to print JSON but printed something else (invalid character 'p'"},
		{`{"a":1} {"b":2}`, "(more than one JSON value)"},
		{"", "(EOF)"},
		{`{"long":"0123456789"}`, "prog printed 21 bytes of JSON, more than the 16 this tool keeps (LIMIT)"},
	} {
		res := run(tc.stdout, "why\n").JSON("prog", 0, nil)
		if !res.IsError || !strings.Contains(texts(res), tc.want) || res.StructuredContent != nil {
			t.Errorf("JSON(%q) = isError %v, %q; want an error containing %q", tc.stdout, res.IsError, texts(res), tc.want)
		}
	}
	if res := run("plain text", "why\n").JSON("prog", 0, nil); !strings.HasSuffix(texts(res), "\nstderr:\nwhy\nstdout:\nplain text") {
		t.Errorf("not JSON: the streams are missing: %q", texts(res))
	}
}

func TestError(t *testing.T) {
	res := run("out\n", "0123456789abcdefXYZ").Error("prog exited with status %d.", 4)
	want := "prog exited with status 4.\nstderr:\n0123456789abcdef\n[stderr truncated: 16 of 19 bytes shown; raise LIMIT to keep more]\nstdout:\nout"
	if !res.IsError || texts(res) != want {
		t.Errorf("Error = isError %v, %q; want %q", res.IsError, texts(res), want)
	}
	if res := run("", "").Error("failed"); texts(res) != "failed" {
		t.Errorf("Error with no output = %q", texts(res))
	}
}

func TestLastLine(t *testing.T) {
	for _, tc := range []struct {
		writes []string
		want   string
	}{
		{nil, ""},
		{[]string{"one\ntwo\n"}, "two"},
		{[]string{"one\ntw", "o\n\n  \n"}, "two"},
		{[]string{"step 1\n", "50%"}, "50%"},
		{[]string{"10%\r20%\r"}, "20%"},
		{[]string{strings.Repeat("x", 300) + "\n"}, strings.Repeat("x", 200)},
		{[]string{"bad \xff\n"}, "bad \uFFFD"},
		{[]string{strings.Repeat("long line beyond the limit ", 10), "\nlast\n"}, "last"},
	} {
		b := &New(4, "LIMIT").Stderr
		for _, w := range tc.writes {
			fmt.Fprint(b, w)
		}
		if got := b.LastLine(); got != tc.want {
			t.Errorf("LastLine after %q = %q, want %q", tc.writes, got, tc.want)
		}
	}
}

func TestJSONOrText(t *testing.T) {
	for _, tc := range []struct {
		stdout string
		want   string // the structuredContent as JSON, or "" for a text result
		text   string
	}{
		{`{"a":1}`, `{"a":1}`, `{"a":1}`},
		{`[1]`, `{"result":[1]}`, `{"result":[1]}`},
		{`42`, "", "42"},
		{`plain`, "", "plain"},
		{`{"a":1} {}`, "", `{"a":1} {}`},
		{`{"long":"0123456789"}`, "", "{\"long\":\"0123456\n[stdout truncated: 16 of 21 bytes shown; raise LIMIT to keep more]"},
	} {
		res := run(tc.stdout, "").JSONOrText(0)
		got := ""
		if res.StructuredContent != nil {
			b, _ := json.Marshal(res.StructuredContent)
			got = string(b)
		}
		if res.IsError || got != tc.want || texts(res) != tc.text {
			t.Errorf("JSONOrText(%q) = isError %v, structured %s, text %q; want %s, %q", tc.stdout, res.IsError, got, texts(res), tc.want, tc.text)
		}
	}
}
