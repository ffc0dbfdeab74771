package installer

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlFormat edits TOML files (Codex) by text: each server is a table
// [container.name] whose lines are replaced, appended or deleted as a
// block. Files are parsed with go-toml's parser (its unstable package),
// which gives each expression with its offsets; parseTOML builds the
// tables from them.
type tomlFormat struct{}

func (tomlFormat) name() string { return "TOML" }

func (tomlFormat) parse(file string, body []byte) (document, error) {
	root, err := parseTOML(file, body)
	if err != nil {
		return nil, err
	}
	return &tomlDoc{file: file, body: body, eol: eolOf(body), root: root}, nil
}

type tomlDoc struct {
	file string
	body []byte
	eol  string
	root *tomlItem
}

func (d *tomlDoc) tree() (*node, error) {
	n := d.root.node()
	return &n, nil
}

// table returns the table at the container path: t, or, if it is
// written inline (or within a table written so), m, its value. Both are
// nil if there is none.
func (d *tomlDoc) table(container []string) (t *tomlTable, m map[string]any, err error) {
	t = d.root.kids
	for i, k := range container {
		v := t.get(k)
		switch {
		case v == nil:
			return nil, nil, nil
		case v.kind == '{':
			t = v.kids
			continue
		case tomlKind(v) == "an inline table":
			m, _ = v.plain().(map[string]any)
			for _, k := range container[i+1:] {
				if m[k] == nil {
					return nil, nil, nil
				}
				if m, _ = m[k].(map[string]any); m == nil {
					return nil, nil, &FileError{File: d.file, Msg: fmt.Sprintf("%q is not a table", k)}
				}
			}
			return nil, m, nil
		}
		return nil, nil, &FileError{File: d.file, Msg: fmt.Sprintf("%q is %s, not a table", k, tomlKind(v))}
	}
	return t, nil, nil
}

func (d *tomlDoc) entries(container []string) ([]entry, error) {
	t, m, err := d.table(container)
	var out []entry
	for _, name := range slices.Sorted(maps.Keys(m)) { // written inline
		v, ok := m[name].(map[string]any)
		if !ok {
			return nil, &FileError{File: d.file, Msg: fmt.Sprintf("server %q is not a table", name)}
		}
		out = append(out, entry{name: name, decode: func() (map[string]any, error) { return v, nil }})
	}
	if t == nil {
		return out, err
	}
	for i := range t.members {
		name, v := t.members[i].key, &t.members[i].val
		if v.kind != '{' && tomlKind(v) != "an inline table" {
			return nil, &FileError{File: d.file, Msg: fmt.Sprintf("server %q is %s, not a table", name, tomlKind(v))}
		}
		out = append(out, entry{name: name, decode: func() (map[string]any, error) {
			m, _ := v.plain().(map[string]any)
			return m, nil
		}})
	}
	return out, nil
}

func (d *tomlDoc) set(container []string, name string, e []field) ([]byte, undo, error) {
	t, m, err := d.table(container)
	if err != nil {
		return nil, undo{}, err
	}
	key := append(slices.Clone(container), name)
	block := tomlBlock(key, e, d.eol)
	if v := t.get(name); v != nil || m[name] != nil {
		start, end, err := d.tableText(v, key, "replaced")
		if err != nil {
			return nil, undo{}, err
		}
		return splice(d.body, start, end, block), undo{}, nil
	}
	if m != nil {
		return nil, undo{}, &FileError{File: d.file, Msg: fmt.Sprintf("%s is an inline table, which cannot be extended; write its servers as [%s] tables to add one", tomlKey(container), tomlKey(key))}
	}
	n := len(d.body)
	if n > 0 && d.body[n-1] != '\n' {
		block = d.eol + block
	}
	if n > 0 {
		block = d.eol + block
	}
	return splice(d.body, n, n, block), undo{}, nil
}

