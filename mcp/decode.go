package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// decodeArguments decodes a tool call's arguments into the tree a
// json.Decoder with UseNumber builds: map[string]any, []any, string,
// json.Number, bool and nil. It is the decoder of every call, so it takes
// the quick way through input that is already known to be valid JSON (the
// arguments come out of a message that json.Unmarshal accepted), and hands
// anything it does not expect to json.Decoder, whose error messages it
// then returns.
func decodeArguments(b []byte) (any, error) {
	d := quickDecoder{b: b}
	v, ok := d.value()
	if ok {
		d.space()
		ok = d.i == len(b)
	}
	if ok {
		return v, nil
	}
	var slow any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&slow); err != nil {
		return nil, err
	}
	if rest := bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("invalid character %q after the top-level value", rest[0])
	}
	return slow, nil
}

// quickDecoder decodes valid JSON. On anything else it reports false and
// the caller falls back to encoding/json.
type quickDecoder struct {
	b     []byte
	i     int
	depth int
}

// maxQuickDepth bounds the recursion; deeper values go to encoding/json.
const maxQuickDepth = 1000

func (d *quickDecoder) space() { d.i = skipSpace(d.b, d.i) }

func (d *quickDecoder) value() (any, bool) {
	d.space()
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	default:
		for _, lit := range [...]struct {
			text string
			v    any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if bytes.HasPrefix(d.b[d.i:], []byte(lit.text)) {
				d.i += len(lit.text)
				return lit.v, true
			}
		}
		return nil, false
	}
}

func (d *quickDecoder) object() (any, bool) {
	if d.depth++; d.depth > maxQuickDepth {
		return nil, false
	}
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return m, true
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[k.(string)] = v
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *quickDecoder) array() (any, bool) {
	if d.depth++; d.depth > maxQuickDepth {
		return nil, false
	}
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		d.depth--
		return a, true
	}
	for {
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return a, true
		default:
			return nil, false
		}
	}
}

// str decodes a string. Plain ASCII is copied as it is; a string with an
// escape or other bytes goes through encoding/json, which unescapes it and
// replaces invalid UTF-8 as its decoder does.
func (d *quickDecoder) str() (any, bool) {
	start := d.i
	d.i++ // "
	plain := true
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			if plain {
				return string(d.b[start+1 : d.i-1]), true
			}
			var s string
			if json.Unmarshal(d.b[start:d.i], &s) != nil {
				return nil, false
			}
			return s, true
		case c == '\\':
			plain = false
			d.i += 2
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			plain = false
			d.i++
		default:
			d.i++
		}
	}
	return nil, false
}

// number takes the span of a number as JSON spells it; anything else is
// not a number and fails.
func (d *quickDecoder) number() (any, bool) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.i < len(d.b) && '1' <= d.b[d.i] && d.b[d.i] <= '9':
		d.digits()
	default:
		return nil, false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if !d.digits() {
			return nil, false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if !d.digits() {
			return nil, false
		}
	}
	return json.Number(d.b[start:d.i]), true
}

// digits consumes one or more decimal digits and reports whether there was one.
func (d *quickDecoder) digits() bool {
	start := d.i
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}
