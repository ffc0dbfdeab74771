package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// decodeSlow is what decodeArguments must agree with.
func decodeSlow(b []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err := dec.Decode(&v)
	return v, err
}

var decodeSeeds = []string{
	`{}`, `[]`, `{"text":"hello"}`, ` { "a" : [ 1 , -2.5e+3 , 0 , true , false , null ] } `,
	`{"a":{"b":{"c":[[],{}]}}}`, `{"a":1,"a":2}`, `"x"`, `12`, `-0.0E-0`, `null`,
	`{"s":"tab\there \"q\" \u00e9 \ud83d\ude00 \/"}`, `{"s":"caf\u00e9","t":"café","u":"\xff\xfe"}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":tru}`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{"a":"\x01"}`,
	`{"a":1} x`, `{"a":1}{}`, `"unterminated`, `-`, `1e`, `{"\u0061":1}`, "\t[ ]\n", "{\"u\":\"\xff\xfe ok\"}", "[\"\xe2\x82\"]",
}

func TestDecodeArgumentsAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecodeAgrees(t, []byte(s))
	}
}

func FuzzDecodeArguments(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecodeAgrees)
}

// checkDecodeAgrees checks that, for any valid JSON, decodeArguments builds
// exactly the tree json.Decoder with UseNumber builds, and that invalid JSON
// is refused.
func checkDecodeAgrees(t *testing.T, b []byte) {
	got, err := decodeArguments(b)
	if !json.Valid(b) {
		if err == nil {
			t.Fatalf("decodeArguments(%q) accepted invalid JSON: %#v", b, got)
		}
		return
	}
	want, werr := decodeSlow(b)
	if err != nil || werr != nil {
		t.Fatalf("decodeArguments(%q): %v; encoding/json: %v", b, err, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeArguments(%q) = %#v, encoding/json = %#v", b, got, want)
	}
}
