package installer

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// A tomlItem is a value of a TOML document, built by parseTOML from the
// expressions go-toml's parser reads: a table, an array of tables, or a
// value written after a key. A value other than a string is kept as
// written, arrays and inline tables too: that text is what verify
// compares, and plain decodes it when asked.
type tomlItem struct {
	text string     // a string's value, or any other value as written
	kids *tomlTable // a table's members, or an array of tables' elements (with no keys)
	at   int32      // offset of the key or header that defined it
	kind byte       // as node.kind: '{' table, '[' array of tables, '"' string, 'v' any other value
}

// A tomlTable holds a table's members in file order, or an array of
// tables' elements, and how a table was defined, so that parseTOML can
// refuse what TOML forbids: a key or a table defined twice, a header
// naming a table that dotted keys defined, [[a]] on an array written as
// a value, adding to an inline table.
type tomlTable struct {
	how     byte // 'i' implied by the header of a sub-table, 'h' defined by its [header], 'd' by dotted keys
	members []tomlMember
	index   tomlIndex // the members' positions, once there are many
}

// A tomlIndex holds the positions of the members of a document's large
// tables: one map for all, made once with room for about as many as the
// document has headers (a large table is mostly one of tables, such as
// mcp_servers), since growing maps table by table is a good part of the
// cost of building a tree.
type tomlIndex map[tomlIndexKey]int

type tomlIndexKey struct {
	t   *tomlTable
	key string
}

type tomlMember struct {
	key string
	val tomlItem
}

// newTable returns a new table, carved with room for a few members from
// slabs the builder allocates now and then: a document has thousands of
// small tables, and an allocation for each, and another for its
// members, is most of the cost of building its tree.
func (b *tomlBuilder) newTable(how byte, at int) tomlItem {
	const slab, room = 128, 4
	if len(b.tables) == cap(b.tables) {
		b.tables = make([]tomlTable, 0, slab)
		b.members = make([]tomlMember, slab*room)
	}
	b.tables = append(b.tables, tomlTable{how: how})
	t := &b.tables[len(b.tables)-1]
	i := (len(b.tables) - 1) * room
	t.members = b.members[i : i : i+room] // a table that grows past room moves out
	return tomlItem{kind: '{', at: int32(at), kids: t}
}

// get returns the member key of t, or nil if t has none or is nil.
func (t *tomlTable) get(key string) *tomlItem {
	if t == nil {
		return nil
	}
	if n := len(t.members); n > 0 && t.members[n-1].key == key {
		return &t.members[n-1].val // as for [a] then [a.b]
	}
	if i := t.find(key); i >= 0 {
		return &t.members[i].val
	}
	return nil
}

// find returns the index of the member key of t, or -1.
func (t *tomlTable) find(key string) int {
	if t.index != nil {
		if i, ok := t.index[tomlIndexKey{t, key}]; ok {
			return i
		}
		return -1
	}
	for i := range t.members {
		if t.members[i].key == key {
			return i
		}
	}
	return -1
}

// add adds the member key to t and returns it. It is valid until the
// next add to t. Once t is large, its members go into index.
func (t *tomlTable) add(key string, v tomlItem, index tomlIndex) *tomlItem {
	t.members = append(t.members, tomlMember{key, v})
	switch n := len(t.members); {
	case t.index != nil:
		t.index[tomlIndexKey{t, key}] = n - 1
	case n > 8:
		t.index = index
		for i, m := range t.members {
			t.index[tomlIndexKey{t, m.key}] = i
		}
	}
	return &t.members[len(t.members)-1].val
}

// A tomlBuilder builds the tree of one document.
type tomlBuilder struct {
	p    unstable.Parser
	file string
	body []byte
	text string // body, whose substrings are the keys and scalars written without escapes
	root *tomlTable
	cur  *tomlTable // the table that key/value lines go into
	path []string   // cur's key, for messages (its array is reused)

	tables  []tomlTable  // see newTable
	members []tomlMember // room for the members of tables
	index   tomlIndex
}

