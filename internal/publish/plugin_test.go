package publish

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/internal/testutil"
	"github.com/rogpeppe/go-internal/txtar"
)

func rigorPlugin() Plugin {
	return Plugin{
		Entry: Entry{
			Name:        "rigor",
			Description: "Type-check Ruby with Rigor",
			Command:     "mcpship",
			Args:        []string{"serve", "--manifest", Root + "/mcpship.json"},
			Env:         map[string]string{"RIGOR_CACHE": Root + "/cache"},
		},
		Version:    "1.0.0",
		Author:     "Rigor authors",
		License:    "MIT",
		Repository: "https://github.com/rigor-lang/rigor",
		Files:      map[string][]byte{"mcpship.json": []byte(`{"tools": []}` + "\n")},
	}
}

// tree returns the files under dir as a txtar archive, in path order.
func tree(t *testing.T, dir string) []byte {
	t.Helper()
	var a txtar.Archive
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		a.Files = append(a.Files, txtar.File{Name: filepath.ToSlash(rel), Data: b})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return txtar.Format(&a)
}

func TestWriteClaudePlugin(t *testing.T) {
	dir := t.TempDir()
	p := rigorPlugin()
	p.Icon = []byte("\x89PNG\r\n\x1a\n(not a whole image)\n")
	if err := WriteClaudePlugin(dir, p); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "claude-plugin.txtar"), tree(t, dir))
}

func TestWriteGeminiExtension(t *testing.T) {
	dir := t.TempDir()
	if err := WriteGeminiExtension(dir, rigorPlugin()); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "gemini-extension.txtar"), tree(t, dir))
}

func TestPluginRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Plugin)
		want string
	}{
		{"name with capitals", func(p *Plugin) { p.Name = "Rigor" }, "must be lower-case"},
		{"name with a space", func(p *Plugin) { p.Name = "my tool" }, "must be lower-case"},
		{"file outside", func(p *Plugin) { p.Files["../x"] = nil }, "relative path inside the plugin"},
		{"absolute file", func(p *Plugin) { p.Files["/etc/x"] = nil }, "relative path inside the plugin"},
		{"no command", func(p *Plugin) { p.Command = "" }, "command is empty"},
	} {
		for _, w := range []struct {
			kind  string
			write func(string, Plugin) error
		}{{"claude", WriteClaudePlugin}, {"gemini", WriteGeminiExtension}} {
			t.Run(tc.name+"/"+w.kind, func(t *testing.T) {
				p := rigorPlugin()
				tc.edit(&p)
				dir := filepath.Join(t.TempDir(), "plugin")
				err := w.write(dir, p)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want an error saying %q", err, tc.want)
				}
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("%s was created although the plugin was refused", dir)
				}
			})
		}
	}
}
