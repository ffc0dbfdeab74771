package installer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// jsonFormat edits JSON files. With jsonc, comments and trailing commas
// are accepted (and kept); without, the file must be strict JSON, since
// the client reading it would reject anything else.
//
// Both are parsed with hujson.Parse, which records the byte offsets of
// every value; edits are splices at those offsets, so no other byte
// changes.
type jsonFormat struct{ jsonc bool }

func (f jsonFormat) name() string {
	if f.jsonc {
		return "JSONC"
	}
	return "JSON"
}

func (f jsonFormat) parse(file string, body []byte) (document, error) {
	d := &jsonDoc{file: file, body: body, eol: eolOf(body)}
	if !utf8.Valid(body) {
		off := 0
		for off < len(body) {
			r, n := utf8.DecodeRune(body[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		return nil, d.errAt(off, "not UTF-8 text (is it a binary file?)")
	}
	if isSpace(body) {
		d.body = []byte("{}" + d.eol)
	}
	v, err := d.parseValue()
	if f.jsonc && err != nil {
		if text, w, ok := commentsOnly(d.body, d.eol); ok {
			// Comments and no value yet: the file reads as those
			// comments and then {}, as an empty file reads as {}.
			d.body, v, err = text, w, nil
		}
	}
	if !f.jsonc && (err != nil || !standard(&v)) {
		// Strict JSON: say what is wrong as encoding/json does. (It
		// also refuses nesting deeper than 10,000.)
		var se *json.SyntaxError
		if errors.As(json.Unmarshal(d.body, new(json.RawMessage)), &se) {
			off := int(se.Offset) // just after the offending byte
			if off < len(body) || !strings.Contains(se.Error(), "unexpected end") {
				off--
			}
			return nil, d.errAt(off, "invalid JSON: "+se.Error())
		}
	}
	if err != nil {
		return nil, err
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, d.errAt(v.StartOffset, "the top level is not an object")
	}
	d.root = v
	// A file that is just {} gets the usual pretty layout.
	d.pretty = bytes.ContainsAny(bytes.TrimSpace(d.body), "\n") || len(v.Value.(*hujson.Object).Members) == 0
	d.unit = indentUnit(d.body)
	return d, nil
}

type jsonDoc struct {
	file   string
	body   []byte
	eol    string
	unit   string // one level of indentation
	pretty bool   // the file is spread over lines
	root   hujson.Value
}

func (d *jsonDoc) errAt(off int, msg string) error {
	line, col := lineCol(d.body, off)
	return &FileError{File: d.file, Line: line, Col: col, Msg: msg}
}

// parseValue parses d.body with hujson.
func (d *jsonDoc) parseValue() (hujson.Value, error) {
	// hujson's parser is recursive: refuse what would overflow its
	// stack, as encoding/json refuses strict JSON.
	if off := tooDeep(d.body, maxNesting); off >= 0 {
		return hujson.Value{}, d.errAt(off, fmt.Sprintf("invalid JSON: nesting deeper than %d levels", maxNesting))
	}
	v, err := hujson.Parse(d.body)
	if n := len(d.body); err != nil && errors.Is(err, io.ErrUnexpectedEOF) && d.body[n-1] != '\n' {
		// hujson wants a line comment to end with a line ending, which
		// the last line of a file may lack. A line ending after the end
		// can only end such a comment, and moves no offset.
		if v2, err2 := hujson.Parse(append(d.body[:n:n], '\n')); err2 == nil {
			v, err = v2, nil
		}
	}
	if err != nil {
		fe := &FileError{File: d.file, Msg: "invalid JSON: " + strings.TrimPrefix(err.Error(), "hujson: ")}
		if n, _ := fmt.Sscanf(err.Error(), "hujson: line %d, column %d:", &fe.Line, &fe.Col); n == 2 {
			_, msg, _ := strings.Cut(err.Error(), ": ")
			_, msg, _ = strings.Cut(msg, ": ")
			fe.Msg = "invalid JSON: " + msg
		}
		return v, fe
	}
	return v, nil
}

// commentsOnly reports whether body holds nothing but comments and
// white space, and if so returns it followed by {} on a line of its own,
// parsed.
func commentsOnly(body []byte, eol string) ([]byte, hujson.Value, bool) {
	text := bytes.Clone(body)
	if len(text) > 0 && text[len(text)-1] != '\n' {
		text = append(text, eol...) // a line comment at the end ends there
	}
	at := len(text)
	text = append(text, "{}"+eol...)
	if tooDeep(text, maxNesting) >= 0 {
		return nil, hujson.Value{}, false
	}
	v, err := hujson.Parse(text)
	if err != nil || v.StartOffset != at {
		return nil, hujson.Value{}, false
	}
	return text, v, true
}

// standard reports whether v is standard JSON: no comments and no
// trailing commas. It is v.IsStandard without an allocation per value.
func standard(v *hujson.Value) bool {
	if !v.BeforeExtra.IsStandard() || !v.AfterExtra.IsStandard() {
		return false
	}
	switch x := v.Value.(type) {
	case *hujson.Object:
		for i := range x.Members {
			if !standard(&x.Members[i].Name) || !standard(&x.Members[i].Value) {
				return false
			}
		}
		// A trailing comma leaves the last value's AfterExtra non-nil.
		return x.AfterExtra.IsStandard() && (len(x.Members) == 0 || x.Members[len(x.Members)-1].Value.AfterExtra == nil)
	case *hujson.Array:
		for i := range x.Elements {
			if !standard(&x.Elements[i]) {
				return false
			}
		}
		return x.AfterExtra.IsStandard() && (len(x.Elements) == 0 || x.Elements[len(x.Elements)-1].AfterExtra == nil)
	}
	return true
}

// indentUnit guesses one level of indentation from the first indented
// member name in b.
func indentUnit(b []byte) string {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		t := bytes.TrimLeft(line, " \t")
		if len(t) < len(line) && len(t) > 0 && t[0] == '"' {
			return string(line[:len(line)-len(t)])
		}
	}
	return "  "
}

// member finds key in obj. It refuses duplicate keys, since clients
// disagree on which one wins.
func (d *jsonDoc) member(obj *hujson.Object, key string) (*hujson.ObjectMember, int, error) {
	found := -1
	for i := range obj.Members {
		m := &obj.Members[i]
		if lit, ok := m.Name.Value.(hujson.Literal); ok && litString(lit) == key {
			if found >= 0 {
				l1, _ := lineCol(d.body, obj.Members[found].Name.StartOffset)
				return nil, -1, d.errAt(m.Name.StartOffset, fmt.Sprintf("key %q appears twice (also on line %d)", key, l1))
			}
			found = i
		}
	}
	if found < 0 {
		return nil, -1, nil
	}
	return &obj.Members[found], found, nil
}

// walk follows path from the root. It returns the deepest object found,
// how many keys of path it matched, and an error if a key holds something
// other than an object.
func (d *jsonDoc) walk(path []string) (*hujson.Value, int, error) {
	cur := &d.root
	for i, k := range path {
		obj := cur.Value.(*hujson.Object)
		m, _, err := d.member(obj, k)
		if err != nil {
			return nil, 0, err
		}
		if m == nil {
			return cur, i, nil
		}
		if _, ok := m.Value.Value.(*hujson.Object); !ok {
			return nil, 0, d.errAt(m.Value.StartOffset, fmt.Sprintf("%q is %s, not an object", k, kindName(m.Value.Value)))
		}
		cur = &m.Value
	}
	return cur, len(path), nil
}

func kindName(v hujson.ValueTrimmed) string {
	switch v.Kind() {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// jsonPlain returns the value of a JSON node as encoding/json decodes it
// into an any, except that a number too large for a float64 is ±Inf, not
// an error.
func jsonPlain(n node) any {
	switch n.kind {
	case '{':
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = jsonPlain(n.kids[i])
		}
		return m
	case '[':
		a := make([]any, len(n.kids))
		for i, k := range n.kids {
			a[i] = jsonPlain(k)
		}
		return a
	case '"':
		return n.text
	case '0':
		return nil
	}
	switch n.text {
	case "true":
		return true
	case "false":
		return false
	}
	f, _ := strconv.ParseFloat(n.text, 64) // hujson checked its syntax
	return f
}

func (d *jsonDoc) tree() (*node, error) {
	n := jsonNode(string(d.body), 0, &d.root)
	return &n, nil
}

// jsonNode returns the data of v, whose text is in s from the offset at.
// Scalars without escapes are parts of s, so that a tree costs one copy of
// the text, not one per scalar.
func jsonNode(s string, at int, v *hujson.Value) node {
	switch x := v.Value.(type) {
	case *hujson.Object:
		n := node{kind: '{', keys: make([]string, len(x.Members)), kids: make([]node, len(x.Members))}
		for i := range x.Members {
			m := &x.Members[i]
			n.keys[i] = jsonString(s, at, &m.Name)
			n.kids[i] = jsonNode(s, at, &m.Value)
		}
		return n
	case *hujson.Array:
		n := node{kind: '[', kids: make([]node, len(x.Elements))}
		for i := range x.Elements {
			n.kids[i] = jsonNode(s, at, &x.Elements[i])
		}
		return n
	}
	switch v.Value.Kind() {
	case '"':
		return node{kind: '"', text: jsonString(s, at, v)}
	case 'n':
		return node{kind: '0'}
	}
	return node{kind: 'v', text: s[v.StartOffset-at : v.EndOffset-at]}
}

// jsonString returns the value of the string literal v, whose text is in
// s from the offset at.
func jsonString(s string, at int, v *hujson.Value) string {
	if q := s[v.StartOffset-at+1 : v.EndOffset-at-1]; !strings.Contains(q, `\`) {
		return q
	}
	return v.Value.(hujson.Literal).String()
}

func (d *jsonDoc) entries(container []string) ([]entry, error) {
	v, n, err := d.walk(container)
	if err != nil || n < len(container) {
		return nil, err
	}
	obj := v.Value.(*hujson.Object)
	var out []entry
	seen := make(map[string]int, len(obj.Members))
	for i := range obj.Members {
		m := &obj.Members[i]
		name := litString(m.Name.Value.(hujson.Literal))
		if j, dup := seen[name]; dup {
			l1, _ := lineCol(d.body, obj.Members[j].Name.StartOffset)
			return nil, d.errAt(m.Name.StartOffset, fmt.Sprintf("server %q appears twice (also on line %d)", name, l1))
		}
		seen[name] = i
		if m.Value.Value.Kind() != '{' {
			return nil, d.errAt(m.Value.StartOffset, fmt.Sprintf("server %q is %s, not an object", name, kindName(m.Value.Value)))
		}
		out = append(out, entry{name: name, decode: func() (map[string]any, error) {
			text := string(d.body[m.Value.StartOffset:m.Value.EndOffset])
			return jsonPlain(jsonNode(text, m.Value.StartOffset, &m.Value)).(map[string]any), nil
		}})
	}
	return out, nil
}

// litString returns the string a JSON string literal holds. Most names
// have no escapes, and need no decoding.
func litString(lit hujson.Literal) string {
	if len(lit) >= 2 && bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1])
	}
	return lit.String()
}

// maxNesting is how deeply a JSONC file may nest objects and arrays: the
// limit encoding/json's scanner sets for strict JSON.
const maxNesting = 10000

// tooDeep returns the offset of the first '{' or '[' of b nested deeper
// than max, skipping strings and comments, or -1 if there is none.
func tooDeep(b []byte, max int) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '/':
			switch {
			case i+1 < len(b) && b[i+1] == '/':
				for i < len(b) && b[i] != '\n' {
					i++
				}
			case i+1 < len(b) && b[i+1] == '*':
				end := bytes.Index(b[i+2:], []byte("*/"))
				if end < 0 {
					return -1 // unterminated: hujson.Parse says so
				}
				i += 2 + end + 1
			}
		case '{', '[':
			if depth++; depth > max {
				return i
			}
		case '}', ']':
			depth--
		}
	}
	return -1
}
