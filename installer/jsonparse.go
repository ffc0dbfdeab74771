package installer

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// parseHuJSON returns what hujson.Parse(b) returns, faster.
//
// It builds the same tree as hujson.Parse, following its parser (parse.go
// of github.com/tailscale/hujson, Copyright (c) 2019 Tailscale Inc., BSD
// license), but checks each string as it scans it instead of handing it
// to json.Valid afterwards, which was half the time of parsing a 1 MiB
// config. On any error it runs hujson.Parse for the error, so messages
// are hujson's. FuzzParseHuJSON checks the trees are the same.
func parseHuJSON(b []byte) (hujson.Value, error) {
	v, _, err := parseTree(b, 0)
	return v, err
}

// parseTree is parseHuJSON that, with keep > 0, builds only the objects
// and arrays inside at most keep others: one nested deeper is checked as
// thoroughly but stands in the tree as an empty *hujson.Object or
// *hujson.Array with its offsets. What the text left out had that strict
// JSON and json.Unmarshal do not allow is reported in skipped. On an
// error the tree is hujson.Parse's, whole.
func parseTree(b []byte, keep int) (hujson.Value, hjSkipped, error) {
	p := hjParser{keep: keep}
	v, n, ok := p.value(0, b)
	if ok == hjOK && n == len(b) {
		return v, p.skipped, nil
	}
	v, err := hujson.Parse(b)
	return v, hjSkipped{}, err
}

// hjSkipped says what the text of the values parseTree left out of the
// tree had.
type hjSkipped struct {
	lax bool // comments or trailing commas
	big bool // a number that does not fit a float64
}

// An hjParser collects the members and elements of the objects and arrays
// being parsed on stacks, and gives each its own slice of the right size
// when it closes, rather than growing one per object. (After a failure
// the stacks hold leftovers; the parse is then abandoned.)
type hjParser struct {
	members []hujson.ObjectMember
	elems   []hujson.Value
	keep    int // build only this many levels of objects and arrays; 0: all
	depth   int // objects and arrays around the value being parsed
	skipped hjSkipped
}

type hjStatus int

const (
	hjOK       hjStatus = iota
	hjFail              // not HuJSON
	hjObjClose          // '}' where a value should start
	hjArrClose          // ']' where a value should start
)

// hjValue parses the next value with the whitespace and comments around it.
func (p *hjParser) value(n int, b []byte) (v hujson.Value, _ int, st hjStatus) {
	n0 := n
	if n, st = hjExtra(n, b); st != hjOK {
		return v, n, st
	}
	if n > n0 {
		v.BeforeExtra = b[n0:n:n]
	}
	v.StartOffset = n
	if v.Value, n, st = p.trimmed(n, b); st != hjOK {
		return v, n, st
	}
	v.EndOffset = n
	if n, st = hjExtra(n, b); st != hjOK {
		return v, n, st
	}
	if n > v.EndOffset {
		v.AfterExtra = b[v.EndOffset:n:n]
	}
	return v, n, hjOK
}

