package installer

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// A field is one member of a server entry, in the order it is written.
// Its value is a string, bool, int, []string or []field.
type field struct {
	key string
	val any
}

// quoteJSON returns s as a JSON string literal without HTML escaping.
// The result is also a valid TOML basic string and YAML double-quoted scalar.
func quoteJSON(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n"))
}

// plain converts a field value to the plain Go value encoding/json decodes
// the same JSON into: map[string]any, []any, string, bool, float64.
func plain(v any) any {
	switch v := v.(type) {
	case []field:
		m := make(map[string]any, len(v))
		for _, f := range v {
			m[f.key] = plain(f.val)
		}
		return m
	case []string:
		a := make([]any, len(v))
		for i, s := range v {
			a[i] = s
		}
		return a
	case int:
		return float64(v)
	default:
		return v
	}
}

// canonical returns a deep copy of v as encoding/json would decode it,
// so that values decoded by different parsers (TOML, YAML, JSON) compare
// equal.
func canonical(v any) (any, error) {
	switch v := v.(type) {
	case float64:
		if v != v {
			return notANumber{}, nil
		}
		return v, nil
	case nil, string, bool, notANumber:
		return v, nil
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case uint64:
		return float64(v), nil
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			c, err := canonical(x)
			if err != nil {
				return nil, err
			}
			m[k] = c
		}
		return m, nil
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			c, err := canonical(x)
			if err != nil {
				return nil, err
			}
			a[i] = c
		}
		return a, nil
	}
	b, err := json.Marshal(v) // dates, times and other rare types
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

// notANumber stands for NaN in canonical values: NaN is not equal to
// itself, but two files that say nan hold the same data.
type notANumber struct{}

// sameModel reports whether a and b hold the same data. An empty
// document (nil) equals an empty object.
func sameModel(a, b any) bool {
	ca, err1 := canonical(a)
	cb, err2 := canonical(b)
	if ca == nil {
		ca = map[string]any{}
	}
	if cb == nil {
		cb = map[string]any{}
	}
	return err1 == nil && err2 == nil && reflect.DeepEqual(ca, cb)
}
