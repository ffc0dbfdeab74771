package installer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yamlFormat edits YAML files (Goose, Continue) by text. The parser is
// used only to find the lines of the container and its entries; entries
// are inserted and deleted as whole lines, so comments, anchors and the
// style of everything else stay as they were. Every result is re-parsed.
//
// With seq, the container is a list of mappings named by their "name"
// key (Continue's mcpServers); otherwise a mapping keyed by name (Goose's
// extensions).
type yamlFormat struct{ seq bool }

func (yamlFormat) name() string { return "YAML" }

// parse decodes body into yaml.Node, never into maps: go-yaml compares
// every pair of keys of a mapping it decodes into a map, and checks none
// for a node. Duplicate keys are refused here instead, as go-yaml would.
func (f yamlFormat) parse(file string, body []byte) (document, error) {
	d := &yamlDoc{file: file, body: body, eol: eolOf(body), seq: f.seq}
	var root yaml.Node
	if err := yaml.Unmarshal(body, &root); err != nil {
		fe := &FileError{File: file, Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
		if n, _ := fmt.Sscanf(err.Error(), "yaml: line %d:", &fe.Line); n == 1 {
			_, fe.Msg, _ = strings.Cut(fe.Msg, ": ")
			fe.Msg = "invalid YAML: " + fe.Msg
		}
		return nil, fe
	}
	if len(root.Content) > 0 {
		top := root.Content[0]
		if top.Kind != yaml.MappingNode {
			return nil, &FileError{File: file, Line: top.Line, Col: top.Column, Msg: "the top level is not a mapping"}
		}
		if err := d.unique(top); err != nil {
			return nil, err
		}
		d.top = top
	}
	return d, nil
}

// unique refuses a mapping under n with the same key twice.
func (d *yamlDoc) unique(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]*yaml.Node, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if prev, dup := seen[k.Value]; dup {
				return &FileError{File: d.file, Line: k.Line, Col: k.Column, Msg: fmt.Sprintf("invalid YAML: mapping key %q already defined at line %d", k.Value, prev.Line)}
			}
			seen[k.Value] = k
		}
	}
	for _, c := range n.Content {
		if err := d.unique(c); err != nil {
			return err
		}
	}
	return nil
}

type yamlDoc struct {
	file string
	body []byte
	eol  string
	seq  bool
	top  *yaml.Node // the top-level mapping, nil in an empty file
}

func (d *yamlDoc) tree() (*node, error) {
	n := node{kind: '{'}
	if d.top != nil {
		n = yamlNode(d.top)
	}
	return &n, nil
}

// yamlNode converts n, with its aliases by name rather than expanded.
func yamlNode(n *yaml.Node) node {
	switch n.Kind {
	case yaml.MappingNode:
		out := node{kind: '{', keys: make([]string, 0, len(n.Content)/2), kids: make([]node, 0, len(n.Content)/2)}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], yamlNode(n.Content[i+1])
			key := k.Value
			if k.Kind != yaml.ScalarNode { // a complex key, rare
				key, v = "\x00", node{kind: '[', kids: []node{yamlNode(k), v}}
			}
			out.keys = append(out.keys, key)
			out.kids = append(out.kids, v)
		}
		return out
	case yaml.SequenceNode:
		out := node{kind: '[', kids: make([]node, len(n.Content))}
		for i, c := range n.Content {
			out.kids[i] = yamlNode(c)
		}
		return out
	case yaml.AliasNode:
		return node{kind: 'v', text: "*" + n.Value}
	case yaml.DocumentNode:
		return yamlNode(n.Content[0])
	}
	switch tag := n.ShortTag(); tag {
	case "!!str":
		return node{kind: '"', text: n.Value}
	case "!!null":
		return node{kind: '0'}
	default:
		return node{kind: 'v', text: tag + " " + n.Value}
	}
}

// A yamlBlock describes the lines of a container: the line of its key,
// the first line of each entry, and the line after its last content line.
type yamlBlock struct {
	keyLine int // 0-based
	names   []string
	nodes   []*yaml.Node // each entry's mapping
	starts  []int
	end     int
	indent  string // before each entry's key (or dash)
	inner   string // before the fields of an entry
	// keyText is the key line without its empty flow container
	// (extensions: {}), if it has one: the line an entry is added under.
	keyText string
}

