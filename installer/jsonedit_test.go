package installer

import (
	"errors"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

var testEntry = []field{
	{"type", "stdio"},
	{"command", "/usr/bin/mcpship"},
	{"args", []string{"serve", "--manifest", "/p/mcpship.json"}},
	{"env", []field{{"TOKEN", "a\"b\\c<&>"}}},
}

// TestJSONRefusesBinary is the one refusal whose file testdata/edits
// cannot hold as text.
func TestJSONRefusesBinary(t *testing.T) {
	_, err := jsonFormat{jsonc: true}.parse("f.json", []byte("\x00\x01\xff\xfe"))
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 1 || fe.File != "f.json" || fe.Msg != "not UTF-8 text (is it a binary file?)" {
		t.Errorf("err = %v, want a FileError at line 1 saying it is not UTF-8", err)
	}
}

// TestJSONRefusesDeepNesting: nesting that would overflow hujson's
// recursive parser is refused with an error, in JSONC as in strict JSON;
// brackets inside strings and comments do not count.
func TestJSONRefusesDeepNesting(t *testing.T) {
	deep := `{"servers": ` + strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000) + "}"
	for _, jsonc := range []bool{true, false} {
		_, err := jsonFormat{jsonc: jsonc}.parse("f.json", []byte(deep))
		var fe *FileError
		if !errors.As(err, &fe) || fe.Line != 1 || !strings.Contains(fe.Msg, "nesting") && !strings.Contains(fe.Msg, "max depth") {
			t.Errorf("jsonc=%v: err = %v, want a FileError about nesting", jsonc, err)
		}
	}
	ok := `{"a": "` + strings.Repeat("[", maxNesting+1) + `" /* ` + strings.Repeat("{", maxNesting+1) + " */ // " + strings.Repeat("[", maxNesting+1) + "\n}"
	if _, err := (jsonFormat{jsonc: true}).parse("f.json", []byte(ok)); err != nil {
		t.Errorf("brackets in a string and comments: %v", err)
	}
	if got := tooDeep([]byte(strings.Repeat("[", maxNesting)+strings.Repeat("]", maxNesting)), maxNesting); got != -1 {
		t.Errorf("nesting of exactly maxNesting refused at %d", got)
	}
}

// TestJSONStandard: standard agrees with hujson's Value.IsStandard.
func TestJSONStandard(t *testing.T) {
	ins := []string{
		`{}`, `[]`, `{"a": [1, 2, {"b": null}]}`, "{\n  \"a\": 1\n}\n",
		`{"a": 1,}`, `[1,]`, `{"a": [1, 2,]}`, `{"a": {"b": 1,}}`, `{"a": 1 /* c */}`, "{\n  // c\n  \"a\": 1\n}",
		"// c\n{}", "{} // c", `{"a": [] /* c */}`, `{"a": [/* c */]}`, `{/* c */}`, `{"a" /* c */: 1}`,
	}
	for _, c := range loadEditCases(t) {
		ins = append(ins, c.in)
	}
	for _, in := range ins {
		v, err := hujson.Parse([]byte(in))
		if err != nil {
			continue
		}
		if got, want := standard(&v), v.IsStandard(); got != want {
			t.Errorf("standard(%q) = %v, want %v", in, got, want)
		}
	}
}
