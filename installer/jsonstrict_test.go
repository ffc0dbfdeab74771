package installer

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// FuzzStrictParse checks that strict JSON is refused exactly when
// json.Unmarshal or hujson refuses it, with json.Unmarshal's message
// first, and that what is accepted has json.Unmarshal's data.
func FuzzStrictParse(f *testing.F) {
	for _, in := range jsonInputs {
		f.Add(in)
	}
	for _, in := range jsoncInputs {
		f.Add(in)
	}
	for _, in := range []string{
		`{"a": 1e400}`, `{"a": [1e-400, -0, 1E+2]}`, `{"a": "\"/*"}`, `{"a": "\\"}`,
		`{"a": 1,}`, `{"a": [1,]}`, "{\"a\": 1 // c\n}", `{"a": /* c */ 1}`,
		`{"a": "x\u0000"}`, "{\"a\": \"\t\"}", `[1]`, `"x"`, `{} {}`, `{"a":`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
		`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	} {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) || isSpace([]byte(in)) {
			return // refused, or taken as {}, before either parser runs
		}
		d, err := jsonFormat{}.parse("f", []byte(in))
		var m any
		if uerr := json.Unmarshal([]byte(in), &m); uerr != nil {
			if err == nil || !strings.Contains(err.Error(), uerr.Error()) {
				t.Fatalf("json.Unmarshal: %v; parse: %v\n%q", uerr, err, in)
			}
			return
		}
		v, herr := hujson.Parse([]byte(in))
		if _, obj := v.Value.(*hujson.Object); herr != nil || !obj {
			if err == nil {
				t.Fatalf("hujson: %v (object: %v); parse accepted it\n%q", herr, obj, in)
			}
			return
		}
		if err != nil {
			t.Fatalf("parse refused valid JSON: %v\n%q", err, in)
		}
		got, err := d.model()
		if err != nil || !sameModel(got, m) {
			t.Fatalf("model %v (%v), want %v\n%q", got, err, m, in)
		}
	})
}