func (d *yamlDoc) block(container []string) (*yamlBlock, []string, error) {
	if len(container) != 1 {
		panic("installer: YAML containers are top-level keys")
	}
	lines := splitLines(d.body)
	if d.top == nil {
		return nil, lines, nil
	}
	kids := d.top.Content
	for i := 0; i+1 < len(kids); i += 2 {
		if kids[i].Value != container[0] {
			continue
		}
		k, v := kids[i], kids[i+1]
		b := &yamlBlock{keyLine: k.Line - 1, end: len(lines), indent: "  ", inner: "    "}
		if i+2 < len(kids) {
			b.end = kids[i+2].Line - 1
		}
		for b.end > b.keyLine+1 && isBlankOrComment(lines[b.end-1]) {
			b.end--
		}
		want, kind := yaml.MappingNode, "a mapping"
		if d.seq {
			want, kind = yaml.SequenceNode, "a list"
		}
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Line == k.Line && strings.TrimSpace(v.Value) == "":
			return b, lines, nil // "key:" with nothing under it
		case v.Kind != want:
			return nil, nil, &FileError{File: d.file, Line: v.Line, Col: v.Column, Msg: fmt.Sprintf("%q is not %s", container[0], kind)}
		case len(v.Content) == 0 && v.Line == k.Line:
			if b.keyText = withoutEmptyFlow(lines[b.keyLine], v.Column); b.keyText != "" {
				return b, lines, nil // "key: {}": empty too
			}
			fallthrough
		case v.Style&yaml.FlowStyle != 0 || v.Line == k.Line:
			return nil, nil, &FileError{File: d.file, Line: v.Line, Col: v.Column, Msg: fmt.Sprintf("%q is written in flow style, which mcpship does not edit; rewrite it in block style, as below, and run the command again:\n%s", container[0], blockStyle(k, v))}
		}
		if d.seq {
			for _, item := range v.Content {
				if item.Kind != yaml.MappingNode {
					return nil, nil, &FileError{File: d.file, Line: item.Line, Col: item.Column, Msg: "a server in the list is not a mapping"}
				}
				start := item.Line - 1
				for start > b.keyLine && !strings.HasPrefix(strings.TrimSpace(lines[start]), "-") {
					start--
				}
				b.names = append(b.names, yamlName(item))
				b.nodes = append(b.nodes, item)
				b.starts = append(b.starts, start)
				if len(b.starts) == 1 {
					b.indent = lines[start][:len(lines[start])-len(strings.TrimLeft(lines[start], " "))]
					b.inner = strings.Repeat(" ", item.Column-1)
				}
			}
			return b, lines, nil
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			ek, ev := v.Content[j], v.Content[j+1]
			if ev.Kind != yaml.MappingNode {
				return nil, nil, &FileError{File: d.file, Line: ev.Line, Col: ev.Column, Msg: fmt.Sprintf("server %q is not a mapping", ek.Value)}
			}
			b.names = append(b.names, ek.Value)
			b.nodes = append(b.nodes, ev)
			b.starts = append(b.starts, ek.Line-1)
			if j == 0 {
				b.indent = strings.Repeat(" ", ek.Column-1)
				if ev.Kind == yaml.MappingNode && len(ev.Content) > 0 && ev.Line > ek.Line {
					b.inner = strings.Repeat(" ", ev.Content[0].Column-1)
				} else {
					b.inner = b.indent + "  "
				}
			}
		}
		return b, lines, nil
	}
	return nil, lines, nil
}

// withoutEmptyFlow returns line, the line of a key whose value is an
// empty flow collection ({} or []) starting at column col, without it; or
// "" if the collection does not end on the line.
func withoutEmptyFlow(line string, col int) string {
	off := 0
	for range col - 1 { // columns count characters
		_, n := utf8.DecodeRuneInString(line[off:])
		off += n
	}
	if off >= len(line) || line[off] != '{' && line[off] != '[' {
		return ""
	}
	end := off + 1 + len(line[off+1:]) - len(strings.TrimLeft(line[off+1:], " \t"))
	if end >= len(line) || line[end] != line[off]+2 { // '{'+2 is '}', '['+2 is ']'
		return ""
	}
	return strings.TrimRight(line[:off], " \t") + line[end+1:]
}

func isEmptyFlow(s string) bool { return s == "{}" || s == "[]" }

// blockStyle returns the YAML key: v in block style, to write by hand.
func blockStyle(k, v *yaml.Node) string {
	var clear func(n *yaml.Node) *yaml.Node
	clear = func(n *yaml.Node) *yaml.Node {
		c := *n
		c.Style &^= yaml.FlowStyle
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, x := range n.Content {
			c.Content[i] = clear(x)
		}
		return &c
	}
	var sb strings.Builder
	enc := yaml.NewEncoder(&sb)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, clear(v)}}); err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	return sb.String()
}

func yamlName(item *yaml.Node) string {
	for i := 0; i+1 < len(item.Content); i += 2 {
		if item.Content[i].Value == "name" {
			return item.Content[i+1].Value
		}
	}
	return ""
}

