package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode"
)

// wholeProbe is what the handler read of a body before it decoded the
// body once for both itself and the session: every member it routes by,
// decoded from the whole body.
type wholeProbe struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params struct {
		Name json.RawMessage `json:"name"`
		URI  json.RawMessage `json:"uri"`
		Meta struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
}

// paramsMembers counts the members of the body's top-level object that
// json.Unmarshal takes for "params"; -1 when the body is not an object.
func paramsMembers(body []byte) int {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return -1
	}
	n := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return -1
		}
		if k, _ := t.(string); strings.EqualFold(k, "params") {
			n++
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return -1
		}
	}
	return n
}

// FuzzProbe checks that the handler routes a body by what it reads of
// the session's decoding of it (the method, the id, and the params'
// members when probeParams decodes them) as it did by decoding the whole
// body for itself: the same protocol version in _meta, and for a modern
// request the same name and uri. Only a body with two "params" members
// differs, where the handler now reads the one the session serves (the
// last), as json.Unmarshal does, where it merged both.
func FuzzProbe(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{},` + modernMeta + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///x","_META":{"io.modelcontextprotocol/PROTOCOLVERSION":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"id":1,"method":5,"params":{"_meta":5,"name":"x"}}`,
		`{"id":1,"method":"x","params":"s"}`,
		`{"id":1,"method":"x","params":null}`,
		`{"method":"x","params":{"arguments":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}`,
		`[{"id":1}]`, `5`, `{}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var old wholeProbe
		oldErr := json.Unmarshal([]byte(body), &old)
		d := decodeMessage([]byte(body))
		var se *json.SyntaxError
		if errors.As(oldErr, &se) != errors.As(d.err, &se) {
			t.Fatalf("%q: the probe's error %v, the session's %v", body, oldErr, d.err)
		}
		if !json.Valid([]byte(body)) || paramsMembers([]byte(body)) > 1 {
			return
		}
		for _, headerModern := range []bool{false, true} {
			var p probe
			p.Method, p.ID = d.m.Method, d.m.ID
			p.probeParams(&d.m, headerModern)
			if p.Method != old.Method || !bytes.Equal(p.ID, old.ID) {
				t.Fatalf("%q: method %q id %s, the whole body's %q %s", body, p.Method, p.ID, old.Method, old.ID)
			}
			if got, want := p.Params.Meta.ProtocolVersion, old.Params.Meta.ProtocolVersion; got != want {
				t.Fatalf("%q (modern header %v): _meta's protocol version %q, the whole body's %q", body, headerModern, got, want)
			}
			if headerModern && (!bytes.Equal(p.Params.Name, old.Params.Name) || !bytes.Equal(p.Params.URI, old.Params.URI)) {
				t.Fatalf("%q: name %s uri %s, the whole body's %s %s", body, p.Params.Name, p.Params.URI, old.Params.Name, old.Params.URI)
			}
		}
	})
}

// TestMetaFolds checks what mayHaveMeta relies on: json.Unmarshal matches
// member names as bytes.EqualFold does, and no rune but the ASCII letters
// themselves folds to one of the letters of "_meta", so a name that
// matches "_meta" is spelled with an escape or in ASCII.
func TestMetaFolds(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if strings.ContainsRune("_metaMETA", f) {
				t.Fatalf("rune %U folds to %q", r, f)
			}
		}
	}
}

func TestMayHaveMeta(t *testing.T) {
	for params, want := range map[string]bool{
		``:                         false,
		`{"name":"echo"}`:          false,
		`{"_meta":{}}`:             true,
		`{"_MeTa":{}}`:             true,
		`{"\u005fmeta":{}}`:        true,
		`{"x":"a\nb"}`:             true, // any escape: the name may be one
		`{"_metadata":1}`:          false,
		`{"a":"_meta"}`:            true, // a value like the name: decoding tells
		`{"a":"x","b":"_met"}`:     false,
		`{"__meta":1}`:             false,
		`{"a":{"b":{"_meta":1}}}`:  true, // deeper: decoding tells
		`{"_":1,"_meta":{"x":1}}`:  true,
		`{"_m":1,"_me":2,"_mEta"`:  true,
		`{"_m":1,"_me":2,"_mEtb":`: false,
	} {
		if got := mayHaveMeta([]byte(params)); got != want {
			t.Errorf("mayHaveMeta(%s) = %v, want %v", params, got, want)
		}
	}
}