// hjTrimmed parses the next value, which starts at b[n].
func (p *hjParser) trimmed(n int, b []byte) (hujson.ValueTrimmed, int, hjStatus) {
	if n == len(b) {
		return nil, n, hjFail
	}
	switch b[n] {
	case '{':
		if p.keep > 0 && p.depth >= p.keep {
			_, n, st := p.skipTrimmed(n, b)
			if st != hjOK {
				return nil, n, hjFail
			}
			return &hujson.Object{}, n, hjOK
		}
		n++
		p.depth++
		base := len(p.members)
		var obj hujson.Object
		done := func() *hujson.Object {
			if len(p.members) > base {
				obj.Members = append([]hujson.ObjectMember(nil), p.members[base:]...)
				p.members = p.members[:base]
			}
			p.depth--
			return &obj
		}
		for {
			vk, n2, st := p.value(n, b)
			if st != hjOK {
				if st == hjObjClose && vk.Value == nil {
					if k := len(p.members); k > base && p.members[k-1].Value.AfterExtra == nil {
						p.members[k-1].Value.AfterExtra = []byte{} // a trailing comma
					}
					obj.AfterExtra = vk.BeforeExtra
					return done(), n2 + 1, hjOK
				}
				return nil, n2, hjFail
			}
			n = n2
			if vk.Value.Kind() != '"' || n == len(b) || b[n] != ':' {
				return nil, n, hjFail
			}
			vv, n2, st := p.value(n+1, b)
			if st != hjOK {
				return nil, n2, hjFail
			}
			n = n2
			p.members = append(p.members, hujson.ObjectMember{Name: vk, Value: vv})
			switch {
			case n == len(b):
				return nil, n, hjFail
			case b[n] == ',':
				n++
			case b[n] == '}':
				last := &p.members[len(p.members)-1].Value
				obj.AfterExtra, last.AfterExtra = last.AfterExtra, nil
				return done(), n + 1, hjOK
			default:
				return nil, n, hjFail
			}
		}
	case '}':
		return nil, n, hjObjClose
	case '[':
		if p.keep > 0 && p.depth >= p.keep {
			_, n, st := p.skipTrimmed(n, b)
			if st != hjOK {
				return nil, n, hjFail
			}
			return &hujson.Array{}, n, hjOK
		}
		n++
		p.depth++
		base := len(p.elems)
		var arr hujson.Array
		done := func() *hujson.Array {
			if len(p.elems) > base {
				arr.Elements = append([]hujson.Value(nil), p.elems[base:]...)
				p.elems = p.elems[:base]
			}
			p.depth--
			return &arr
		}
		for {
			v, n2, st := p.value(n, b)
			if st != hjOK {
				if st == hjArrClose && v.Value == nil {
					if k := len(p.elems); k > base && p.elems[k-1].AfterExtra == nil {
						p.elems[k-1].AfterExtra = []byte{}
					}
					arr.AfterExtra = v.BeforeExtra
					return done(), n2 + 1, hjOK
				}
				return nil, n2, hjFail
			}
			n = n2
			p.elems = append(p.elems, v)
			switch {
			case n == len(b):
				return nil, n, hjFail
			case b[n] == ',':
				n++
			case b[n] == ']':
				last := &p.elems[len(p.elems)-1]
				arr.AfterExtra, last.AfterExtra = last.AfterExtra, nil
				return done(), n + 1, hjOK
			default:
				return nil, n, hjFail
			}
		}
	case ']':
		return nil, n, hjArrClose
	case '"':
		end, ok := scanString(n, b)
		if !ok {
			return nil, end, hjFail
		}
		return hujson.Literal(b[n:end:end]), end, hjOK
	default:
		// null, booleans and numbers: short, so json.Valid as hujson does.
		n0 := n
		for n < len(b) && (b[n] == '-' || b[n] == '+' || b[n] == '.' ||
			('a' <= b[n] && b[n] <= 'z') || ('A' <= b[n] && b[n] <= 'Z') || ('0' <= b[n] && b[n] <= '9')) {
			n++
		}
		lit := hujson.Literal(b[n0:n:n])
		if len(lit) == 0 || !lit.IsValid() {
			return nil, n0, hjFail
		}
		return lit, n, hjOK
	}
}

// scanString returns the end of the JSON string that starts at b[n], a
// quote: it may hold no control characters and only JSON's escapes.
// hujson ends a string at the first quote not after a backslash, then
// asks json.Valid; with valid escapes that is the same quote.
func scanString(n int, b []byte) (int, bool) {
	for n++; n < len(b); {
		// Skip 8 bytes at a time while none of them is a quote, a
		// backslash or a control character.
		for n+8 <= len(b) && plain8(binary.LittleEndian.Uint64(b[n:])) {
			n += 8
		}
		if n == len(b) {
			break
		}
		switch c := b[n]; {
		case c == '"':
			return n + 1, true
		case c < 0x20:
			return n, false
		case c != '\\':
			n++
		case n+1 == len(b):
			return n, false
		default:
			switch b[n+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				n += 2
			case 'u':
				if n+6 > len(b) || !isHex(b[n+2]) || !isHex(b[n+3]) || !isHex(b[n+4]) || !isHex(b[n+5]) {
					return n, false
				}
				n += 6
			default:
				return n, false
			}
		}
	}
	return n, false
}

