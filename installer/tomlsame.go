package installer

// sameRest compares d with newer, its edit, by walking the two trees
// parseTOML built together (see [restComparer]): each table's members,
// matched by key (a table is unordered), but the one the container path
// goes on through, which is compared a level down, or left out where
// [without] leaves it out (the entry, and a container that holds nothing
// else). Members are looked for first at the same place in both tables,
// where an edit of one entry leaves all but a few.
func (d *tomlDoc) sameRest(newer document, container []string, name string) (same, ok bool) {
	nd, isTOML := newer.(*tomlDoc)
	if !isTOML {
		return false, false
	}
	return tomlLevel(d.root, nd.root, container, name)
}

// tomlLevel compares the tables x and y at a level of the container path,
// where path is what is left of it.
func tomlLevel(x, y *tomlItem, path []string, name string) (same, ok bool) {
	if x.kind != '{' || y.kind != '{' {
		return false, false
	}
	xi, xdrop, ok1 := tomlOnPath(x.kids, path, name)
	yi, ydrop, ok2 := tomlOnPath(y.kids, path, name)
	if !ok1 || !ok2 {
		return false, false
	}
	n := len(x.kids.members)
	if xdrop {
		n--
	}
	if ydrop {
		n++
	}
	if n != len(y.kids.members) {
		return false, true
	}
	for i := range x.kids.members {
		if i == xi && xdrop {
			continue
		}
		m := &x.kids.members[i]
		guess := i // where y has it if in the same order
		if xdrop && i > xi {
			guess--
		}
		if ydrop && guess >= yi {
			guess++
		}
		j := y.kids.at(m.key, guess)
		switch {
		case j < 0:
			return false, true
		case i == xi: // on the path, and kept
			if same, ok := tomlLevel(&m.val, &y.kids.members[j].val, path[1:], name); !same || !ok {
				return same, ok
			}
		case !sameTOML(&m.val, &y.kids.members[j].val):
			return false, true
		}
	}
	return true, true
}

// at returns the index of the member key of t, looking first at index
// guess, or -1.
func (t *tomlTable) at(key string, guess int) int {
	if guess >= 0 && guess < len(t.members) && t.members[guess].key == key {
		return guess
	}
	return t.find(key)
}

// tomlOnPath returns the index of the member of t that the container path
// goes on through (or the entry name, at the container), or -1, and
// whether [without] deletes it. ok is false where the path goes on
// through a value other than a table.
func tomlOnPath(t *tomlTable, path []string, name string) (i int, drop, ok bool) {
	key := name
	if len(path) > 0 {
		key = path[0]
	}
	i = t.at(key, -1)
	if i < 0 || len(path) == 0 {
		return i, i >= 0, true
	}
	drop, ok = tomlEmptied(&t.members[i].val, path[1:], name)
	return i, drop, ok
}

// tomlEmptied reports whether [without] leaves the table v, on the
// container path where path is what is left of it, empty.
func tomlEmptied(v *tomlItem, path []string, name string) (empty, ok bool) {
	if v.kind != '{' {
		return false, false
	}
	i, drop, ok := tomlOnPath(v.kids, path, name)
	n := len(v.kids.members)
	return n == 0 || n == 1 && i == 0 && drop, ok
}

// sameTOML reports whether x and y hold the same data, as their trees
// compare: tables by their members' keys, arrays of tables in order, and
// other values by their text (a string's value).
func sameTOML(x, y *tomlItem) bool {
	if x.kind != y.kind || x.text != y.text || (x.kids == nil) != (y.kids == nil) {
		return false
	}
	if x.kids == nil {
		return true
	}
	xm, ym := x.kids.members, y.kids.members
	if len(xm) != len(ym) {
		return false
	}
	for i := range xm {
		j := i
		if x.kind == '{' {
			j = y.kids.at(xm[i].key, i)
		}
		if j < 0 || !sameTOML(&xm[i].val, &ym[j].val) {
			return false
		}
	}
	return true
}
