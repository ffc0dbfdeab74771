package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
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

// parseTree reads exactly one JSON value from data. Valid JSON is walked
// with gjson, whose results carry their offsets; invalid JSON is described
// by encoding/json, which also decides what is valid.
func parseTree(data []byte) (*node, error) {
	if !json.Valid(data) {
		return nil, syntaxErrorOf(data)
	}
	return treeOf(gjson.Parse(string(data)))
}

// treeOf builds the node of r and of everything in it. It refuses a key
// given twice in one object, which encoding/json would let the last win.
func treeOf(r gjson.Result) (*node, error) {
	n := &node{off: r.Index}
	var err error
	switch r.Type {
	case gjson.String:
		n.kind, n.str = 's', jsonString(r)
	case gjson.Number:
		n.kind, n.str = 'n', r.Raw
	case gjson.True, gjson.False:
		n.kind, n.boolean = 'b', r.Type == gjson.True
	case gjson.Null:
		n.kind = 'z'
	case gjson.JSON:
		n.kind = 'a'
		if r.IsObject() {
			n.kind = 'o'
		}
		r.ForEach(func(k, v gjson.Result) bool {
			var e *node
			if e, err = treeOf(v); err != nil {
				return false
			}
			if n.kind == 'o' {
				key := jsonString(k)
				if slices.Contains(n.keys, key) {
					err = &syntaxError{off: k.Index, msg: fmt.Sprintf("duplicate key %q in the same object; keep one", key)}
					return false
				}
				n.keys, n.keyOffs = append(n.keys, key), append(n.keyOffs, k.Index)
			}
			n.elems = append(n.elems, e)
			return true
		})
	}
	return n, err
}

// jsonString is the string r holds, as encoding/json decodes it: gjson's
// own text where it is plain, encoding/json's where it has escapes or
// bytes that are not UTF-8 (each of which becomes U+FFFD).
func jsonString(r gjson.Result) string {
	if strings.IndexByte(r.Raw, '\\') < 0 && utf8.ValidString(r.Raw) {
		return r.Str
	}
	var s string
	_ = json.Unmarshal([]byte(r.Raw), &s) // r.Raw is a valid JSON string
	return s
}

type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// syntaxErrorOf says what makes data not one JSON value, and where.
func syntaxErrorOf(data []byte) *syntaxError {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v any
	err := dec.Decode(&v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// The offset counts the byte that is wrong.
		return &syntaxError{off: max(int(se.Offset)-1, 0), msg: "invalid JSON: " + se.Error()}
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return &syntaxError{off: len(data), msg: "invalid JSON: the file ends too early (a missing '}' or ']'?)"}
	case err != nil:
		return &syntaxError{msg: "invalid JSON: " + err.Error()}
	}
	off := int(dec.InputOffset())
	for off < len(data) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
		off++
	}
	return &syntaxError{off: off, msg: "unexpected data after the top-level object"}
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
