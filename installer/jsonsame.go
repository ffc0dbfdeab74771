package installer

import (
	"bytes"

	"github.com/tailscale/hujson"
)

// sameRest compares d with newer, its edit, by walking the two hujson
// trees together (see [restComparer]): the members of the objects along
// the container path in order, but the one the path goes on through,
// which is compared a level down, or left out where [without] leaves it
// out (the entry, and a container that holds nothing else).
//
// A value that lies where the two bodies have the same bytes, in the
// text they share at their start or at their end, and at the same place
// in each, holds the same data: JSON's grammar gives the same bytes the
// same value. An edit of one entry leaves all but a few values so, and
// those are not looked into.
func (d *jsonDoc) sameRest(newer document, container []string, name string) (same, ok bool) {
	nd, isJSON := newer.(*jsonDoc)
	if !isJSON {
		return false, false
	}
	c := &jsonPair{a: d.body, b: nd.body}
	c.pre = commonPrefix(c.a, c.b)
	c.post = commonSuffix(c.a[c.pre:], c.b[c.pre:])
	return c.level(&d.root, &nd.root, container, name)
}

// A jsonPair is a body and its edit, and the bytes they share.
type jsonPair struct {
	a, b []byte
	pre  int // length of the bytes both start with
	post int // length of the bytes both end with, after pre in each
}

// unchanged reports whether x, a value of a, and y, one of b, are the
// same bytes at the same place in the text a and b share.
func (c *jsonPair) unchanged(x, y *hujson.Value) bool {
	if x.EndOffset <= c.pre {
		return y.StartOffset == x.StartOffset && y.EndOffset == x.EndOffset
	}
	if shift := len(c.b) - len(c.a); x.StartOffset >= len(c.a)-c.post {
		return y.StartOffset == x.StartOffset+shift && y.EndOffset == x.EndOffset+shift
	}
	return false
}

// level compares the objects x and y at a level of the container path,
// where path is what is left of it.
func (c *jsonPair) level(x, y *hujson.Value, path []string, name string) (same, ok bool) {
	xo, ok1 := x.Value.(*hujson.Object)
	yo, ok2 := y.Value.(*hujson.Object)
	if !ok1 || !ok2 {
		return false, false
	}
	xi, xdrop, ok1 := onPath(xo, path, name)
	yi, ydrop, ok2 := onPath(yo, path, name)
	if !ok1 || !ok2 {
		return false, false
	}
	for i, j := 0, 0; ; i, j = i+1, j+1 {
		if i == xi && xdrop {
			i++
		}
		if j == yi && ydrop {
			j++
		}
		if i == len(xo.Members) || j == len(yo.Members) {
			return i == len(xo.Members) && j == len(yo.Members), true
		}
		xm, ym := &xo.Members[i], &yo.Members[j]
		switch {
		case !sameString(xm.Name.Value, ym.Name.Value):
			return false, true
		case (i == xi) != (j == yi):
			return false, false // the key twice: lookup refuses that
		case i == xi: // on the path, and kept
			if same, ok := c.level(&xm.Value, &ym.Value, path[1:], name); !same || !ok {
				return same, ok
			}
		case !c.same(&xm.Value, &ym.Value):
			return false, true
		}
	}
}

// onPath returns the index of the member of o that the container path
// goes on through (or the entry name, at the container), or -1, and
// whether [without] deletes it. ok is false where the path goes on
// through a value other than an object.
func onPath(o *hujson.Object, path []string, name string) (i int, drop, ok bool) {
	key := name
	if len(path) > 0 {
		key = path[0]
	}
	i = -1
	for k := range o.Members {
		if lit, _ := o.Members[k].Name.Value.(hujson.Literal); litString(lit) == key {
			i = k
			break
		}
	}
	if i < 0 || len(path) == 0 {
		return i, i >= 0, true
	}
	drop, ok = emptied(&o.Members[i].Value, path[1:], name)
	return i, drop, ok
}

// emptied reports whether [without] leaves the object v, on the
// container path where path is what is left of it, empty.
func emptied(v *hujson.Value, path []string, name string) (empty, ok bool) {
	o, isObject := v.Value.(*hujson.Object)
	if !isObject {
		return false, false
	}
	i, drop, ok := onPath(o, path, name)
	return len(o.Members) == 0 || len(o.Members) == 1 && i == 0 && drop, ok
}

// same reports whether the values x of a and y of b hold the same data,
// as their trees compare.
func (c *jsonPair) same(x, y *hujson.Value) bool {
	if c.unchanged(x, y) {
		return true
	}
	switch xv := x.Value.(type) {
	case *hujson.Object:
		yv, ok := y.Value.(*hujson.Object)
		if !ok || len(xv.Members) != len(yv.Members) {
			return false
		}
		for i := range xv.Members {
			xm, ym := &xv.Members[i], &yv.Members[i]
			if !sameString(xm.Name.Value, ym.Name.Value) || !c.same(&xm.Value, &ym.Value) {
				return false
			}
		}
		return true
	case *hujson.Array:
		yv, ok := y.Value.(*hujson.Array)
		if !ok || len(xv.Elements) != len(yv.Elements) {
			return false
		}
		for i := range xv.Elements {
			if !c.same(&xv.Elements[i], &yv.Elements[i]) {
				return false
			}
		}
		return true
	}
	xl, _ := x.Value.(hujson.Literal)
	yl, ok := y.Value.(hujson.Literal)
	switch {
	case !ok || xl.Kind() != yl.Kind():
		return false
	case xl.Kind() == '"':
		return sameString(xl, yl)
	}
	return bytes.Equal(xl, yl) // null, a boolean or a number, as written
}

// sameString reports whether the string literals x and y hold the same
// string.
func sameString(x, y hujson.ValueTrimmed) bool {
	xl, _ := x.(hujson.Literal)
	yl, _ := y.(hujson.Literal)
	return bytes.Equal(xl, yl) || litString(xl) == litString(yl)
}