func (d *yamlDoc) entries(container []string) ([]entry, error) {
	b, _, err := d.block(container)
	if err != nil || b == nil {
		return nil, err
	}
	out := make([]entry, len(b.names))
	for i, n := range b.nodes {
		name := b.names[i]
		out[i] = entry{name: name, decode: func() (map[string]any, error) {
			var m map[string]any
			if err := n.Decode(&m); err != nil {
				return nil, &FileError{File: d.file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf("server %q: %v", name, err)}
			}
			return m, nil
		}}
	}
	return out, nil
}

func (d *yamlDoc) set(container []string, name string, e []field) ([]byte, undo, error) {
	b, lines, err := d.block(container)
	if err != nil {
		return nil, undo{}, err
	}
	if b == nil { // append the container at the end
		out := string(d.body)
		if len(out) > 0 && !strings.HasSuffix(out, "\n") {
			out += d.eol
		}
		out += yamlKey(container[0]) + ":" + d.eol + d.render(name, e, "  ", "    ")
		return []byte(out), undo{created: 1}, nil
	}
	text := d.render(name, e, b.indent, b.inner)
	for i, n := range b.names {
		if n == name { // replace the entry's lines
			end := b.end
			if i+1 < len(b.starts) {
				end = b.starts[i+1]
			}
			return join(lines[:b.starts[i]], text, lines[end:]), undo{}, nil
		}
	}
	if len(b.names) > 0 {
		return join(lines[:b.end], text, lines[b.end:]), undo{}, nil
	}
	if b.keyText != "" { // "key: {}" becomes "key:" with the entry under it
		key := lines[b.keyLine]
		lines[b.keyLine] = b.keyText
		return join(lines[:b.keyLine+1], text, lines[b.keyLine+1:]), undo{empty: key}, nil
	}
	return join(lines[:b.keyLine+1], text, lines[b.keyLine+1:]), undo{}, nil
}

func (d *yamlDoc) remove(container []string, name string, u undo) ([]byte, error) {
	b, lines, err := d.block(container)
	if err != nil {
		return nil, err
	}
	for i, n := range b.names {
		if n != name {
			continue
		}
		start, end := b.starts[i], b.end
		if i+1 < len(b.starts) {
			end = b.starts[i+1]
		}
		if len(b.names) == 1 && start == b.keyLine+1 {
			switch {
			case u.created > 0:
				start = b.keyLine
			case u.empty != "" && slices.Equal(strings.Fields(lines[b.keyLine]), slices.DeleteFunc(strings.Fields(u.empty), isEmptyFlow)):
				lines[b.keyLine] = u.empty // the "key: {}" the entry was added to
			}
		}
		return join(lines[:start], "", lines[end:]), nil
	}
	return nil, fmt.Errorf("%s: no server named %q", d.file, name)
}

func join(before []string, mid string, after []string) []byte {
	return []byte(strings.Join(before, "") + mid + strings.Join(after, ""))
}

// render writes one entry: under a mapping as "name:" with the fields
// below it, in a list as "- " followed by the fields.
func (d *yamlDoc) render(name string, e []field, indent, inner string) string {
	var sb strings.Builder
	if d.seq {
		for i, f := range e {
			if i == 0 {
				sb.WriteString(indent + "- ")
				inner = indent + "  "
			} else {
				sb.WriteString(inner)
			}
			sb.WriteString(yamlKey(f.key) + ": " + yamlValue(f.val) + d.eol)
		}
		return sb.String()
	}
	sb.WriteString(indent + yamlKey(name) + ":" + d.eol)
	for _, f := range e {
		sb.WriteString(inner + yamlKey(f.key) + ": " + yamlValue(f.val) + d.eol)
	}
	return sb.String()
}

// plainKey reports whether k matches ^[A-Za-z_][A-Za-z0-9_-]*$ (a loop,
// not a regexp compiled at every start-up).
func plainKey(k string) bool {
	return bareKey(k) && (k[0] < '0' || k[0] > '9') && k[0] != '-'
}

func yamlKey(k string) string {
	switch strings.ToLower(k) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return quoteJSON(k)
	}
	if plainKey(k) {
		return k
	}
	return quoteJSON(k)
}

func yamlValue(v any) string {
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
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = quoteJSON(f.key) + ": " + yamlValue(f.val)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	panic(fmt.Sprintf("installer: cannot render %T as YAML", v))
}

func isBlankOrComment(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}

// splitLines splits b after each "\n", keeping the line endings.
func splitLines(b []byte) []string {
	s := string(b)
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}
