package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestParseReportsEveryProblemWithPath(t *testing.T) {
	src := `{
  "tools": [
    {
      "name": "bad name",
      "description": "x",
      "comand": ["x"],
      "inputs": {
        "n": {"type": "int"},
        "paths": {"type": "array", "items": "string"},
        "flag": {"type": "boolean"}
      },
      "timeout": "soon"
    },
    {
      "name": "b",
      "description": "y",
      "command": ["{prog}", "{missing}", "x{paths}", "{flag}"],
      "inputs": {"paths": {"type": "array"}, "flag": {"type": "boolean"}, "unused": {}},
      "output": "xml",
      "okExitCodes": [0, 300]
    }
  ]
}`
	_, err := Parse("m.json", []byte(src))
	var p *Problems
	if !errors.As(err, &p) {
		t.Fatalf("Parse: got %v, want *Problems", err)
	}
	got := err.Error()
	for _, want := range []string{
		`m.json:6:7: tools[0].comand: unknown field "comand" (did you mean "command"?)`,
		`m.json:12:18: tools[0].timeout: "soon" is not a positive duration`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	// The unknown field hides its tool's "missing command", nothing else.
	if strings.Contains(got, `tools[0]: missing "command"`) {
		t.Errorf("a consequence of the unknown field is reported:\n%s", got)
	}
	for _, want := range []string{
		`m.json:4:15: tools[0].name: "bad name" is not a valid tool name`,
		`m.json:8:23: tools[0].inputs.n.type: "int" is not an input type; use one of string, integer, number, boolean, array, object`,
		`tools[1].command[0]: the program must be fixed text, not "{prog}"`,
		`tools[1].command[1]: {missing} names no input`,
		`tools[1].command[2]: array input "paths" must be a whole argument`,
		`tools[1].command[3]: boolean input "flag" is a whole argument but has no "flag"`,
		`tools[1].inputs.unused: input "unused" is never used`,
		`tools[1].output: "xml" is not an output mode`,
		`tools[1].okExitCodes[1]: 300 is not an exit code`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestParseSyntaxErrorsHavePositions(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"{\n  \"tools\": [\n}", "m.json:3:1: invalid JSON"},
		{`{"tools": [], "tools": []}`, `m.json:1:15: duplicate key "tools"`},
		{`{"tools": []`, "ends too early"},
		{`{"tools": []} x`, "unexpected data after the top-level object"},
		{`[]`, "expected an object, got an array"},
		{`{"tools": []}`, "tools: no tools"},
	} {
		_, err := Parse("m.json", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want it to contain %q", tc.src, err, tc.want)
		}
	}
}

func TestInputValueChecks(t *testing.T) {
	src := `{"tools": [{"name": "t", "description": "d", "command": ["p", "{level}", "{n}"],
	  "inputs": {
	    "level": {"enum": ["a", "b"], "default": "c"},
	    "n": {"type": "integer", "required": true, "default": 1.5},
	    "e": {"enum": [], "env": "E"}
	  }, "okExitCodes": []}]}`
	_, err := Parse("m.json", []byte(src))
	got := err.Error()
	for _, want := range []string{
		`tools[0].inputs.level.default: "c" is not one of the allowed values "a", "b"`,
		`tools[0].inputs.n.default: a required input never uses its default`,
		`tools[0].inputs.n.default: expected an integer, got 1.5`,
		`tools[0].inputs.e.enum: empty: no value would be allowed`,
		`tools[0].okExitCodes: empty: no exit code would be a normal result`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// TestDocsExampleIsValid keeps the complete example in docs/manifest.md
// in step with the format.
func TestDocsExampleIsValid(t *testing.T) {
	doc, err := os.ReadFile("../../docs/manifest.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```json\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no ```json block in docs/manifest.md")
	}
	m, err := Parse("docs/manifest.md", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.ToolNames(), " "); got != "rigor_check rigor_type_of git_log" {
		t.Errorf("tools = %s", got)
	}
	vals := map[string]any{"max": json.Number("5"), "oneline": true, "paths": []any{"-weird"}}
	argv, err := m.tools[2].argv(vals)
	if want := []string{"git", "log", "--max-count=5", "--oneline", "--format=%h %s", "--", "-weird"}; err != nil || !reflect.DeepEqual(argv, want) {
		t.Errorf("git_log argv = %q, %v; want %q", argv, err, want)
	}
}

func TestValidInputName(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)
	for _, name := range []string{"", "a", "_", "A9", "a-b", "a_b", "9a", "-a", "a.b", "a b", "é", "a$",
		strings.Repeat("a", 64), strings.Repeat("a", 65), "_" + strings.Repeat("9", 63)} {
		if got, want := validInputName(name), re.MatchString(name); got != want {
			t.Errorf("validInputName(%q) = %v, the pattern says %v", name, got, want)
		}
	}
}

func TestNegativeNumberWarnings(t *testing.T) {
	src := `{"tools": [{"name": "t", "description": "d",
	  "command": ["true", "{a}", "{b}", "{c}", "{d}", "{e}:x", "x{f}", "--", "{g}"],
	  "inputs": {
	    "a": {"type": "integer"}, "b": {"type": "number", "minimum": 0}, "c": {"type": "integer", "flag": "--c"},
	    "d": {"type": "array", "items": "number"}, "e": {"type": "integer", "minimum": -5}, "f": {"type": "integer"},
	    "g": {"type": "integer"}
	  }}]}`
	m, err := Parse("m.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := m.Warnings()
	if w == nil {
		t.Fatal("no warnings")
	}
	var got []string
	for _, p := range w.List {
		got = append(got, p.Path)
	}
	want := []string{"tools[0].command[1]", "tools[0].command[4]", "tools[0].command[5]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings at %q, want %q:\n%v", got, want, w)
	}
	if msg := w.List[0].Message; !strings.Contains(msg, `{a} is a number in a positional slot`) || !strings.Contains(msg, `declare "minimum": 0`) {
		t.Errorf("warning: %s", msg)
	}

	_, err = Parse("m.json", []byte(`{"tools": [{"name": "t", "description": "d", "command": ["p", "{s}"],
	  "inputs": {"s": {"minimum": 1}, "n": {"type": "integer", "minimum": "1", "env": "N"}}}]}`))
	for _, want := range []string{
		`tools[0].inputs.s.minimum: "minimum" applies only to integer and number inputs`,
		`tools[0].inputs.n.minimum: expected a number, got the string "1"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// TestProblemsArePlacedByPath checks that a problem found after decoding
// is placed on the value its JSON path names, also through keys that the
// path must quote, and on the nearest value the file has when the path
// names one it lacks.
func TestProblemsArePlacedByPath(t *testing.T) {
	src := "{\"tools\": [{\"name\": \"t\", \"description\": \"d\", \"command\": [\"p\", \"{a.b}\"],\n" +
		"  \"inputs\": {\"a.b\": {\"type\": \"text\"}, \"c d\": {\"flag\": \" -x\"}},\n" +
		"  \"env\": {\"1X\": \"v\"}}]}"
	_, err := Parse("m.json", []byte(src))
	var probs *Problems
	if !errors.As(err, &probs) {
		t.Fatalf("Parse = %v, want problems", err)
	}
	at := map[string]string{}
	for _, p := range probs.List {
		at[p.Path] = fmt.Sprintf("%d:%d", p.Line, p.Column)
	}
	// pos is where the first s after the text before starts.
	pos := func(before, s string) string {
		off := strings.Index(src, before)
		off += len(before) + strings.Index(src[off+len(before):], s)
		line := strings.Count(src[:off], "\n") + 1
		return fmt.Sprintf("%d:%d", line, off-strings.LastIndex(src[:off], "\n"))
	}
	for path, want := range map[string]string{
		`tools[0].inputs["a.b"].type`: pos(`"a.b": {`, `"text"`),
		`tools[0].inputs["c d"].flag`: pos(`"c d"`, `" -x"`),
		`tools[0].inputs["c d"]`:      pos(`"c d": `, `{`), // never used: the input's object
		`tools[0].env["1X"]`:          pos(`"1X": `, `"v"`),
		`tools[0].command[1]`:         pos(`"p", `, `"{a.b}"`),
	} {
		if at[path] != want {
			t.Errorf("%s at %q, want %s; all: %v", path, at[path], want, at)
		}
	}
}
