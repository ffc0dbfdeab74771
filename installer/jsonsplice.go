package installer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// The edits of jsonDoc. Each splices text into or out of d.body at the
// offsets hujson recorded, and leaves every other byte as it was.

func (d *jsonDoc) set(container []string, name string, e []field) ([]byte, int, error) {
	path := append(slices.Clone(container), name)
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
