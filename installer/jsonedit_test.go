package installer

import (
	"strings"
	"testing"
)

var testEntry = []field{
	{"type", "stdio"},
	{"command", "/usr/bin/mcpship"},
	{"args", []string{"serve", "--manifest", "/p/mcpship.json"}},
	{"env", []field{{"TOKEN", "a\"b\\c<&>"}}},
}

// roundTrip adds testEntry as name under container and removes it again,
// checking the file parses after each step, holds what it should, and
// comes back byte for byte.
func roundTrip(t *testing.T, f format, in string, container []string, name string) string {
	t.Helper()
	d, err := f.parse("cfg", []byte(in))
	if err != nil {
		t.Fatalf("parse input: %v", err)
	}
	before := modelOf(t, d)
	if err != nil {
		t.Fatal(err)
	}
	out, created, err := d.set(container, name, testEntry)
	if err != nil {
		t.Fatalf("set: %v", err)
	}
	d2, err := f.parse("cfg", out)
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, out)
	}
	got := modelOf(t, d2)
	if err != nil {
		t.Fatal(err)
	}
	want, err := applySet(before, container, name, plain(testEntry), 0, f.list())
	if err != nil {
		t.Fatal(err)
	}
	if !sameModel(got, want) {
		t.Fatalf("after set, model = %v, want %v\n%s", got, want, out)
	}
	es, err := d2.entries(container)
	if err != nil {
		t.Fatal(err)
	}
	if es[len(es)-1].name != name {
		t.Errorf("new entry is not last: %v", es)
	}
	back, err := d2.remove(container, name, created)
	if err != nil {
		t.Fatalf("remove: %v", err)
	}
	wantBack := in
	if _, ok := f.(jsonFormat); !ok && in != "" && !strings.HasSuffix(in, "\n") {
		wantBack += "\n" // the text editors end the last line
	}
	if string(back) != wantBack && !isSpace([]byte(in)) {
		t.Errorf("remove(set(x)) != x\n--- x\n%s\n--- set(x)\n%s\n--- remove(set(x))\n%s", in, out, back)
	}
	return string(out)
}

var jsonInputs = map[string]string{
	"pretty": `{
  "mcpServers": {
    "existing": {
      "command": "npx",
      "args": ["-y", "x"],
      "disabled": true
    }
  },
  "otherTopLevel": {"keep": [1, 2.50, 3e2]}
}
`,
	"empty container":   "{\n  \"mcpServers\": {},\n  \"a\": 1\n}\n",
	"missing container": "{\n\t\"preferences\": {\n\t\t\"x\": true\n\t}\n}",
	"compact":           `{"mcpServers":{"a":{"command":"x"}},"z":null}`,
	"crlf":              "{\r\n    \"mcpServers\": {\r\n        \"a\": {\r\n            \"command\": \"x\"\r\n        }\r\n    }\r\n}\r\n",
	"empty object":      "{}",
	"blank":             "",
	"one line spaced":   `{ "mcpServers": { "a": { "command": "x" } } }`,
}

var jsoncInputs = map[string]string{
	"comments and trailing commas": `// Zed settings
{
  "theme": "One Dark", // my theme
  /* servers */
  "context_servers": {
    // "old": {"command": "x"},
    "a": {
      "command": "x", // trailing
    },
  },
}
`,
	"comment in empty container": "{\n  \"context_servers\": { // none yet\n  }\n}\n",
	"tricky comment":             "{\n  /* } \" { */\n  \"context_servers\": {\n    \"a\": {\"command\": \"x\"} // }\n  }\n}\n",
	"last member comment":        "{\n  \"context_servers\": {\n    \"a\": {\"command\": \"x\"} /* c */,\n  }\n}\n",
}

func TestJSONRoundTrip(t *testing.T) {
	names := []string{"mcpship", "my.server", "@org/pkg", "a*b?c|d#e", `we"ird\`, "ü ~1"}
	for label, in := range jsonInputs {
		for _, name := range names {
			roundTrip(t, jsonFormat{}, in, []string{"mcpServers"}, name)
			roundTrip(t, jsonFormat{jsonc: true}, in, []string{"mcpServers"}, name)
		}
		_ = label
	}
	for _, in := range jsoncInputs {
		for _, name := range names {
			roundTrip(t, jsonFormat{jsonc: true}, in, []string{"context_servers"}, name)
		}
	}
}

func TestJSONNestedContainer(t *testing.T) {
	// Claude Code's local scope: projects["/abs/dir"].mcpServers.
	in := "{\n  \"projects\": {\n    \"/other\": {\n      \"mcpServers\": {}\n    }\n  },\n  \"numStartups\": 3\n}\n"
	out := roundTrip(t, jsonFormat{}, in, []string{"projects", "/home/u/my.proj", "mcpServers"}, "x")
	if !strings.Contains(out, "    \"/home/u/my.proj\": {\n      \"mcpServers\": {\n        \"x\": {") {
		t.Errorf("nested entry not indented like its neighbours:\n%s", out)
	}
}

func TestJSONIndentedLikeNeighbours(t *testing.T) {
	out := roundTrip(t, jsonFormat{}, jsonInputs["crlf"], []string{"mcpServers"}, "x")
	if strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\n") {
		t.Errorf("LF written into a CRLF file:\n%q", out)
	}
	if !strings.Contains(out, "\r\n        \"x\": {\r\n            \"type\": \"stdio\",") {
		t.Errorf("entry not indented with 4 spaces:\n%s", out)
	}
}

func TestJSONRefuses(t *testing.T) {
	cases := []struct {
		in      string
		jsonc   bool
		line    int
		wantMsg string
	}{
		{"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"\n", false, 4, "invalid JSON"},
		{"{\n  \"mcpServers\": \"none\"\n}", false, 2, `"mcpServers" is a string, not an object`},
		{"{\n  \"mcpServers\": [1]\n}", true, 2, `"mcpServers" is an array`},
		{"[1, 2]", false, 1, "top level is not an object"},
		{"{\"a\": 1, // c\n}", false, 1, "invalid JSON"},
		{"{\n\"mcpServers\": {},\n\"mcpServers\": {}}", false, 3, "appears twice"},
		{"\x00\x01\xff\xfe", true, 1, "not UTF-8"},
		{"{\n  \"mcpServers\": {\n    \"a\": 1,\n  }", true, 4, "invalid JSON"},
	}
	for _, c := range cases {
		d, err := jsonFormat{jsonc: c.jsonc}.parse("f.json", []byte(c.in))
		if err == nil {
			_, _, err = d.set([]string{"mcpServers"}, "x", testEntry)
		}
		fe, ok := err.(*FileError)
		if !ok {
			t.Errorf("%q: err = %v, want a FileError", c.in, err)
			continue
		}
		if fe.Line != c.line || !strings.Contains(fe.Msg, c.wantMsg) || fe.File != "f.json" {
			t.Errorf("%q: got %v (line %d), want line %d and %q", c.in, err, fe.Line, c.line, c.wantMsg)
		}
	}
}
