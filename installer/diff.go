package installer

import (
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
	x, y := splitLines(a), splitLines(b)
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	const ctx = 3
	from := max(pre-ctx, 0)
	toX, toY := min(len(x)-suf+ctx, len(x)), min(len(y)-suf+ctx, len(y))
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", name, name)
	fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(from, toX-from), hunkRange(from, toY-from))
	line := func(prefix, s string) {
		s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
		sb.WriteString(prefix + s + "\n")
	}
	noEOL := func(lines []string, i int) {
		if i == len(lines)-1 && !strings.HasSuffix(lines[i], "\n") {
			sb.WriteString("\\ No newline at end of file\n")
		}
	}
	for i := from; i < pre; i++ {
		line(" ", x[i])
	}
	for i := pre; i < len(x)-suf; i++ {
		line("-", x[i])
		noEOL(x, i)
	}
	for i := pre; i < len(y)-suf; i++ {
		line("+", y[i])
		noEOL(y, i)
	}
	for i := len(x) - suf; i < toX; i++ {
		line(" ", x[i])
		noEOL(x, i)
	}
	return sb.String()
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

// splitLines splits b after each "\n", keeping the line endings.
func splitLines(b []byte) []string {
	s := string(b)
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}
