package installer

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// tomlFormat edits TOML files (Codex) by text: each server is a table
// [container.name] whose lines are replaced, appended or deleted as a
// block. Files are decoded with BurntSushi/toml, whose decoder takes time
// in proportion to the file (go-toml's checks for duplicate keys do not).
type tomlFormat struct{}

func (tomlFormat) name() string { return "TOML" }

func (tomlFormat) parse(file string, body []byte) (document, error) {
	var m map[string]any
	if _, err := toml.Decode(string(body), &m); err != nil {
		fe := &FileError{File: file, Msg: "invalid TOML: " + err.Error()}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			fe.Line, fe.Col, fe.Msg = pe.Position.Line, pe.Position.Col, "invalid TOML: "+pe.Message
		}
		return nil, fe
	}
	return &tomlDoc{file: file, body: body, eol: eolOf(body), m: m}, nil
}

type tomlDoc struct {
	file string
	body []byte
	eol  string
	m    map[string]any
}

func (d *tomlDoc) tree() (*node, error) {
	n := tomlNode(d.m)
	return &n, nil
}

func tomlNode(v any) node {
	switch v := v.(type) {
	case map[string]any:
		n := node{kind: '{', keys: slices.Sorted(maps.Keys(v))}
		n.kids = make([]node, len(n.keys))
		for i, k := range n.keys {
			n.kids[i] = tomlNode(v[k])
		}
		return n
	case []map[string]any: // an array of tables
		n := node{kind: '[', kids: make([]node, len(v))}
		for i, x := range v {
			n.kids[i] = tomlNode(x)
		}
		return n
	case []any:
		n := node{kind: '[', kids: make([]node, len(v))}
		for i, x := range v {
			n.kids[i] = tomlNode(x)
		}
		return n
	case string:
		return node{kind: '"', text: v}
	case int64:
		return node{kind: 'v', text: strconv.FormatInt(v, 10)}
	case float64:
		return node{kind: 'v', text: strconv.FormatFloat(v, 'g', -1, 64) + "f"}
	case bool:
		return node{kind: 'v', text: strconv.FormatBool(v)}
	}
	return node{kind: 'v', text: fmt.Sprintf("%T %v", v, v)} // dates and times
}

func (d *tomlDoc) table(container []string) (map[string]any, error) {
	cur := d.m
	for _, k := range container {
		v, ok := cur[k]
		if !ok {
			return nil, nil
		}
		next, ok := v.(map[string]any)
		if !ok {
			return nil, &FileError{File: d.file, Msg: fmt.Sprintf("%q is a %T, not a table", k, v)}
		}
		cur = next
	}
	return cur, nil
}

func (d *tomlDoc) entries(container []string) ([]entry, error) {
	t, err := d.table(container)
	if err != nil {
		return nil, err
	}
	// File order: by table header, then any defined otherwise.
	var names []string
	seen := make(map[string]bool, len(t))
	for _, line := range splitLines(d.body) {
		h, ok := tomlHeader(line)
		if ok && len(h) == len(container)+1 && slices.Equal(h[:len(container)], container) && t[h[len(h)-1]] != nil && !seen[h[len(h)-1]] {
			names = append(names, h[len(h)-1])
			seen[h[len(h)-1]] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(t)) {
		if !seen[name] {
			names = append(names, name)
		}
	}
	var out []entry
	for _, name := range names {
		v, ok := t[name].(map[string]any)
		if !ok {
			return nil, &FileError{File: d.file, Msg: fmt.Sprintf("server %q is a %T, not a table", name, t[name])}
		}
		out = append(out, entry{name: name, decode: func() (map[string]any, error) { return v, nil }})
	}
	return out, nil
}

func (d *tomlDoc) set(container []string, name string, e []field) ([]byte, undo, error) {
	t, err := d.table(container)
	if err != nil {
		return nil, undo{}, err
	}
	block := tomlBlock(append(slices.Clone(container), name), e, d.eol)
	if _, ok := t[name]; ok {
		lines := splitLines(d.body)
		start, end, ok := tomlTableLines(lines, append(slices.Clone(container), name))
		if !ok {
			return nil, undo{}, &FileError{File: d.file, Msg: fmt.Sprintf("server %q is not written as a [%s] table, so it cannot be replaced safely", name, tomlKey(append(slices.Clone(container), name)))}
		}
		return []byte(strings.Join(lines[:start], "") + block + strings.Join(lines[end:], "")), undo{}, nil
	}
	out := string(d.body)
	if len(out) > 0 && !strings.HasSuffix(out, "\n") {
		out += d.eol
	}
	if len(out) > 0 {
		out += d.eol
	}
	return []byte(out + block), undo{}, nil
}

func (d *tomlDoc) remove(container []string, name string, _ undo) ([]byte, error) {
	lines := splitLines(d.body)
	key := append(slices.Clone(container), name)
	start, end, ok := tomlTableLines(lines, key)
	if !ok {
		return nil, &FileError{File: d.file, Msg: fmt.Sprintf("server %q is not written as a [%s] table, so it cannot be removed safely", name, tomlKey(key))}
	}
	blank := func(i int) bool { return i >= 0 && i < len(lines) && strings.TrimSpace(lines[i]) == "" }
	if blank(start-1) && (end == len(lines) || blank(end)) {
		start-- // the blank line that separated the table
	}
	return []byte(strings.Join(lines[:start], "") + strings.Join(lines[end:], "")), nil
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
			parts[i] = quoteJSON(k)
		}
	}
	return strings.Join(parts, ".")
}

func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return quoteJSON(v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = quoteJSON(s)
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

// tomlTableLines finds the table [key] and its sub-tables among lines. It
// returns the first line of the header and the line after the table's last
// line that is neither blank nor a comment.
func tomlTableLines(lines []string, key []string) (start, end int, ok bool) {
	start = -1
	for i, line := range lines {
		h, isHeader := tomlHeader(line)
		if !isHeader {
			if start >= 0 && !isBlankOrComment(line) {
				end = i + 1
			}
			continue
		}
		if start >= 0 {
			if len(h) > len(key) && slices.Equal(h[:len(key)], key) {
				end = i + 1
				continue
			}
			break
		}
		if slices.Equal(h, key) {
			start, end = i, i+1
		}
	}
	return start, end, start >= 0
}

func isBlankOrComment(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}

// tomlHeader parses a [table] or [[array]] header line into its keys.
func tomlHeader(line string) ([]string, bool) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "[") {
		return nil, false
	}
	arr := strings.HasPrefix(s, "[[")
	s = strings.TrimPrefix(s[1:], "[")
	var keys []string
	for {
		s = strings.TrimLeft(s, " \t")
		var k string
		switch {
		case strings.HasPrefix(s, `"`):
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, true
			}
			k, _ = strconv.Unquote(q)
			s = s[len(q):]
		case strings.HasPrefix(s, "'"):
			j := strings.IndexByte(s[1:], '\'')
			if j < 0 {
				return nil, true
			}
			k, s = s[1:j+1], s[j+2:]
		default:
			j := strings.IndexFunc(s, notBareKeyRune)
			if j <= 0 {
				return nil, true
			}
			k, s = s[:j], s[j:]
		}
		keys = append(keys, k)
		s = strings.TrimLeft(s, " \t")
		if strings.HasPrefix(s, ".") {
			s = s[1:]
			continue
		}
		if arr {
			return append([]string{"[["}, keys...), true // never equal to a table key
		}
		return keys, true
	}
}
