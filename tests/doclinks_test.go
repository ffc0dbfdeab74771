package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinksResolve checks every relative link of the documents a reader
// follows (README.md, CONTRIBUTING.md, BENCHMARKS.md and docs/*.md): the
// file or directory it names exists, and its #anchor is a heading of the
// Markdown file it points to, as GitHub names headings.
func TestDocLinksResolve(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"README.md", "CONTRIBUTING.md", "BENCHMARKS.md"} {
		docs = append(docs, filepath.Join(root, name))
	}
	anchors := map[string]map[string]bool{} // by absolute path
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		anchors[path] = headingAnchors(string(b))
		return anchors[path]
	}
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		for _, l := range markdownLinks(string(b)) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(l.target, "#")
			file := doc
			if path != "" {
				file = filepath.Join(filepath.Dir(doc), filepath.FromSlash(path))
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", rel, l.line, l.target, path)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(file, ".md") {
				t.Errorf("%s:%d: link %q: an anchor into a file that is not Markdown", rel, l.line, l.target)
				continue
			}
			if !anchorsOf(file)[anchor] {
				t.Errorf("%s:%d: link %q: %s has no heading #%s", rel, l.line, l.target, filepath.Base(file), anchor)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links found in %d documents; is the link pattern broken?", checked, len(docs))
	}
}

type mdLink struct {
	target string
	line   int
}

var (
	linkPattern = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
)

// markdownLinks returns the targets of the inline links of a Markdown
// text, outside fenced code blocks and code spans.
func markdownLinks(text string) []mdLink {
	var links []mdLink
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		// A code span may be a link's text ([`mcp`](mcp)): keep it as text.
		line = codeSpan.ReplaceAllStringFunc(line, func(s string) string {
			if strings.ContainsAny(s, "()") {
				return "``"
			}
			return s
		})
		for _, m := range linkPattern.FindAllStringSubmatch(line, -1) {
			links = append(links, mdLink{target: m[1], line: i + 1})
		}
	}
	return links
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown text: lower case, punctuation other than '-' and '_' dropped,
// spaces as '-', and a repeated one numbered from -1.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// TestDesignLayoutNamesEveryPackage checks that docs/design.md's Layout
// names every package of the module (but the tests and examples), so that
// a new package comes with its line there.
func TestDesignLayoutNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## Layout\n")
	if start < 0 {
		t.Fatal("docs/design.md has no \"## Layout\" section")
	}
	layout := text[start+1:]
	if end := strings.Index(layout[1:], "\n## "); end >= 0 {
		layout = layout[:end+1]
	}
	for path := range list(t) {
		if under(path, "tests") || under(path, "examples") || path == "." {
			continue
		}
		if !strings.Contains(layout, "`"+path+"`") {
			t.Errorf("docs/design.md's Layout does not name package %s: add a line for it under \"Each package\", in backquotes", path)
		}
	}
}
