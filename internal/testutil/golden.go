package testutil

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the tests got")

// Golden compares got with the golden file at path (relative to the
// test's package directory). With go test's -update flag it writes got to
// the file instead, making its directory if missing. On a difference it
// reports the lines that differ and the command that rewrites the file.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; %s writes it", err, rerun(t))
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the test got; %s rewrites it (review the diff):\n%s", path, rerun(t), Diff(string(want), string(got)))
	}
}

// rerun is the go test command line that reruns t with -update.
func rerun(t testing.TB) string {
	pkg := "."
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				if rel, err := filepath.Rel(dir, wd); err == nil && rel != "." {
					pkg = "./" + filepath.ToSlash(rel)
				}
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return fmt.Sprintf("go test %s -run '^%s$' -update", pkg, strings.ReplaceAll(t.Name(), "/", "$/^"))
}

// maxDiff bounds the lines of each side that [Diff] aligns; past it Diff
// prints both sides whole.
const maxDiff = 4000

// Diff describes how b differs from a, line by line: "-" before a line
// only a has, "+" before one only b has, and "  " before a few lines of
// context around each change.
func Diff(a, b string) string {
	al, bl := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	if len(al) > maxDiff || len(bl) > maxDiff {
		return "--- want:\n" + a + "\n--- got:\n" + b
	}
	// lcs[i][j] is the length of the longest common subsequence of al[i:] and bl[j:].
	lcs := make([][]int, len(al)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(bl)+1)
	}
	for i := len(al) - 1; i >= 0; i-- {
		for j := len(bl) - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		mark string
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(al) || j < len(bl) {
		switch {
		case i < len(al) && j < len(bl) && al[i] == bl[j]:
			lines = append(lines, line{"  ", al[i]})
			i, j = i+1, j+1
		case i < len(al) && (j == len(bl) || lcs[i+1][j] >= lcs[i][j+1]):
			lines = append(lines, line{"- ", al[i]})
			i++
		default:
			lines = append(lines, line{"+ ", bl[j]})
			j++
		}
	}
	const context = 2
	var out strings.Builder
	for k, l := range lines {
		near := false
		for d := max(0, k-context); d <= min(len(lines)-1, k+context); d++ {
			near = near || lines[d].mark != "  "
		}
		if !near {
			continue
		}
		text := strings.TrimSuffix(l.text, "\n")
		if l.text == "" {
			continue
		}
		out.WriteString(l.mark + text + "\n")
	}
	return out.String()
}
