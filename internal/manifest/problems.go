package manifest

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a manifest.
type Problem struct {
	Path    string // JSON path, such as tools[0].inputs.file.type; "" for the whole file
	Line    int    // 1-based line of the offending key or value; 0 when unknown
	Column  int    // 1-based column, in bytes
	Message string // what is wrong and what to write instead
}

// Problems is the error Load and Parse return for an invalid manifest:
// every problem found, in file order.
type Problems struct {
	File string    // the manifest's path, as given
	List []Problem // at least one
}

// Error formats one problem per line as FILE:LINE:COL: PATH: MESSAGE.
func (e *Problems) Error() string {
	var b strings.Builder
	for i, p := range e.List {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
		}
		b.WriteString(": ")
		if p.Path != "" {
			b.WriteString(p.Path + ": ")
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

// problemList collects problems. It places each on the line and column
// of its JSON path only when the problem is added, so that a valid
// manifest costs no positions.
type problemList struct {
	data  []byte
	root  *node // nil when data is not JSON
	lines []int // where each line of data starts, once a problem needs it
	list  []Problem
}

func newProblemList(data []byte, root *node) *problemList {
	return &problemList{data: data, root: root}
}

// hasKey reports whether the file has a value at path.
func (l *problemList) hasKey(path string) bool {
	_, exact := l.find(path)
	return exact
}

// add records a problem at path, located at path or its nearest parent
// that the file has.
func (l *problemList) add(path, format string, args ...any) {
	off, _ := l.find(path)
	l.addAt(off, path, format, args...)
}

// addAt records a problem at path, located at the byte offset off.
func (l *problemList) addAt(off int, path, format string, args ...any) {
	p := Problem{Path: path, Message: fmt.Sprintf(format, args...)}
	p.Line, p.Column = l.lineCol(off)
	l.list = append(l.list, p)
}

// find returns the offset of the value at path, or of its nearest parent
// that the file has, and whether that is the value at path itself.
func (l *problemList) find(path string) (off int, exact bool) {
	n := l.root
	if n == nil {
		return 0, false
	}
	for rest := path; rest != ""; {
		var next *node
		if next, rest = n.step(rest); next == nil {
			return n.off, false
		}
		n = next
	}
	return n.off, true
}

// lineCol returns the 1-based line and byte column of offset off.
func (l *problemList) lineCol(off int) (int, int) {
	if l.lines == nil {
		l.lines = []int{0}
		for i, c := range l.data {
			if c == '\n' {
				l.lines = append(l.lines, i+1)
			}
		}
	}
	off = min(off, len(l.data))
	line := sort.SearchInts(l.lines, off+1) // the lines that start at or before off
	return line, off - l.lines[line-1] + 1
}

// dropFollowOn drops the problems after the first n that lie within the
// path of one of those n. A field that failed to decode is left empty, so
// what the checks then say about it or its object (such as "missing
// command" after the unknown field "comand") only repeats the first.
func (l *problemList) dropFollowOn(n int) {
	kept := l.list[:n]
	for _, p := range l.list[n:] {
		if !slices.ContainsFunc(l.list[:n], func(d Problem) bool { return related(d.Path, p.Path) }) {
			kept = append(kept, p)
		}
	}
	l.list = kept
}

// err returns the problems in file order, as a *Problems for file.
func (l *problemList) err(file string) *Problems {
	sort.SliceStable(l.list, func(i, j int) bool {
		a, b := l.list[i], l.list[j]
		return a.Line < b.Line || (a.Line == b.Line && a.Column < b.Column)
	})
	return &Problems{File: file, List: l.list}
}

// join appends a member name to a JSON path: a.b, or a["odd key"].
func join(path, key string) string {
	if !isIdent(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// step follows the first member or index of path, as join writes them,
// from n. It returns the value there, nil when n has none, and the rest
// of the path.
func (n *node) step(path string) (*node, string) {
	path = strings.TrimPrefix(path, ".")
	key, rest := "", ""
	switch {
	case strings.HasPrefix(path, `["`):
		q, err := strconv.QuotedPrefix(path[1:])
		if err != nil || !strings.HasPrefix(path[1+len(q):], "]") {
			return nil, ""
		}
		key, _ = strconv.Unquote(q)
		rest = path[1+len(q)+1:]
	case strings.HasPrefix(path, "["):
		end := strings.IndexByte(path, ']')
		i, err := strconv.Atoi(path[1:max(end, 1)])
		if end < 0 || err != nil || n.kind != 'a' || i < 0 || i >= len(n.elems) {
			return nil, ""
		}
		return n.elems[i], path[end+1:]
	default:
		end := strings.IndexAny(path, ".[")
		if end < 0 {
			end = len(path)
		}
		key, rest = path[:end], path[end:]
	}
	if n.kind == 'o' {
		for i, k := range n.keys {
			if k == key {
				return n.elems[i], rest
			}
		}
	}
	return nil, ""
}

// related reports whether one JSON path is the other or lies within it.
func related(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == "" || a == b || strings.HasPrefix(b, a+".") || strings.HasPrefix(b, a+"[")
}

// isIdent reports whether key matches ^[A-Za-z_$][A-Za-z0-9_$-]*$, a key
// that a JSON path can show without quotes.
func isIdent(key string) bool { return isName(key, "$", "$-") }
