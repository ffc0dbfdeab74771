package installer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
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
	case nil, string, bool, float64:
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

// applySet returns a copy of the document model m with the entry name
// under the container path set to e (or deleted when e is nil). For a
// list container, entries are list items whose "name" is name.
// When drop > 0 and the container ends up empty it is deleted too, and so
// on up the path, up to drop keys.
// list says whether a missing container is created as a list.
func applySet(m any, container []string, name string, e any, drop int, list bool) (any, error) {
	m, err := canonical(m)
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	root, ok := m.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("top level is not an object")
	}
	parent := root
	for _, k := range container[:len(container)-1] {
		next, ok := parent[k].(map[string]any)
		if !ok {
			if e == nil {
				return m, nil
			}
			next = map[string]any{}
			parent[k] = next
		}
		parent = next
	}
	last := container[len(container)-1]
	switch c := parent[last].(type) {
	case []any:
		i := slices.IndexFunc(c, func(x any) bool {
			item, ok := x.(map[string]any)
			return ok && item["name"] == name
		})
		switch {
		case e == nil && i >= 0:
			c = slices.Delete(c, i, i+1)
		case e != nil && i >= 0:
			c[i] = e
		case e != nil:
			c = append(c, e)
		}
		parent[last] = c
	case map[string]any:
		if e == nil {
			delete(c, name)
		} else {
			c[name] = e
		}
	case nil:
		if e != nil && list {
			parent[last] = []any{e}
		} else if e != nil {
			parent[last] = map[string]any{name: e}
		}
	default:
		return nil, fmt.Errorf("%q is not an object", last)
	}
	for k := len(container); k > 0 && k > len(container)-drop; k-- {
		p := root
		for _, key := range container[:k-1] {
			p, _ = p[key].(map[string]any)
		}
		switch c := p[container[k-1]].(type) {
		case map[string]any:
			if len(c) > 0 {
				return root, nil
			}
		case []any:
			if len(c) > 0 {
				return root, nil
			}
		case nil:
		default:
			return root, nil
		}
		delete(p, container[k-1])
	}
	return root, nil
}

// pruneEmpty returns m without the container if the container is an
// empty object.
func pruneEmpty(m any, container []string) any {
	m, err := canonical(m)
	if err != nil {
		return m
	}
	p, _ := m.(map[string]any)
	for _, k := range container[:len(container)-1] {
		p, _ = p[k].(map[string]any)
	}
	if c, ok := p[container[len(container)-1]].(map[string]any); ok && len(c) == 0 {
		delete(p, container[len(container)-1])
	}
	return m
}
