package installer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"
)

// modelOf returns the whole document as plain Go values, decoded by the
// format's library (for TOML, BurntSushi/toml, a decoder of its own):
// the tests' model of a file's data, independent of the trees verify
// compares.
func modelOf(t testing.TB, d document) any {
	t.Helper()
	var m any
	var err error
	switch d := d.(type) {
	case *jsonDoc:
		var raw []byte // hujson wants a line ending after a line comment
		if raw, err = hujson.Standardize(append(bytes.Clone(d.body), '\n')); err == nil {
			err = json.Unmarshal(raw, &m)
		}
	case *tomlDoc:
		_, err = toml.Decode(string(d.body), &m)
	case *yamlDoc:
		if d.top != nil {
			err = d.top.Decode(&m)
		}
	}
	if err != nil {
		t.Fatalf("no model: %v", err)
	}
	return m
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
