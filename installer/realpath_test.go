package installer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// A relative link inside a symlinked directory is read from the link's
// real directory, as the kernel does, whether its target exists or not.
func TestRelativeLinkInLinkedDirectory(t *testing.T) {
	for _, exists := range []bool{true, false} {
		tg, o := testTarget(t, "zed", ScopeUser)
		home := filepath.Dir(filepath.Dir(filepath.Dir(tg.File))) // ~/.config/zed/settings.json
		symlink(t, "dotfiles/config", filepath.Join(home, ".config"))
		symlink(t, "../../store/zed.json", filepath.Join(home, "dotfiles", "config", "zed", "settings.json"))
		real := filepath.Join(home, "dotfiles", "store", "zed.json")
		if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
			t.Fatal(err)
		}
		if exists {
			write(t, real, `{"theme": "x"}`, 0o600)
		}
		if got, err := realPath(tg.File); err != nil || got != real {
			t.Errorf("realPath = %q, %v; want %q", got, err, real)
		}
		if _, err := tg.Add(srv, o); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(read(t, real), `"mcpship"`) {
			t.Errorf("exists=%v: the real file was not edited: %s", exists, read(t, real))
		}
		if _, err := os.Stat(filepath.Join(home, "store")); !os.IsNotExist(err) {
			t.Errorf("exists=%v: a stray ~/store was made: %v", exists, err)
		}
		if fi, err := os.Lstat(filepath.Join(home, "dotfiles", "config", "zed", "settings.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("exists=%v: the link was replaced", exists)
		}
	}
}

func TestRealPath(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// d/a/link -> d/b/deep; d/a/f -> link/../x names d/b/x, not d/a/x.
	if err := os.MkdirAll(filepath.Join(d, "b", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(d, "b", "deep"), filepath.Join(d, "a", "link"))
	symlink(t, "link/../x", filepath.Join(d, "a", "f"))
	symlink(t, "a", filepath.Join(d, "via"))
	symlink(t, "loop", filepath.Join(d, "loop"))
	for in, want := range map[string]string{
		filepath.Join(d, "a", "f"):                  filepath.Join(d, "b", "x"),
		filepath.Join(d, "via", "f"):                filepath.Join(d, "b", "x"),
		filepath.Join(d, "via", "new", "dirs", "f"): filepath.Join(d, "a", "new", "dirs", "f"),
		filepath.Join(d, "via", "link") + "/../y":   filepath.Join(d, "b", "y"),
		filepath.Join(d, "via", "link", "new", "f"): filepath.Join(d, "b", "deep", "new", "f"),
		filepath.Join(d, "plain"):                   filepath.Join(d, "plain"),
	} {
		if got, err := realPath(in); err != nil || got != want {
			t.Errorf("realPath(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := realPath(filepath.Join(d, "loop")); err == nil {
		t.Error("a link loop resolved")
	}
}

// The same file reached through a symlinked project directory takes the
// same lock and backup folder: concurrent adds through both lose nothing.
func TestTwoSpellingsShareTheLock(t *testing.T) {
	root := t.TempDir()
	realProj := filepath.Join(root, "real")
	symlink(t, "real", filepath.Join(root, "link"))
	cl, _ := LookupAssistant("claude-code")
	var tgs []*Target
	for _, p := range []string{realProj, filepath.Join(root, "link")} {
		tg, err := cl.Target(fakeEnv("linux", p, map[string]string{"HOME": root}), ScopeProject)
		if err != nil {
			t.Fatal(err)
		}
		tgs = append(tgs, tg)
	}
	write(t, tgs[0].File, `{"mcpServers": {}}`, 0o644)
	o := Options{StateDir: filepath.Join(root, "state")}
	const n = 48
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := tgs[i%2].Add(Entry{Name: fmt.Sprint("s", i), Command: "c"}, o); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	regs, _, err := tgs[1].Servers(o.StateDir)
	if err != nil || len(regs) != n {
		t.Errorf("%d servers after %d adds, %v", len(regs), n, err)
	}
	b0, _ := tgs[0].Backups(o.StateDir)
	b1, _ := tgs[1].Backups(o.StateDir)
	if len(b0) != n || len(b1) != n {
		t.Errorf("%d and %d backups, want %d in one folder", len(b0), len(b1), n)
	}
}