// parseTOML parses body into its tree of tables, in time linear in its
// size.
func parseTOML(file string, body []byte) (*tomlItem, error) {
	b := &tomlBuilder{file: file, body: body, text: string(body), index: make(tomlIndex, bytes.Count(body, []byte("\n[")))}
	root := b.newTable('h', 0)
	b.root, b.cur = root.kids, root.kids
	b.p.Reset(body[:len(body):len(body)]) // offsets of errors at the end stay in body
	for b.p.NextExpression() {
		e := b.p.Expression()
		var err error
		switch e.Kind {
		case unstable.KeyValue:
			err = b.keyValue(b.cur, e, b.path)
		case unstable.Table, unstable.ArrayTable:
			err = b.header(e)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := b.p.Error(); err != nil {
		off, msg := len(body), err.Error()
		var pe *unstable.ParserError
		if errors.As(err, &pe) {
			r := b.p.Range(pe.Highlight)
			off = int(r.Offset)
			msg = b.named(pe.Message, off, off+int(r.Length))
		}
		return nil, b.errorAt(off, "%s", msg)
	}
	return &root, nil
}

// named returns go-toml's message msg about body[from:to] with the
// character there named whole: go-toml names the first byte of a
// character outside ASCII as if it were one (U+00D0 'Ð' for 'к').
func (b *tomlBuilder) named(msg string, from, to int) string {
	for i := from; i < min(to, len(b.body)); i++ {
		if c := b.body[i]; c >= utf8.RuneSelf {
			what := fmt.Sprintf("byte %#x (not UTF-8)", c)
			if r, _ := utf8.DecodeRune(b.body[i:]); r != utf8.RuneError {
				what = fmt.Sprintf("%#U", r)
			}
			return strings.Replace(msg, fmt.Sprintf("%#U", c), what, 1)
		}
	}
	return msg
}

func (b *tomlBuilder) errorAt(off int, format string, args ...any) error {
	line, col := lineCol(b.body, off)
	return &FileError{File: b.file, Line: line, Col: col, Msg: "invalid TOML: " + fmt.Sprintf(format, args...)}
}

// again is the error for the key path, at off, which v already defines.
func (b *tomlBuilder) again(off int, path []string, v *tomlItem) error {
	what := tomlKind(v)
	switch what {
	case "a table":
		if v.kids.how == 'd' {
			what += " by dotted keys"
		}
	case "an inline table":
		what += ", which cannot be extended"
	case "an array":
		what += ", to which [[ ]] cannot add tables"
	}
	line, _ := lineCol(b.body, int(v.at))
	return b.errorAt(off, "%s is already defined at line %d, as %s", tomlKey(path), line, what)
}

// tomlKind names the kind of v for messages.
func tomlKind(v *tomlItem) string {
	switch {
	case v.kind == '{':
		return "a table"
	case v.kind == '[':
		return "an array of tables"
	case v.kind == '"':
		return "a string"
	case strings.HasPrefix(v.text, "{"):
		return "an inline table"
	case strings.HasPrefix(v.text, "["):
		return "an array"
	}
	return "a value"
}

// header starts the table or array-of-tables element a [header] or
// [[header]] names, and makes it the current table.
func (b *tomlBuilder) header(e *unstable.Node) error {
	t, path := b.root, b.path[:0]
	for it := e.Key(); it.Next(); {
		k := it.Node()
		name, at := b.str(k), int(k.Raw.Offset)
		path = append(path, name)
		v := t.get(name)
		switch {
		case !it.IsLast():
			switch {
			case v == nil:
				v = t.add(name, b.newTable('i', at), b.index)
			case v.kind == '[':
				v = &v.kids.members[len(v.kids.members)-1].val
			case v.kind != '{':
				return b.again(at, path, v)
			}
		case e.Kind == unstable.ArrayTable:
			if v == nil {
				v = t.add(name, tomlItem{kind: '[', at: int32(at), kids: &tomlTable{}}, b.index)
			} else if v.kind != '[' {
				return b.again(at, path, v)
			}
			v.kids.members = append(v.kids.members, tomlMember{val: b.newTable('h', at)})
			v = &v.kids.members[len(v.kids.members)-1].val
		case v == nil:
			v = t.add(name, b.newTable('h', at), b.index)
		case v.kind == '{' && v.kids.how == 'i':
			v.kids.how, v.at = 'h', int32(at)
		default:
			return b.again(at, path, v)
		}
		t = v.kids
	}
	b.cur, b.path = t, path
	return nil
}

// keyValue sets the key of the key/value node e, dotted or not, in the
// table t whose key is path.
func (b *tomlBuilder) keyValue(t *tomlTable, e *unstable.Node, path []string) error {
	for it := e.Key(); it.Next(); {
		k := it.Node()
		name, at := b.str(k), int(k.Raw.Offset)
		v := t.get(name)
		if v != nil && (it.IsLast() || v.kind != '{' || v.kids.how != 'i' && v.kids.how != 'd') {
			return b.again(at, keyPath(path, e, k), v)
		}
		if it.IsLast() {
			v, err := b.value(e)
			if err != nil {
				return err
			}
			v.at = int32(at)
			t.add(name, v, b.index)
			return nil
		}
		if v == nil {
			v = t.add(name, b.newTable('d', at), b.index)
		}
		t = v.kids
	}
	return nil
}

// keyPath returns a copy of path followed by the parts of e's key up to k.
func keyPath(path []string, e, k *unstable.Node) []string {
	path = slices.Clip(path)
	for it := e.Key(); it.Next(); {
		path = append(path, string(it.Node().Data))
		if it.Node() == k {
			break
		}
	}
	return path
}

// value returns the value of the key/value node e. Arrays and inline
// tables are kept as written: they compare by their text, and are
// decoded when asked for (plain), but checked here.
func (b *tomlBuilder) value(e *unstable.Node) (tomlItem, error) {
	n := e.Value()
	switch n.Kind {
	case unstable.String:
		return tomlItem{kind: '"', text: b.str(n)}, nil
	case unstable.Array, unstable.InlineTable:
		var last *unstable.Node
		for it := e.Key(); it.Next(); {
			last = it.Node()
		}
		text := strings.TrimLeft(b.text[last.Raw.Offset+last.Raw.Length:e.Raw.Offset+e.Raw.Length], " \t=")
		return tomlItem{kind: 'v', text: text}, b.check(n)
	}
	return tomlItem{kind: 'v', text: b.str(n)}, b.check(n)
}

// check refuses what go-toml's parser leaves to its caller in the value
// n: an integer out of range, an impossible date, a key defined twice in
// an inline table (named from the inline table; the position says which).
func (b *tomlBuilder) check(n *unstable.Node) error {
	switch n.Kind {
	case unstable.Array:
		for it := n.Children(); it.Next(); {
			if err := b.check(it.Node()); err != nil {
				return err
			}
		}
	case unstable.InlineTable:
		t := &tomlTable{how: 'h'} // for its keys only: value keeps the text
		for it := n.Children(); it.Next(); {
			if err := b.keyValue(t, it.Node(), nil); err != nil {
				return err
			}
		}
	case unstable.Integer:
		if _, err := strconv.ParseInt(b.str(n), 0, 64); err != nil {
			return b.errorAt(int(n.Raw.Offset), "%s is out of range for a 64-bit integer", n.Data)
		}
	case unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		if _, err := tomlScalar(b.str(n)); err != nil {
			return b.errorAt(int(n.Raw.Offset), "%s is not a valid date or time (%s)", n.Data, strings.TrimPrefix(err.Error(), "toml: "))
		}
	}
	return nil
}

// str returns the value of the key or scalar node n: a substring of the
// body where it is written as is (bare, or quoted without escapes), which
// saves a copy of most keys and values.
func (b *tomlBuilder) str(n *unstable.Node) string {
	s := b.text[n.Raw.Offset : n.Raw.Offset+n.Raw.Length]
	if len(s) > len(n.Data) && len(s) >= 2 {
		s = s[1 : len(s)-1] // the quotes
	}
	if s != string(n.Data) {
		return string(n.Data)
	}
	return s
}

// tomlScalar decodes the text of a scalar other than a string as go-toml
// does: a bool, int64, float64, or a date or time.
func tomlScalar(text string) (any, error) {
	var v struct{ T any }
	err := toml.Unmarshal([]byte("T = "+text), &v)
	return v.T, err
}

// plain returns v as a plain Go value: map[string]any, []any, string, or
// what tomlScalar gives.
func (v *tomlItem) plain() any {
	switch v.kind {
	case '{':
		m := make(map[string]any, len(v.kids.members))
		for i := range v.kids.members {
			m[v.kids.members[i].key] = v.kids.members[i].val.plain()
		}
		return m
	case '[':
		a := make([]any, len(v.kids.members))
		for i := range v.kids.members {
			a[i] = v.kids.members[i].val.plain()
		}
		return a
	case '"':
		return v.text
	}
	x, _ := tomlScalar(v.text)
	return x
}

// node returns v as a node, with each table's keys sorted: TOML tables
// are unordered, and an edit may change which of a table's keys comes
// first in the file. The tree's nodes and keys are carved from two
// slices, counted first.
func (v *tomlItem) node() node {
	nodes, keys := v.count()
	a := &nodeArena{nodes: make([]node, 0, nodes), keys: make([]string, 0, keys)}
	return a.node(v)
}

// count returns how many nodes are under v, and how many keys.
func (v *tomlItem) count() (nodes, keys int) {
	if v.kids == nil {
		return 0, 0
	}
	nodes = len(v.kids.members)
	if v.kind == '{' {
		keys = nodes
	}
	for i := range v.kids.members {
		n, k := v.kids.members[i].val.count()
		nodes, keys = nodes+n, keys+k
	}
	return nodes, keys
}

type nodeArena struct {
	nodes []node
	keys  []string
}

func (a *nodeArena) node(v *tomlItem) node {
	n := node{kind: v.kind, text: v.text}
	if v.kids == nil {
		return n
	}
	ms := v.kids.members
	n.kids = a.nodes[len(a.nodes) : len(a.nodes)+len(ms) : len(a.nodes)+len(ms)]
	a.nodes = a.nodes[:len(a.nodes)+len(ms)]
	if v.kind == '[' {
		for i := range ms {
			n.kids[i] = a.node(&ms[i].val)
		}
		return n
	}
	n.keys = a.keys[len(a.keys) : len(a.keys)+len(ms) : len(a.keys)+len(ms)]
	a.keys = a.keys[:len(a.keys)+len(ms)]
	for i := range ms {
		n.keys[i] = ms[i].key
	}
	slices.Sort(n.keys)
	for i, k := range n.keys {
		n.kids[i] = a.node(v.kids.get(k))
	}
	return n
}
