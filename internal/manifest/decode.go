package manifest

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// decoder fills Go values from a node tree the way encoding/json would,
// but strictly: unknown fields and wrong types are problems, all of them
// are collected, and each names its JSON path.
type decoder struct {
	probs *problemList
}

var durationType = reflect.TypeOf(time.Duration(0))

func (d *decoder) decode(n *node, v reflect.Value, path string) {
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
			d.probs.addAt(n.off, path, "expected a duration as a string such as \"30s\" or \"2m\", got %s", n.kindName())
		case err != nil || dur <= 0:
			d.probs.addAt(n.off, path, "%q is not a positive duration; write it like \"30s\", \"2m\" or \"1h30m\"", n.str)
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
			d.probs.addAt(n.off, path, "expected a string, got %s", n.kindName())
			return
		}
		v.SetString(n.str)
	case reflect.Bool:
		if n.kind != 'b' {
			d.probs.addAt(n.off, path, "expected true or false, got %s", n.kindName())
			return
		}
		v.SetBool(n.boolean)
	case reflect.Int:
		i, err := strconv.Atoi(n.str)
		if n.kind != 'n' || err != nil {
			d.probs.addAt(n.off, path, "expected an integer, got %s", n.kindName())
			return
		}
		v.SetInt(int64(i))
	case reflect.Float64:
		f, err := strconv.ParseFloat(n.str, 64)
		if n.kind != 'n' || err != nil {
			d.probs.addAt(n.off, path, "expected a number, got %s", n.kindName())
			return
		}
		v.SetFloat(f)
	case reflect.Slice:
		if n.kind != 'a' {
			d.probs.addAt(n.off, path, "expected an array, got %s", n.kindName())
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.elems), len(n.elems))
		for i, e := range n.elems {
			d.decode(e, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.Map:
		if n.kind != 'o' {
			d.probs.addAt(n.off, path, "expected an object, got %s", n.kindName())
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
		d.probs.addAt(n.off, path, "expected an object, got %s", n.kindName())
		return
	}
	fields := fieldsOf(v.Type())
	for i, k := range n.keys {
		index, ok := fields[k]
		if !ok {
			if k == "$comment" || (k == "$schema" && path == "") {
				continue
			}
			d.probs.addAt(n.keyOffs[i], join(path, k), "unknown field %q%s", k, suggest(k, fields))
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