// skipValue checks the next value with the whitespace and comments
// around it, as value would parse it, but builds nothing. It returns the
// value's kind ('{', '[', '"', 'n', 't', 'f', '0'), 0 for none.
func (p *hjParser) skipValue(n int, b []byte) (byte, int, hjStatus) {
	n, st := p.skipExtra(n, b)
	if st != hjOK {
		return 0, n, st
	}
	k, n, st := p.skipTrimmed(n, b)
	if st != hjOK {
		return 0, n, st
	}
	n, st = p.skipExtra(n, b)
	return k, n, st
}

func (p *hjParser) skipExtra(n int, b []byte) (int, hjStatus) {
	n2, st := hjExtra(n, b)
	if st == hjOK && !isSpace(b[n:n2]) {
		p.skipped.lax = true // a comment
	}
	return n2, st
}

// skipTrimmed is trimmed building nothing.
func (p *hjParser) skipTrimmed(n int, b []byte) (byte, int, hjStatus) {
	if n == len(b) {
		return 0, n, hjFail
	}
	switch c := b[n]; c {
	case '{', '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		n++
		count := 0
		for {
			k, n2, st := p.skipValue(n, b)
			if st != hjOK {
				if c == '{' && st == hjObjClose || c == '[' && st == hjArrClose {
					if count > 0 {
						p.skipped.lax = true // a trailing comma
					}
					return c, n2 + 1, hjOK
				}
				return 0, n2, hjFail
			}
			n = n2
			if c == '{' {
				if k != '"' || n == len(b) || b[n] != ':' {
					return 0, n, hjFail
				}
				if _, n2, st = p.skipValue(n+1, b); st != hjOK {
					return 0, n2, hjFail
				}
				n = n2
			}
			count++
			switch {
			case n == len(b):
				return 0, n, hjFail
			case b[n] == ',':
				n++
			case b[n] == end:
				return c, n + 1, hjOK
			default:
				return 0, n, hjFail
			}
		}
	case '}':
		return 0, n, hjObjClose
	case ']':
		return 0, n, hjArrClose
	case '"':
		end, ok := scanString(n, b)
		if !ok {
			return 0, end, hjFail
		}
		return '"', end, hjOK
	default:
		n0 := n
		for n < len(b) && (b[n] == '-' || b[n] == '+' || b[n] == '.' ||
			('a' <= b[n] && b[n] <= 'z') || ('A' <= b[n] && b[n] <= 'Z') || ('0' <= b[n] && b[n] <= '9')) {
			n++
		}
		lit := hujson.Literal(b[n0:n:n])
		if len(lit) == 0 || !lit.IsValid() {
			return 0, n0, hjFail
		}
		k := byte(lit.Kind())
		if k == '0' {
			if _, err := strconv.ParseFloat(string(lit), 64); err != nil {
				p.skipped.big = true
			}
		}
		return k, n, hjOK
	}
}

// plain8 reports whether none of the 8 bytes in x is '"', '\\' or below
// 0x20. (It may say false when one is not; never true when one is.)
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := func(x uint64, c uint64) uint64 { return (x - ones*c) & ^x & highs }
	return below(x, 0x20)|below(x^(ones*'"'), 1)|below(x^(ones*'\\'), 1) == 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// hjExtra skips whitespace and comments from b[n].
func hjExtra(n int, b []byte) (int, hjStatus) {
	for n < len(b) {
		switch b[n] {
		case ' ', '\t', '\r', '\n':
			n++
		case '/':
			var end []byte
			switch {
			case bytes.HasPrefix(b[n:], []byte("//")):
				end = []byte("\n")
			case bytes.HasPrefix(b[n:], []byte("/*")):
				end = []byte("*/")
			default:
				return n, hjOK
			}
			i := bytes.Index(b[n+2:], end)
			if i < 0 {
				return n, hjFail
			}
			c := 2 + i + len(end)
			if !utf8.Valid(b[n : n+c]) {
				return n, hjFail
			}
			n += c
		default:
			return n, hjOK
		}
	}
	return n, hjOK
}
