package installer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// jsonFormat edits JSON files. With jsonc, comments and trailing commas
// are accepted (and kept); without, the file must be strict JSON, since
// the client reading it would reject anything else.
//
// Both are parsed into hujson's syntax tree (parseTree, by hujson's
// grammar), which records the byte offsets of every value; edits are
// splices at those offsets, so no other byte changes.
type jsonFormat struct {
	jsonc bool
	// keep, if not 0, is how many levels of objects and arrays the
	// parse tree holds (see parseTree); walk goes no deeper.
	keep int
}

func (f jsonFormat) list() bool { return false }

func (f jsonFormat) parse(file string, body []byte) (document, error) {
	d := &jsonDoc{file: file, body: body, eol: eolOf(body), strict: !f.jsonc, keep: f.keep}
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
		d.blank = true
	}
	var v hujson.Value
	var err error
	parsed := false
	if !f.jsonc && !d.blank {
		// Strict JSON. One hujson parse suffices when its tree is JSON
		// that encoding/json decodes; otherwise json.Unmarshal says what
		// is wrong, as before. (Deep nesting is left to json.Unmarshal,
		// which refuses it, rather than to hujson's recursion.)
		if nesting(body) <= maxNesting {
			var sk hjSkipped
			v, sk, err = parseTree(body, f.keep)
			parsed = err == nil && decodable(&v) && !sk.lax && !sk.big
		}
		if !parsed {
			var m any
			if err := json.Unmarshal(body, &m); err != nil {
				var se *json.SyntaxError
				if errors.As(err, &se) {
					off := int(se.Offset) // just after the offending byte
					if off < len(body) || !strings.Contains(se.Error(), "unexpected end") {
						off--
					}
					return nil, d.errAt(off, "invalid JSON: "+se.Error())
				}
				return nil, &FileError{File: file, Msg: "invalid JSON: " + err.Error()}
			}
		}
	}
	if !parsed {
		v, _, err = parseTree(d.body, f.keep)
	}
	if err != nil {
		fe := &FileError{File: file, Msg: "invalid JSON: " + strings.TrimPrefix(err.Error(), "hujson: ")}
		if n, _ := fmt.Sscanf(err.Error(), "hujson: line %d, column %d:", &fe.Line, &fe.Col); n == 2 {
			_, msg, _ := strings.Cut(err.Error(), ": ")
			_, msg, _ = strings.Cut(msg, ": ")
			fe.Msg = "invalid JSON: " + msg
		}
		return nil, fe
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
	blank  bool   // the file was empty
	pretty bool   // the file is spread over lines
	strict bool   // strict JSON: no comments or trailing commas
	keep   int    // levels of objects and arrays in root; 0: all
	root   hujson.Value
}

func (d *jsonDoc) errAt(off int, msg string) error {
	line, col := lineCol(d.body, off)
	return &FileError{File: d.file, Line: line, Col: col, Msg: msg}
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
	if d.keep > 0 && len(path) >= d.keep {
		// Deeper objects stand empty in the tree: never edit them.
		return nil, 0, fmt.Errorf("%s: internal error: parsed %d levels deep, not enough for %q", d.file, d.keep, path)
	}
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

func (d *jsonDoc) plainValue(v *hujson.Value) (any, error) {
	raw, err := hujson.Standardize(bytes.Clone(d.body[v.StartOffset:v.EndOffset]))
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(raw, &out)
	return out, err
}

func (d *jsonDoc) model() (any, error) {
	if d.strict {
		var m any // strict JSON needs no Standardize
		err := json.Unmarshal(d.body, &m)
		return m, err
	}
	return d.plainValue(&d.root)
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
		val, err := d.plainValue(&m.Value)
		if err != nil {
			return nil, err
		}
		mv, ok := val.(map[string]any)
		if !ok {
			return nil, d.errAt(m.Value.StartOffset, fmt.Sprintf("server %q is %s, not an object", name, kindName(m.Value.Value)))
		}
		out = append(out, entry{name: name, value: mv})
	}
	return out, nil
}

// entry returns the entry name under the container path, or nil if there
// is none. It refuses what entries refuses (a duplicate name, an entry
// that is not an object) but decodes only the entry asked for, so a
// number too large for a float64 inside another entry (possible in JSONC
// only: strict JSON with one is refused when parsed) is not refused.
func (d *jsonDoc) entry(container []string, name string) (*entry, error) {
	v, n, err := d.walk(container)
	if err != nil || n < len(container) {
		return nil, err
	}
	obj := v.Value.(*hujson.Object)
	var found *entry
	seen := make(map[string]int, len(obj.Members))
	for i := range obj.Members {
		m := &obj.Members[i]
		key := litString(m.Name.Value.(hujson.Literal))
		if j, dup := seen[key]; dup {
			l1, _ := lineCol(d.body, obj.Members[j].Name.StartOffset)
			return nil, d.errAt(m.Name.StartOffset, fmt.Sprintf("server %q appears twice (also on line %d)", key, l1))
		}
		seen[key] = i
		if m.Value.Value.Kind() != '{' {
			if _, err := d.plainValue(&m.Value); err != nil {
				return nil, err // as entries reports it
			}
			return nil, d.errAt(m.Value.StartOffset, fmt.Sprintf("server %q is %s, not an object", key, kindName(m.Value.Value)))
		}
		if key == name {
			val, err := d.plainValue(&m.Value)
			if err != nil {
				return nil, err
			}
			mv, ok := val.(map[string]any)
			if !ok {
				return nil, d.errAt(m.Value.StartOffset, fmt.Sprintf("server %q is %s, not an object", key, kindName(m.Value.Value)))
			}
			found = &entry{name: key, value: mv}
		}
	}
	return found, nil
}

// litString returns the string a JSON string literal holds. Most names
// have no escapes, and need no decoding.
func litString(lit hujson.Literal) string {
	if len(lit) >= 2 && bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1])
	}
	return lit.String()
}
