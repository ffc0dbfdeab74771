package installer

import (
	"encoding/binary"
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
		"\"\x7f\xff\"", "\"0123456789abcdef\\u00e9ghijklmn\\\"opqrstuvw\"", "\"0123456789abcdef\x01\"", `{"a":[{"b":[]}, {}, [[]]]}`, `[1 2]`, `{"a":1 "b":2}`, `{} x`, "/**/", "/*/", "{}\n// end",
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

// TestPlain8 checks plain8 against a byte loop: every byte value at
// every position, among plain bytes and among other special ones.
func TestPlain8(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	for _, fill := range []byte{'a', 0x20, 0x7f, 0x80, 0xff, '"', 0x1f, '\\' + 1, '"' + 1} {
		for pos := range 8 {
			for c := range 256 {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[pos] = byte(c)
				want := true
				for _, x := range w {
					want = want && !special(x)
				}
				if got := plain8(binary.LittleEndian.Uint64(w[:])); got != want {
					t.Fatalf("plain8(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
}

// FuzzParseTree checks parseTree with keep levels against hujson.Parse:
// accepted exactly when hujson accepts; the tree is hujson's with the
// objects and arrays deeper than keep left empty; and what it says was
// skipped makes the strict-JSON check come out as on the whole tree.
func FuzzParseTree(f *testing.F) {
	for _, in := range jsonInputs {
		f.Add(in, uint8(2))
	}
	for _, in := range jsoncInputs {
		f.Add(in, uint8(2))
	}
	for _, in := range []string{
		`{"a":{"b":{"c":[1,2,{"d":1e400}]}}}`, `{"a":{"b":{"c":[1,2,]}}}`, `{"a":{"b":{"c":{/**/}}}}`, `{"a":{"b":[{"x":1,},]}}`,
		`{"a":{"b":{"c":"\u00e9"}, "d": []}}`, "{\"a\":{\"b\":{\"c\":1 // x\n}}}", `{"a":{"b":{"c":{"d"}}}}`, `{"a":{"b":{"c":[}}}}`,
		`{"a":{"b":{"c":{"d":1,,}}}}`, `{"a":{"b":{"c":{1:2}}}}`, `{"a":{"b":{"c":[1 2]}}}`, `{"a":{"b":{"c":-}}}`,
	} {
		f.Add(in, uint8(1))
		f.Add(in, uint8(2))
		f.Add(in, uint8(3))
	}
	f.Fuzz(func(t *testing.T, in string, keep uint8) {
		k := int(keep%5) + 1
		b := []byte(in)
		want, werr := hujson.Parse(b)
		got, sk, err := parseTree(b, k)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("parseTree: %v; hujson.Parse: %v\n%q", err, werr, in)
		}
		if err != nil {
			return
		}
		full, _ := hujson.Parse(b) // not Clone, which drops trailing commas
		truncate(&want, k, 0)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trees differ at keep %d\n got: %#v\nwant: %#v\n%q", k, got, want, in)
		}
		if d := decodable(&got) && !sk.lax && !sk.big; d != decodable(&full) {
			t.Fatalf("decodable: %v with %+v skipped, %v whole\n%q", decodable(&got), sk, decodable(&full), in)
		}
	})
}

// truncate empties the objects and arrays inside keep others.
func truncate(v *hujson.Value, keep, depth int) {
	switch x := v.Value.(type) {
	case *hujson.Object:
		if depth >= keep {
			v.Value = &hujson.Object{}
			return
		}
		for i := range x.Members {
			truncate(&x.Members[i].Value, keep, depth+1)
		}
	case *hujson.Array:
		if depth >= keep {
			v.Value = &hujson.Array{}
			return
		}
		for i := range x.Elements {
			truncate(&x.Elements[i], keep, depth+1)
		}
	}
}
