package installer

import (
	"bytes"
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff from a to b with three lines of
// context, or "" if they are equal. mcpship edits one place per file, so
// the diff is the single hunk between the common first and last lines.
// It looks at each byte once and splits only the hunk into lines.
func unifiedDiff(name string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	// The common first lines end at pre; the common last lines start at
	// endA in a and endB in b.
	pre := bytes.LastIndexByte(a[:commonPrefix(a, b)], '\n') + 1
	s := commonSuffix(a[pre:], b[pre:])
	endA, endB := len(a)-s, len(b)-s
	lineStart := func(b []byte, i int) bool { return i == pre || b[i-1] == '\n' }
	if !lineStart(a, endA) || !lineStart(b, endB) {
		// The last lines differ at endA: the common ones start after it.
		n := len(a) - endA
		if i := bytes.IndexByte(a[endA:], '\n'); i >= 0 {
			n = i + 1
		}
		endA, endB = endA+n, endB+n
	}
	const ctx = 3
	from := pre
	for range ctx {
		if from > 0 {
			from = bytes.LastIndexByte(a[:from-1], '\n') + 1
		}
	}
	toA, toB := endA, endB
	for range ctx {
		if i := bytes.IndexByte(a[toA:], '\n'); i >= 0 {
			toA, toB = toA+i+1, toB+i+1
		} else {
			toA, toB = len(a), len(b)
		}
	}
	var sb strings.Builder
	line0 := bytes.Count(a[:from], []byte("\n"))
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", name, name)
	fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(line0, countLines(a[from:toA])), hunkRange(line0, countLines(b[from:toB])))
	writeLines(&sb, " ", a, from, pre)
	writeLines(&sb, "-", a, pre, endA)
	writeLines(&sb, "+", b, pre, endB)
	writeLines(&sb, " ", a, endA, toA)
	return sb.String()
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	const chunk = 4 << 10 // compared at once, before byte by byte
	p, n := 0, min(len(a), len(b))
	for p+chunk <= n && bytes.Equal(a[p:p+chunk], b[p:p+chunk]) {
		p += chunk
	}
	for p < n && a[p] == b[p] {
		p++
	}
	return p
}

// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	const chunk = 4 << 10
	s, n := 0, min(len(a), len(b))
	for s+chunk <= n && bytes.Equal(a[len(a)-s-chunk:len(a)-s], b[len(b)-s-chunk:len(b)-s]) {
		s += chunk
	}
	for s < n && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return s
}

// countLines returns the number of lines in b, the last of which may
// lack a line ending.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// writeLines writes the lines of b[from:to] to sb, each after prefix and
// without its line ending, and notes a last line of b that has none.
func writeLines(sb *strings.Builder, prefix string, b []byte, from, to int) {
	for from < to {
		end := to
		if i := bytes.IndexByte(b[from:to], '\n'); i >= 0 {
			end = from + i + 1
		}
		sb.WriteString(prefix)
		sb.Write(bytes.TrimSuffix(bytes.TrimSuffix(b[from:end], []byte("\n")), []byte("\r")))
		sb.WriteByte('\n')
		if end == len(b) && b[end-1] != '\n' {
			sb.WriteString("\\ No newline at end of file\n")
		}
		from = end
	}
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
