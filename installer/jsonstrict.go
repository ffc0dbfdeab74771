package installer

import (
	"bytes"
	"strconv"

	"github.com/tailscale/hujson"
)

// maxNesting is how deeply encoding/json lets arrays and objects nest.
const maxNesting = 10000

// nesting returns how deeply the arrays and objects of b, read as strict
// JSON, nest; or maxNesting+1 if b has a '/' outside strings (a comment,
// so not strict JSON) or an unterminated string.
func nesting(b []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			// Skip to the closing quote: the next one not escaped.
			for {
				j := bytes.IndexByte(b[i+1:], '"')
				if j < 0 {
					return maxNesting + 1
				}
				i += 1 + j
				k := i - 1
				for b[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth--
		case '/':
			return maxNesting + 1
		}
	}
	return deepest
}

// decodable reports whether v, parsed by hujson, is strict JSON (no
// comments, no trailing commas) that json.Unmarshal decodes into any:
// every number fits a float64, as json.Unmarshal requires.
func decodable(v *hujson.Value) bool {
	if !isSpace(v.BeforeExtra) || !isSpace(v.AfterExtra) {
		return false
	}
	switch x := v.Value.(type) {
	case *hujson.Object:
		if n := len(x.Members); n > 0 && x.Members[n-1].Value.AfterExtra != nil || !isSpace(x.AfterExtra) {
			return false // a trailing comma, or a comment before '}'
		}
		for i := range x.Members {
			if !decodable(&x.Members[i].Name) || !decodable(&x.Members[i].Value) {
				return false
			}
		}
	case *hujson.Array:
		if n := len(x.Elements); n > 0 && x.Elements[n-1].AfterExtra != nil || !isSpace(x.AfterExtra) {
			return false
		}
		for i := range x.Elements {
			if !decodable(&x.Elements[i]) {
				return false
			}
		}
	case hujson.Literal:
		if x.Kind() == '0' {
			if _, err := strconv.ParseFloat(string(x), 64); err != nil {
				return false
			}
		}
	}
	return true
}
