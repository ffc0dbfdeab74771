package mcp

import "encoding/json"

// The functions here read the two objects every tool call carries — the
// message and its params — in the common shape, without reflection and
// with one validity scan of the line instead of three. They return false
// on anything else (an unknown, repeated or differently spelt member, a
// value of another type, an escape in a string), and the caller then
// decodes with json.Unmarshal, so what is accepted and every error message
// stay encoding/json's.

// quickMessage fills m from line and reports whether it could; m is left
// as it was when it could not. The raw members of m point into line, with
// no room to append.
func quickMessage(line []byte, m *message) bool {
	if !json.Valid(line) {
		return false
	}
	var q message
	var seen [6]bool
	ok := eachMember(line, func(key, val []byte) bool {
		var k int
		switch string(key) {
		case `"jsonrpc"`:
			k = 0
		case `"id"`:
			k = 1
		case `"method"`:
			k = 2
		case `"params"`:
			k = 3
		case `"result"`:
			k = 4
		case `"error"`:
			k = 5
		default:
			return false
		}
		if seen[k] {
			return false
		}
		seen[k] = true
		switch k {
		case 0:
			if string(val) != `"2.0"` {
				return false // anything else is refused after json.Unmarshal
			}
			q.JSONRPC = "2.0"
		case 1:
			q.ID = val[:len(val):len(val)]
		case 2:
			s, ok := plainString(val)
			if !ok {
				return false
			}
			q.Method = internMethod(s)
		case 3:
			q.Params = val[:len(val):len(val)]
		case 4:
			q.Result = val[:len(val):len(val)]
		case 5:
			q.Error = val[:len(val):len(val)]
		}
		return true
	})
	if ok {
		*m = q
	}
	return ok
}

// quickCallParams fills p from the params of a tools/call, which are valid
// JSON, and reports whether it could; p is left as it was when it could
// not. p.Arguments is a copy. Params with _meta are left to json.Unmarshal.
func quickCallParams(params []byte, p *callParams) bool {
	var q callParams
	var seenName, seenArgs bool
	ok := eachMember(params, func(key, val []byte) bool {
		switch string(key) {
		case `"name"`:
			s, ok := plainString(val)
			if !ok || seenName {
				return false
			}
			seenName = true
			q.Name = string(s)
		case `"arguments"`:
			if seenArgs {
				return false
			}
			seenArgs = true
			q.Arguments = append(json.RawMessage(nil), val...)
		default:
			return false
		}
		return true
	})
	if ok {
		*p = q
	}
	return ok
}

// eachMember calls f with the key (quoted, as written) and the value of
// each member of b, a valid JSON text, until f returns false. It reports
// whether b is an object and f never returned false.
func eachMember(b []byte, f func(key, val []byte) bool) bool {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if b[i] == '}' {
		return true
	}
	for {
		k := skipString(b, i)
		key := b[i:k]
		i = skipSpace(b, k)
		i = skipSpace(b, i+1) // ':'
		v := skipValue(b, i)
		if !f(key, b[i:v]) {
			return false
		}
		i = skipSpace(b, v)
		if b[i] == '}' {
			return true
		}
		i = skipSpace(b, i+1) // ','
	}
}

// plainString returns the contents of a JSON string that has no escapes
// and only ASCII, which are exactly its bytes.
func plainString(val []byte) ([]byte, bool) {
	if len(val) < 2 || val[0] != '"' {
		return nil, false
	}
	s := val[1 : len(val)-1]
	for _, c := range s {
		if c == '\\' || c >= 0x80 {
			return nil, false
		}
	}
	return s, true
}

// internMethod returns the method name as a string, without allocating
// for the methods this server knows.
func internMethod(s []byte) string {
	switch string(s) {
	case "tools/call":
		return "tools/call"
	case "tools/list":
		return "tools/list"
	case "ping":
		return "ping"
	case "notifications/cancelled":
		return "notifications/cancelled"
	case "notifications/initialized":
		return "notifications/initialized"
	case "notifications/progress":
		return "notifications/progress"
	}
	return string(s)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index just past the value that starts at b[i], in
// valid JSON.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
