package installer

import (
	"fmt"
	"strings"
	"testing"
)

// refUnifiedDiff is unifiedDiff as it was, splitting both texts into
// strings: the reference for FuzzUnifiedDiff.
func refUnifiedDiff(name string, a, b []byte) string {
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

// FuzzUnifiedDiff checks unifiedDiff against the string-splitting
// reference, byte for byte.
func FuzzUnifiedDiff(f *testing.F) {
	for _, c := range [][2]string{
		{"", ""}, {"", "a"}, {"a", ""}, {"a\n", "a\nb\n"}, {"a", "a\n"}, {"a\nb", "a\nc"},
		{"x\ny\nz\n", "x\ny\ny\nz\n"}, {"1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nX\n5\n6\n7\n8\n"},
		{"a\r\nb\r\n", "a\r\nc\r\nb\r\n"}, {"\n\n\n", "\n\n"}, {"ab", "b"},
	} {
		f.Add(c[0], c[1])
	}
	long := strings.Repeat("line of text\n", 1000)
	f.Add(long+"a\n"+long, long+"b\n"+long)
	f.Add(long, long+"end")
	f.Add(long[:8192], long[:8191])
	f.Fuzz(func(t *testing.T, a, b string) {
		got, want := unifiedDiff("f", []byte(a), []byte(b)), refUnifiedDiff("f", []byte(a), []byte(b))
		if got != want {
			t.Fatalf("unifiedDiff(%q, %q) =\n%s\nwant\n%s", a, b, got, want)
		}
	})
}
