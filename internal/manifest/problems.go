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

// problemList collects problems and remembers where each path starts.
type problemList struct {
	data  []byte
	offs  map[string]int
	lines []int // where each line of data starts, once a problem needs it
	list  []Problem
}

func newProblemList(data []byte) *problemList {
	return &problemList{data: data, offs: map[string]int{}}
}

// at records the offset of path.
func (l *problemList) at(path string, off int) { l.offs[path] = off }

func hasKey(probs *problemList, path string) bool {
	_, ok := probs.offs[path]
	return ok
}

// add records a problem at path, located at path or its nearest parent
// whose place is known.
func (l *problemList) add(path, format string, args ...any) {
	p := Problem{Path: path, Message: fmt.Sprintf(format, args...)}
	for q := path; ; q = parent(q) {
		if off, ok := l.offs[q]; ok {
			p.Line, p.Column = l.lineCol(off)
			break
		}
		if q == "" {
			break
		}
	}
	l.list = append(l.list, p)
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

// parent strips the last member or index from a JSON path.
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
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
