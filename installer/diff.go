package installer

import (
	"bytes"
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff from a to b with three lines of
// context, or "" if they are equal. mcpship edits one place per file, so
// the diff is the single hunk between the common first and last lines.
func unifiedDiff(name string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := lineIndex(a), lineIndex(b)
	nx, ny := len(x)-1, len(y)-1 // lines
	// Equal lines at the start: those that end before the first byte
	// that differs.
	p := commonPrefix(a, b)
	pre := bytes.Count(a[:p], []byte("\n"))
	suf := 0
	for suf < nx-pre && suf < ny-pre && bytes.Equal(line(a, x, nx-1-suf), line(b, y, ny-1-suf)) {
		suf++
	}
	const ctx = 3
	from := max(pre-ctx, 0)
	toX, toY := min(nx-suf+ctx, nx), min(ny-suf+ctx, ny)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", name, name)
	fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(from, toX-from), hunkRange(from, toY-from))
	put := func(prefix string, s []byte) {
		s = bytes.TrimSuffix(bytes.TrimSuffix(s, []byte("\n")), []byte("\r"))
		sb.WriteString(prefix)
		sb.Write(s)
		sb.WriteString("\n")
	}
	noEOL := func(text []byte, idx []int, i int) {
		if i == len(idx)-2 && !bytes.HasSuffix(line(text, idx, i), []byte("\n")) {
			sb.WriteString("\\ No newline at end of file\n")
		}
	}
	for i := from; i < pre; i++ {
		put(" ", line(a, x, i))
	}
	for i := pre; i < nx-suf; i++ {
		put("-", line(a, x, i))
		noEOL(a, x, i)
	}
	for i := pre; i < ny-suf; i++ {
		put("+", line(b, y, i))
		noEOL(b, y, i)
	}
	for i := nx - suf; i < toX; i++ {
		put(" ", line(a, x, i))
		noEOL(a, x, i)
	}
	return sb.String()
}

// commonPrefix returns the length of the longest common prefix of a and
// b, comparing blocks with bytes.Equal before single bytes.
func commonPrefix(a, b []byte) int {
	const block = 4096
	p := 0
	for p+block <= len(a) && p+block <= len(b) && bytes.Equal(a[p:p+block], b[p:p+block]) {
		p += block
	}
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	return p
}

// lineIndex returns the offsets at which the lines of b start, and
// len(b): line i is b[idx[i]:idx[i+1]], with its line ending.
func lineIndex(b []byte) []int {
	idx := make([]int, 1, bytes.Count(b, []byte("\n"))+2)
	for off := 0; off < len(b); {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			off = len(b)
		} else {
			off += i + 1
		}
		idx = append(idx, off)
	}
	return idx
}

func line(b []byte, idx []int, i int) []byte { return b[idx[i]:idx[i+1]] }

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
