package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
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
