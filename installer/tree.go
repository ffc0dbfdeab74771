package installer

// A node is the data of a parsed document in one form for every format,
// so that one comparison checks every edit (see [Target.verify]): an
// object's members in order, an array's elements, or a scalar.
type node struct {
	kind byte     // '{' object, '[' array, '"' string, '0' null, 'v' any other scalar
	text string   // a scalar: a string's value, any other's text (with its type, where the format has one)
	keys []string // an object's member names
	kids []node   // an object's member values, an array's elements
}

// get returns the value of the member key of the object n, or nil.
func (n *node) get(key string) (int, *node) {
	if n == nil || n.kind != '{' {
		return -1, nil
	}
	for i, k := range n.keys {
		if k == key {
			return i, &n.kids[i]
		}
	}
	return -1, nil
}

// without deletes from root the entry name under the container path (a
// member of an object, or an element of an array that is an object with
// that "name"), then each container on the path that that leaves empty
// or that was empty, so that a document before and after an edit of that
// entry hold the same rest.
func without(root *node, container []string, name string) {
	path := []*node{root}
	for _, k := range container {
		_, next := path[len(path)-1].get(k)
		if next == nil {
			break
		}
		path = append(path, next)
	}
	if len(path) == len(container)+1 {
		c := path[len(path)-1]
		switch c.kind {
		case '{':
			if i, _ := c.get(name); i >= 0 {
				c.del(i)
			}
		case '[':
			for i := 0; i < len(c.kids); i++ {
				if _, n := c.kids[i].get("name"); n != nil && n.kind == '"' && n.text == name {
					c.del(i)
					i--
				}
			}
		}
	}
	for k := len(path) - 1; k > 0; k-- {
		if c := path[k]; len(c.kids) > 0 || c.kind != '{' && c.kind != '[' && c.kind != '0' {
			return
		}
		i, _ := path[k-1].get(container[k-1])
		path[k-1].del(i)
	}
}

func (n *node) del(i int) {
	if n.keys != nil {
		n.keys = append(n.keys[:i], n.keys[i+1:]...)
	}
	n.kids = append(n.kids[:i], n.kids[i+1:]...)
}

// equal reports whether n and m hold the same data in the same order.
func (n *node) equal(m *node) bool {
	if n.kind != m.kind || n.text != m.text || len(n.kids) != len(m.kids) || len(n.keys) != len(m.keys) {
		return false
	}
	for i := range n.keys {
		if n.keys[i] != m.keys[i] {
			return false
		}
	}
	for i := range n.kids {
		if !n.kids[i].equal(&m.kids[i]) {
			return false
		}
	}
	return true
}