func (d *tomlDoc) remove(container []string, name string, _ undo) ([]byte, error) {
	t, _, err := d.table(container)
	if err != nil {
		return nil, err
	}
	start, end, err := d.tableText(t.get(name), append(slices.Clone(container), name), "removed")
	if err != nil {
		return nil, err
	}
	blank := func(s, e int) bool { return isSpace(d.body[s:e]) }
	if start > 0 && blank(lineStart(d.body, start-1), start) && (end == len(d.body) || blank(end, lineEnd(d.body, end))) {
		start = lineStart(d.body, start-1) // the blank line that separated the table
	}
	return splice(d.body, start, end, ""), nil
}

// tableText returns where the table v, whose key is key, is written: from
// its [header] line to the end of the last line that is not a comment,
// with the sub-tables whose headers follow. Done is what the caller would
// do to it, for the error when v is written otherwise.
func (d *tomlDoc) tableText(v *tomlItem, key []string, done string) (start, end int, err error) {
	if v == nil || v.kind != '{' || v.kids.how != 'h' {
		return 0, 0, &FileError{File: d.file, Msg: fmt.Sprintf("server %q is not written as a [%s] table, so it cannot be %s safely", key[len(key)-1], tomlKey(key), done)}
	}
	start = lineStart(d.body, int(v.at))
	var p unstable.Parser
	p.Reset(d.body[start:])
	for p.NextExpression() {
		e := p.Expression()
		last := e.Raw.Offset + e.Raw.Length // of a key/value
		if e.Kind == unstable.Table || e.Kind == unstable.ArrayTable {
			if end > 0 && !under(e, key) {
				break
			}
			last = e.Child().Raw.Offset // a header is one line
		}
		end = lineEnd(d.body, start+int(last))
	}
	if at := v.outside(start, end); at >= 0 {
		line, _ := lineCol(d.body, at)
		return 0, 0, &FileError{File: d.file, Line: line, Msg: fmt.Sprintf("server %q is written in two places, its [%s] table and here, so it cannot be %s safely", key[len(key)-1], tomlKey(key), done)}
	}
	return start, end, nil
}

// outside returns the offset of a key or header within v that is not
// between start and end, or -1.
func (v *tomlItem) outside(start, end int) int {
	if v.kids == nil {
		return -1
	}
	for i := range v.kids.members {
		x := &v.kids.members[i].val
		if int(x.at) < start || int(x.at) >= end {
			return int(x.at)
		}
		if at := x.outside(start, end); at >= 0 {
			return at
		}
	}
	return -1
}

// under reports whether the header e names a table within the table key.
func under(e *unstable.Node, key []string) bool {
	i := 0
	for it := e.Key(); it.Next(); i++ {
		if i < len(key) && string(it.Node().Data) != key[i] {
			return false
		}
	}
	return i > len(key)
}

// lineEnd returns the offset after the line ending of the line holding off.
func lineEnd(b []byte, off int) int {
	if i := bytes.IndexByte(b[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(b)
}

// tomlBlock renders the table key with the fields e.
func tomlBlock(key []string, e []field, eol string) string {
	var sb strings.Builder
	sb.WriteString("[" + tomlKey(key) + "]" + eol)
	for _, f := range e {
		sb.WriteString(tomlKey([]string{f.key}) + " = " + tomlValue(f.val) + eol)
	}
	return sb.String()
}

// bareKey reports whether k matches ^[A-Za-z0-9_-]+$, a TOML bare key.
func bareKey(k string) bool { return k != "" && strings.IndexFunc(k, notBareKeyRune) < 0 }

// notBareKeyRune reports whether r cannot be part of a TOML bare key.
func notBareKeyRune(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-')
}

func tomlKey(key []string) string {
	parts := make([]string, len(key))
	for i, k := range key {
		parts[i] = k
		if !bareKey(k) {
			parts[i] = tomlString(k)
		}
	}
	return strings.Join(parts, ".")
}

func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return tomlString(v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = tomlString(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []field:
		if len(v) == 0 {
			return "{}"
		}
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = tomlKey([]string{f.key}) + " = " + tomlValue(f.val)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	panic(fmt.Sprintf("installer: cannot render %T as TOML", v))
}

// tomlString returns s as a TOML basic string: as JSON quotes it, but
// for DEL, which TOML strings cannot hold as is.
func tomlString(s string) string {
	return strings.ReplaceAll(quoteJSON(s), "\x7f", `\u007f`)
}
