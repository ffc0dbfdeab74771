package installer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// jsonFormat edits JSON files. With jsonc, comments and trailing commas
// are accepted (and kept); without, the file must be strict JSON, since
// the client reading it would reject anything else.
//
// Both are parsed with hujson, which records the byte offsets of every
// value; edits are splices at those offsets, so no other byte changes.
type jsonFormat struct{ jsonc bool }

func (f jsonFormat) list() bool { return false }

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
		d.blank = true
	}
	if !f.jsonc && !d.blank {
		if err := json.Unmarshal(body, &d.m); err != nil {
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
	v, err := hujson.Parse(d.body)
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
	root   hujson.Value
	m      any // the decoded document, for strict JSON
}

func (d *jsonDoc) errAt(off int, msg string) error {
	line, col := lineCol(d.body, off)
	return &FileError{File: d.file, Line: line, Col: col, Msg: msg}
}

// indentUnit guesses one level of indentation from the first indented
// member name in b.
func indentUnit(b []byte) string {
	for _, line := range bytes.Split(b, []byte("\n")) {
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
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == key {
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
	if d.m != nil {
		return d.m, nil
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
		name := m.Name.Value.(hujson.Literal).String()
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

func (d *jsonDoc) set(container []string, name string, e []field) ([]byte, int, error) {
	path := append(slicesClone(container), name)
	v, n, err := d.walk(container)
	if err != nil {
		return nil, 0, err
	}
	if n == len(container) {
		m, _, err := d.member(v.Value.(*hujson.Object), name)
		if err != nil {
			return nil, 0, err
		}
		if m != nil { // replace the value in place
			indent, _ := indentAt(d.body, m.Name.StartOffset)
			return splice(d.body, m.Value.StartOffset, m.Value.EndOffset, d.render(e, indent)), 0, nil
		}
	}
	// Insert path[n] into the object v, nesting the rest of the path.
	var val any = e
	for i := len(path) - 1; i > n; i-- {
		val = []field{{path[i], val}}
	}
	return d.insert(v, path[n], val), len(container) - n, nil
}

// insert adds the member key: val at the end of the object v.
func (d *jsonDoc) insert(v *hujson.Value, key string, val any) []byte {
	obj := v.Value.(*hujson.Object)
	if k := len(obj.Members); k > 0 {
		last := obj.Members[k-1]
		indent, first := indentAt(d.body, last.Name.StartOffset)
		text := "," + quoteJSON(key) + ":" + d.compact(val)
		if first && d.pretty {
			text = "," + d.eol + indent + quoteJSON(key) + ": " + d.render(val, indent)
		}
		return splice(d.body, last.Value.EndOffset, last.Value.EndOffset, text)
	}
	open, closing := v.StartOffset, v.EndOffset-1
	if !d.pretty {
		return splice(d.body, open+1, open+1, quoteJSON(key)+":"+d.compact(val))
	}
	outer, _ := indentAt(d.body, open)
	indent := outer + d.unit
	member := d.eol + indent + quoteJSON(key) + ": " + d.render(val, indent)
	if isSpace(d.body[open+1 : closing]) {
		return splice(d.body, open+1, closing, member+d.eol+outer)
	}
	return splice(d.body, open+1, open+1, member) // keep the comments after it
}

func (d *jsonDoc) remove(container []string, name string, drop int) ([]byte, error) {
	v, n, err := d.walk(container)
	if err != nil {
		return nil, err
	}
	if n < len(container) {
		return nil, fmt.Errorf("%s: no server named %q", d.file, name)
	}
	out, err := d.removeMember(v, name)
	// Delete up to drop levels of container that are now exactly {}.
	for k := len(container); err == nil && k > 0 && k > len(container)-drop; k-- {
		nd, perr := jsonFormat{jsonc: true}.parse(d.file, out)
		if perr != nil {
			return nil, perr
		}
		d2 := nd.(*jsonDoc)
		c, _, werr := d2.walk(container[:k])
		if werr != nil {
			return nil, werr
		}
		if c.EndOffset-c.StartOffset != 2 {
			break
		}
		parent, _, werr := d2.walk(container[:k-1])
		if werr != nil {
			return nil, werr
		}
		out, err = d2.removeMember(parent, container[k-1])
	}
	return out, err
}

// removeMember deletes key from the object v: its name, value and one
// separating comma, plus the line it stood on when it had a line of its own.
func (d *jsonDoc) removeMember(v *hujson.Value, key string) ([]byte, error) {
	obj := v.Value.(*hujson.Object)
	m, i, err := d.member(obj, key)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%s: no key %q", d.file, key)
	}
	b := d.body
	comma := m.Value.EndOffset + len(m.Value.AfterExtra) // valid if AfterExtra != nil
	switch {
	case len(obj.Members) == 1:
		end := m.Value.EndOffset
		if m.Value.AfterExtra != nil {
			end = comma + 1
		}
		out := splice(b, v.StartOffset+1, end, "")
		closing := v.EndOffset - 1 - (end - v.StartOffset - 1)
		if isSpace(out[v.StartOffset+1 : closing]) {
			out = splice(out, v.StartOffset+1, closing, "")
		}
		return out, nil
	case i == len(obj.Members)-1:
		return splice(b, obj.Members[i-1].Value.EndOffset, m.Value.EndOffset, ""), nil
	default:
		start := m.Name.StartOffset
		if _, first := indentAt(b, start); first {
			start = lineStart(b, start)
		}
		end := comma + 1
		if start < m.Name.StartOffset { // take the rest of the line if it is blank
			e := end
			for e < len(b) && (b[e] == ' ' || b[e] == '\t' || b[e] == '\r') {
				e++
			}
			if e < len(b) && b[e] == '\n' {
				end = e + 1
			}
		}
		return splice(b, start, end, ""), nil
	}
}

// render formats val as JSON starting at a line indented by indent.
func (d *jsonDoc) render(val any, indent string) string {
	if !d.pretty {
		return d.compact(val)
	}
	var sb strings.Builder
	in := indent + d.unit
	switch val := val.(type) {
	case []field:
		if len(val) == 0 {
			return "{}"
		}
		sb.WriteString("{")
		for i, f := range val {
			if i > 0 {
				sb.WriteString(",")
			}
			sb.WriteString(d.eol + in + quoteJSON(f.key) + ": " + d.render(f.val, in))
		}
		sb.WriteString(d.eol + indent + "}")
	case []string:
		if len(val) == 0 {
			return "[]"
		}
		sb.WriteString("[")
		for i, s := range val {
			if i > 0 {
				sb.WriteString(",")
			}
			sb.WriteString(d.eol + in + quoteJSON(s))
		}
		sb.WriteString(d.eol + indent + "]")
	default:
		return d.compact(val)
	}
	return sb.String()
}

// compact formats val as JSON on one line without spaces.
func (d *jsonDoc) compact(val any) string {
	switch val := val.(type) {
	case []field:
		parts := make([]string, len(val))
		for i, f := range val {
			parts[i] = quoteJSON(f.key) + ":" + d.compact(f.val)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []string:
		parts := make([]string, len(val))
		for i, s := range val {
			parts[i] = quoteJSON(s)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case string:
		return quoteJSON(val)
	case bool:
		return strconv.FormatBool(val)
	case int:
		return strconv.Itoa(val)
	}
	panic(fmt.Sprintf("installer: cannot render %T", val))
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }
