package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// node is one JSON value of a manifest with the byte offset where it
// starts, so that problems can name a line and column.
type node struct {
	kind    byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	off     int
	str     string // string value, or number text
	boolean bool
	keys    []string // object keys, in order
	keyOffs []int
	elems   []*node // object values (parallel to keys) or array elements
}

// parseTree reads exactly one JSON value from data.
func parseTree(data []byte) (*node, error) {
	p := &parser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, &syntaxError{off: p.skip(int(p.dec.InputOffset())), msg: "unexpected data after the top-level object"}
	}
	return n, nil
}

type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

type parser struct {
	data []byte
	dec  *json.Decoder
}

// skip returns the offset of the next token at or after off.
func (p *parser) skip(off int) int {
	for off < len(p.data) && strings.IndexByte(" \t\r\n,:", p.data[off]) >= 0 {
		off++
	}
	return off
}

func (p *parser) token() (json.Token, int, error) {
	off := p.skip(int(p.dec.InputOffset()))
	t, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, int(se.Offset), &syntaxError{off: int(se.Offset), msg: "invalid JSON: " + se.Error()}
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, len(p.data), &syntaxError{off: len(p.data), msg: "invalid JSON: the file ends too early (a missing '}' or ']'?)"}
		}
		return nil, off, &syntaxError{off: off, msg: "invalid JSON: " + err.Error()}
	}
	return t, off, nil
}

func (p *parser) value() (*node, error) {
	t, off, err := p.token()
	if err != nil {
		return nil, err
	}
	n := &node{off: off}
	switch t := t.(type) {
	case json.Delim:
		if t == '{' {
			n.kind = 'o'
			for p.dec.More() {
				kt, koff, err := p.token()
				if err != nil {
					return nil, err
				}
				key := kt.(string)
				for _, k := range n.keys {
					if k == key {
						return nil, &syntaxError{off: koff, msg: fmt.Sprintf("duplicate key %q in the same object; keep one", key)}
					}
				}
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				n.keys, n.keyOffs, n.elems = append(n.keys, key), append(n.keyOffs, koff), append(n.elems, v)
			}
		} else {
			n.kind = 'a'
			for p.dec.More() {
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
		}
		if _, _, err := p.token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.str = 's', t
	case json.Number:
		n.kind, n.str = 'n', string(t)
	case bool:
		n.kind, n.boolean = 'b', t
	case nil:
		n.kind = 'z'
	}
	return n, nil
}

// kindName names a node's JSON type for messages.
func (n *node) kindName() string {
	switch n.kind {
	case 'o':
		return "an object"
	case 'a':
		return "an array"
	case 's':
		return fmt.Sprintf("the string %q", n.str)
	case 'n':
		return "the number " + n.str
	case 'b':
		return "the boolean " + strconv.FormatBool(n.boolean)
	}
	return "null"
}

// plain converts a node to the value encoding/json would decode with
// UseNumber: map[string]any, []any, string, json.Number, bool or nil.
func (n *node) plain() any {
	switch n.kind {
	case 'o':
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = n.elems[i].plain()
		}
		return m
	case 'a':
		l := make([]any, len(n.elems))
		for i, e := range n.elems {
			l[i] = e.plain()
		}
		return l
	case 's':
		return n.str
	case 'n':
		return json.Number(n.str)
	case 'b':
		return n.boolean
	}
	return nil
}

// decoder fills Go values from a node tree the way encoding/json would,
// but strictly: unknown fields and wrong types are problems, all of them
// are collected, and each names its JSON path.
type decoder struct {
	probs *problemList
}

var durationType = reflect.TypeOf(time.Duration(0))

func (d *decoder) decode(n *node, v reflect.Value, path string) {
	d.probs.at(path, n.off)
	if v.Kind() == reflect.Pointer {
		if n.kind == 'z' {
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	if v.Type() == durationType {
		dur, err := time.ParseDuration(n.str)
		switch {
		case n.kind != 's':
			d.probs.add(path, "expected a duration as a string such as \"30s\" or \"2m\", got %s", n.kindName())
		case err != nil || dur <= 0:
			d.probs.add(path, "%q is not a positive duration; write it like \"30s\", \"2m\" or \"1h30m\"", n.str)
		default:
			v.SetInt(int64(dur))
		}
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		v.Set(reflect.ValueOf(n.plain()))
	case reflect.String:
		if n.kind != 's' {
			d.probs.add(path, "expected a string, got %s", n.kindName())
			return
		}
		v.SetString(n.str)
	case reflect.Bool:
		if n.kind != 'b' {
			d.probs.add(path, "expected true or false, got %s", n.kindName())
			return
		}
		v.SetBool(n.boolean)
	case reflect.Int:
		i, err := strconv.Atoi(n.str)
		if n.kind != 'n' || err != nil {
			d.probs.add(path, "expected an integer, got %s", n.kindName())
			return
		}
		v.SetInt(int64(i))
	case reflect.Float64:
		f, err := strconv.ParseFloat(n.str, 64)
		if n.kind != 'n' || err != nil {
			d.probs.add(path, "expected a number, got %s", n.kindName())
			return
		}
		v.SetFloat(f)
	case reflect.Slice:
		if n.kind != 'a' {
			d.probs.add(path, "expected an array, got %s", n.kindName())
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.elems), len(n.elems))
		for i, e := range n.elems {
			d.decode(e, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.Map:
		if n.kind != 'o' {
			d.probs.add(path, "expected an object, got %s", n.kindName())
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.keys))
		for i, k := range n.keys {
			e := reflect.New(v.Type().Elem()).Elem()
			d.decode(n.elems[i], e, join(path, k))
			m.SetMapIndex(reflect.ValueOf(k), e)
		}
		v.Set(m)
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	default:
		panic("manifest: cannot decode into " + v.Type().String())
	}
}

func (d *decoder) decodeStruct(n *node, v reflect.Value, path string) {
	if n.kind != 'o' {
		d.probs.add(path, "expected an object, got %s", n.kindName())
		return
	}
	fields := fieldsOf(v.Type())
	for i, k := range n.keys {
		index, ok := fields[k]
		if !ok {
			if k == "$comment" || (k == "$schema" && path == "") {
				continue
			}
			d.probs.at(join(path, k), n.keyOffs[i])
			d.probs.add(join(path, k), "unknown field %q%s", k, suggest(k, fields))
			continue
		}
		d.decode(n.elems[i], v.FieldByIndex(index), join(path, k))
	}
}

// structFields caches fieldsOf.
var structFields sync.Map // reflect.Type -> map[string][]int

// fieldsOf maps the JSON names of struct type t to the index paths of its
// fields, including those of embedded structs; it looks once per type.
func fieldsOf(t reflect.Type) map[string][]int {
	if f, ok := structFields.Load(t); ok {
		return f.(map[string][]int)
	}
	fields := map[string][]int{}
	for _, sf := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Anonymous || name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		fields[name] = sf.Index
	}
	structFields.Store(t, fields)
	return fields
}

// suggest returns ` (did you mean "x"?)` for a known name close to k.
func suggest(k string, fields map[string][]int) string {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.EqualFold(name, k) || distance(strings.ToLower(name), strings.ToLower(k)) <= 2 {
			return fmt.Sprintf(" (did you mean %q?)", name)
		}
	}
	return "; the fields here are " + strings.Join(names, ", ")
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// join appends a member name to a JSON path: a.b, or a["odd key"].
func join(path, key string) string {
	if !isIdent(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}
