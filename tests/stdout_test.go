package tests

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoStrayStdoutWrites fails when library or command code writes to the
// process's standard output behind the protocol's back: during serve,
// stdout belongs to the MCP stream. Commands print through the writer
// their cli.App was given; only main hands os.Stdout to it.
func TestNoStrayStdoutWrites(t *testing.T) {
	stray := regexp.MustCompile(`os\.Stdout|\bfmt\.Print(f|ln)?\(|\bprintln\(|\bprint\(|log\.SetOutput\(os\.Stdout`)
	allowed := map[string]bool{
		filepath.Join("cmd", "mcpship", "main.go"): true, // hands os.Stdout to the app
		// The one stdio helper serves on os.Stdout and, when asked, points
		// it at stderr while serving.
		filepath.Join("mcp", "stdio.go"): true,
	}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git", "examples", "tests":
				return filepath.SkipDir
			}
			// Another module (bench/: benchmark servers and their driver)
			// is not mcpship's code.
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed[rel] {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if stray.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%s:%d writes to stdout directly: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
