package installer

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// The edits of jsonDoc. Each splices text into or out of d.body at the
// offsets hujson recorded, and leaves every other byte as it was.

func (d *jsonDoc) set(container []string, name string, e []field) ([]byte, undo, error) {
	path := append(slices.Clone(container), name)
	v, n, err := d.walk(container)
	if err != nil {
		return nil, undo{}, err
	}
	if n == len(container) {
		m, _, err := d.member(v.Value.(*hujson.Object), name)
		if err != nil {
			return nil, undo{}, err
		}
		if m != nil { // replace the value in place
			indent, _ := indentAt(d.body, m.Name.StartOffset)
			return splice(d.body, m.Value.StartOffset, m.Value.EndOffset, d.render(e, indent)), undo{}, nil
		}
	}
	// Insert path[n] into the object v, nesting the rest of the path.
	var val any = e
	for i := len(path) - 1; i > n; i-- {
		val = []field{{path[i], val}}
	}
	out, empty := d.insert(v, path[n], val)
	return out, undo{created: len(container) - n, empty: empty}, nil
}

// insert adds the member key: val at the end of the object v, after the
// comments on the line of the last member (or of the opening brace), which
// stay with what they follow. If v was empty but for whitespace, it
// returns that whitespace, which the new text replaces.
func (d *jsonDoc) insert(v *hujson.Value, key string, val any) ([]byte, string) {
	b := d.body
	obj := v.Value.(*hujson.Object)
	if k := len(obj.Members); k > 0 {
		// After the last member, its comma and the comments on its line.
		last := obj.Members[k-1]
		c := commaAfter(obj, k-1)
		after := last.Value.EndOffset
		if c >= 0 {
			after = c + 1
		}
		at := attached(b, after)
		indent, first := indentAt(b, last.Name.StartOffset)
		text := quoteJSON(key) + ":" + d.compact(val)
		switch {
		case first && d.pretty:
			text = d.eol + indent + quoteJSON(key) + ": " + d.render(val, indent)
		case at < len(b) && (b[at] == '\n' || b[at] == '\r'): // after a line comment
			text = d.eol + indent + text
		}
		if c >= 0 { // a trailing comma: the new member gets one too
			return splice(b, at, at, text+","), ""
		}
		return splice2(b, after, ",", at, text), ""
	}
	open, closing := v.StartOffset, v.EndOffset-1
	at := attached(b, open+1)
	if !d.pretty {
		return splice(b, at, at, quoteJSON(key)+":"+d.compact(val)), ""
	}
	outer, _ := indentAt(b, open)
	indent := outer + d.unit
	member := d.eol + indent + quoteJSON(key) + ": " + d.render(val, indent)
	if isSpace(b[at:closing]) {
		empty := ""
		if at == open+1 {
			empty = string(b[at:closing])
		}
		return splice(b, at, closing, member+d.eol+outer), empty
	}
	return splice(b, at, at, member), "" // before the comments on later lines
}

// commaAfter returns the offset of the comma after member i of obj, or -1
// if it has none (the last member without a trailing comma).
func commaAfter(obj *hujson.Object, i int) int {
	v := obj.Members[i].Value
	if i < len(obj.Members)-1 || v.AfterExtra != nil {
		return v.EndOffset + len(v.AfterExtra)
	}
	return -1
}

// attached returns the end of the comments that follow off on its line
// (not its line ending): what a member's trailing comment belongs to.
// It is called only where hujson found whitespace and comments.
func attached(b []byte, off int) int {
	end := off
	for i := off; i < len(b); {
		switch {
		case b[i] == ' ' || b[i] == '\t':
			i++
		case bytes.HasPrefix(b[i:], []byte("//")):
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				return len(b)
			}
			if j > 0 && b[i+j-1] == '\r' {
				j--
			}
			return i + j
		case bytes.HasPrefix(b[i:], []byte("/*")):
			i += 2 + bytes.Index(b[i+2:], []byte("*/")) + 2
			end = i
		default:
			return end
		}
	}
	return end
}

func (d *jsonDoc) remove(container []string, name string, u undo) ([]byte, error) {
	// The objects along the path, then the member to delete: the entry,
	// or up to drop containers that hold nothing else.
	path := []*hujson.Value{&d.root}
	for _, k := range container {
		m, _, err := d.member(path[len(path)-1].Value.(*hujson.Object), k)
		if err != nil {
			return nil, err
		}
		if m == nil || m.Value.Value.Kind() != '{' {
			return nil, fmt.Errorf("%s: no server named %q", d.file, name)
		}
		path = append(path, &m.Value)
	}
	k, key := len(container), name
	for ; k > 0 && k > len(container)-u.created && onlyMember(path[k], key); k-- {
		key = container[k-1]
	}
	return d.removeMember(path[k], key, u.empty)
}

// onlyMember reports whether the object v holds the member key and
// nothing else, not even a comment.
func onlyMember(v *hujson.Value, key string) bool {
	obj := v.Value.(*hujson.Object)
	if len(obj.Members) != 1 {
		return false
	}
	m := obj.Members[0]
	lit, _ := m.Name.Value.(hujson.Literal)
	return litString(lit) == key && isSpace(m.Name.BeforeExtra) && isSpace(m.Value.AfterExtra) && isSpace(obj.AfterExtra)
}

// removeMember deletes key from the object v: the member, the comments
// on the lines before it and on its own line, and one comma. If only
// whitespace is left between the braces, it is replaced by empty, which
// must be whitespace.
func (d *jsonDoc) removeMember(v *hujson.Value, key string, empty string) ([]byte, error) {
	obj := v.Value.(*hujson.Object)
	m, i, err := d.member(obj, key)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%s: no key %q", d.file, key)
	}
	b := d.body
	from := v.StartOffset + 1 // just after what comes before the member
	if i > 0 {
		from = commaAfter(obj, i-1) + 1
	}
	start := attached(b, from)
	end := attached(b, m.Value.EndOffset)
	c := commaAfter(obj, i)
	if c >= 0 {
		end = attached(b, c+1)
	}
	if bytes.Contains(b[from:start], []byte("//")) && !restBlank(b, end) {
		// A line comment before the member, and text after it on its
		// line: keep the line break that ends the comment.
		start += bytes.IndexByte(b[start:], '\n') + 1
	}
	out := splice(b, start, end, "")
	if c < 0 && i > 0 { // the last member, without a trailing comma: the comma before it goes
		out = splice(out, from-1, from, "")
	}
	open, closing := v.StartOffset, v.EndOffset-1-(len(b)-len(out))
	if isSpace(out[open+1:closing]) && isSpace([]byte(empty)) {
		out = splice(out, open+1, closing, empty)
	}
	return out, nil
}

// restBlank reports whether only whitespace follows off on its line.
func restBlank(b []byte, off int) bool {
	for ; off < len(b) && b[off] != '\n'; off++ {
		if b[off] != ' ' && b[off] != '\t' && b[off] != '\r' {
			return false
		}
	}
	return true
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
