package installer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// FuzzParseHuJSON checks that parseHuJSON's own parser accepts exactly
// what hujson.Parse accepts, with the same tree.
func FuzzParseHuJSON(f *testing.F) {
	for _, in := range jsonInputs {
		f.Add(in)
	}
	for _, in := range jsoncInputs {
		f.Add(in)
	}
	for _, in := range []string{
		``, ` `, `{}`, `[]`, `{,}`, `[,]`, `{"a":1,}`, `[1,]`, `{"a":1 , }`, `[1 /*x*/ , ]`, `{"a" /*x*/ : /*y*/ 1 /*z*/}`,
		"// c\n{}// d\n", `/* c */ {} /* d`, "{} //", `"\u00e9\n\"\\\/\b\f\r\t"`, `"\u00g0"`, `"\x"`, "\"a\tb\"",
		`"abc`, `"\"`, `"\\"`, `-0.5e+10`, `01`, `1.`, `tru`, `nul`, `{"a":}`, `{"a"}`, `{1:2}`, `[}`, `{]`, `}`, `]`,
		"\"\x7f\xff\"", `{"a":[{"b":[]}, {}, [[]]]}`, `[1 2]`, `{"a":1 "b":2}`, `{} x`, "/**/", "/*/", "{}\n// end",
		strings.Repeat("[", 50) + strings.Repeat("]", 50),
	} {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		b := []byte(in)
		want, werr := hujson.Parse(b)
		var p hjParser
		got, n, st := p.value(0, b)
		ok := st == hjOK && n == len(b)
		if ok != (werr == nil) {
			t.Fatalf("hjValue ok=%v (status %d, %d of %d bytes); hujson.Parse: %v\n%q", ok, st, n, len(b), werr, in)
		}
		if ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("trees differ\n got: %#v\nwant: %#v\n%q", got, want, in)
		}
		if v, err := parseHuJSON(b); (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || err == nil && !reflect.DeepEqual(v, want) {
			t.Fatalf("parseHuJSON: %v; hujson.Parse: %v\n%q", err, werr, in)
		}
	})
}
