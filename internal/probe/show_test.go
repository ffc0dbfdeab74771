package probe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/mcp"
)

func TestKind(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type": "string"}`, "string"},
		{`{}`, "any"},
		{`{"type": ["string", "null"]}`, "string | null"},
		{`{"type": "array", "items": {"type": "integer"}}`, "array of integer"},
		{`{"type": "array"}`, "array"},
		{`{"type": "array", "items": {"enum": ["a", "b"]}}`, `array of "a" | "b"`},
		{`{"type": "string", "enum": ["lines", "words"]}`, `"lines" | "words"`},
		{`{"const": 3}`, "3"},
		{`{"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}`, "string | array of string"},
		{`{"oneOf": [{"type": "object"}, {"type": "boolean"}]}`, "object | boolean"},
	} {
		var s schema
		if err := json.Unmarshal([]byte(tc.schema), &s); err != nil {
			t.Fatal(err)
		}
		if got := s.kind(); got != tc.want {
			t.Errorf("kind of %s = %q, want %q", tc.schema, got, tc.want)
		}
	}
}

func TestPrintTools(t *testing.T) {
	init := &mcp.InitializeResult{ProtocolVersion: "2025-06-18", ServerInfo: mcp.Implementation{Name: "demo", Version: "1.0"},
		Instructions: "Use search first.", Capabilities: mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{}}}
	tools := []mcp.Tool{
		{Name: "search", Description: "Find things. " + strings.Repeat("word ", 20) + "\n\nSecond paragraph.",
			InputSchema: json.RawMessage(`{"type": "object", "properties": {"q": {"type": "string", "description": "what to find"},
				"limit": {"type": "integer", "default": 10}, "mode": {"enum": ["fast", "full"]}}, "required": ["q"]}`),
			Annotations: &mcp.ToolAnnotations{Title: "Search", ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}},
		{Name: "ping", Title: "Ping", Description: "Ping", InputSchema: json.RawMessage(`{"type": "object"}`),
			OutputSchema: json.RawMessage(`{"type": "object", "properties": {"ms": {"type": "number"}, "hosts": {"type": "array", "items": {"type": "string"}}}}`)},
	}
	var b bytes.Buffer
	if err := printTools(&b, init, tools); err != nil {
		t.Fatal(err)
	}
	want := `demo 1.0 (protocol 2025-06-18): 2 tools
Use search first.

search: Search
    Find things. word word word word word word word word word word word word
    word word word word word word word word

    Second paragraph.
    q      string, required     what to find
    limit  integer, default 10
    mode   "fast" | "full"
    hints: read-only, closed world

ping: Ping
    (no inputs)
    output: ms number, hosts array of string
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestPrintResult(t *testing.T) {
	for _, tc := range []struct{ name, result, want string }{
		{"text", `{"content": [{"type": "text", "text": "hello"}, {"type": "text", "text": "two\n"}]}`, "hello\ntwo\n"},
		// The text copy of the structuredContent is left out; a summary is
		// kept, and numbers keep their digits.
		{"structured", `{"content": [{"type": "text", "text": "2 files"}, {"type": "text", "text": "{\"n\":12345678901234567890,\"a\":[1]}"}],
			"structuredContent": {"n": 12345678901234567890, "a": [1]}}`,
			"2 files\n{\n  \"n\": 12345678901234567890,\n  \"a\": [\n    1\n  ]\n}\n"},
		{"other text kept", `{"content": [{"type": "text", "text": "{\"n\": 2}"}], "structuredContent": {"n": 1}}`, "{\"n\": 2}\n{\n  \"n\": 1\n}\n"},
		{"media", `{"content": [{"type": "image", "mimeType": "image/png", "data": "AAECAw=="},
			{"type": "audio", "mimeType": "audio/wav", "data": "!"},
			{"type": "resource_link", "name": "notes", "uri": "file:///notes.txt"},
			{"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "body"}},
			{"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AA=="}},
			{"type": "hologram"}]}`,
			"[image image/png, 4 bytes]\n[audio audio/wav, 1 characters of invalid base64]\n[resource link notes: file:///notes.txt]\n" +
				"[resource file:///a.txt text/plain]\nbody\n[resource file:///b.bin , 1 byte]\n[hologram content]\n"},
		{"null structured", `{"content": [], "structuredContent": null}`, ""},
	} {
		var r toolResult
		if err := json.Unmarshal([]byte(tc.result), &r); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var b bytes.Buffer
		if err := printResult(&b, &r); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tc.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}

func TestArguments(t *testing.T) {
	for _, tc := range []struct{ arg, stdin, want string }{
		{`{"a": 1}`, "", ""},
		{`-`, `{"b": [2]}`, ""},
		{`{"a": 1,}`, "", "the arguments are not valid JSON: line 1, column 9: invalid character '}' looking for beginning of object key string\n    {\"a\": 1,}\n            ^"},
		{`-`, "{\n  \"a\": 1\n  \"b\": 2\n}", "the arguments on standard input are not valid JSON: line 3, column 3: invalid character '\"' after object key:value pair\n      \"b\": 2\n      ^"},
		{`-`, "", `the arguments on standard input are empty: give a JSON object, such as '{"path": "a.txt"}', or '{}'`},
		{`-`, " \n", `the arguments on standard input are empty: give a JSON object, such as '{"path": "a.txt"}', or '{}'`},
		{`-`, "\uFEFF{\"a\": 1}\r\n", ""}, // a byte order mark, as Notepad or PowerShell write
		{`-`, "\uFEFF", `the arguments on standard input are empty: give a JSON object, such as '{"path": "a.txt"}', or '{}'`},
		{`{"a": 1} {}`, "", "the arguments are not valid JSON: line 1, column 10: invalid character '{' after top-level value\n    {\"a\": 1} {}\n             ^"},
		{`[1]`, "", `the arguments must be a JSON object, such as '{"path": "a.txt"}', not an array`},
		{`"x"`, "", `the arguments must be a JSON object, such as '{"path": "a.txt"}', not a string`},
		{`@/nonexistent/args.json`, "", "cannot read the arguments: open /nonexistent/args.json: no such file or directory"},
	} {
		got, err := arguments(strings.NewReader(tc.stdin), tc.arg, true)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.arg, err)
		case tc.want == "" && (!json.Valid(got) || got[0] != '{'):
			t.Errorf("%q: got %q", tc.arg, got)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%q %q: got error\n%v\nwant\n%s", tc.arg, tc.stdin, err, tc.want)
		}
	}
	if got, err := arguments(nil, "", false); err != nil || string(got) != "{}" {
		t.Errorf("no arguments: got %s, %v", got, err)
	}
}

// TestPrintToolsControlCharacters: what a server says of its tools is
// printed with its control characters escaped, so that it cannot move the
// cursor, recolour or retitle the terminal.
func TestPrintToolsControlCharacters(t *testing.T) {
	init := &mcp.InitializeResult{ProtocolVersion: "2025-06-18", ServerInfo: mcp.Implementation{Name: "evil\x1b]0;title\x07", Version: "1"},
		Capabilities: mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{}}}
	tools := []mcp.Tool{{Name: "\x1b[31mred", Description: "clears\x1b[2J\rthe screen\tü",
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"a\u001b[1m": {"type": "string", "description": "x\u009by"}}}`)}}
	var b bytes.Buffer
	if err := printTools(&b, init, tools); err != nil {
		t.Fatal(err)
	}
	want := `evil\x1b]0;title\a 1 (protocol 2025-06-18): 1 tool

\x1b[31mred
    clears\x1b[2J the screen ü
    a\x1b[1m  string  x\u009by
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
