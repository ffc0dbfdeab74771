package installer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testTarget returns the target of client in scope for a temporary home
// and project, and options whose state directory is inside the home.
func testTarget(t *testing.T, client string, scope Scope) (*Target, Options) {
	t.Helper()
	root := t.TempDir()
	env := fakeEnv("linux", filepath.Join(root, "proj"), map[string]string{"HOME": filepath.Join(root, "home")})
	cl, err := LookupAssistant(client)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := cl.Target(env, scope)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return tg, Options{StateDir: filepath.Join(root, "state"), Now: func() time.Time {
		clock = clock.Add(time.Second)
		return clock
	}}
}

var srv = Entry{Name: "mcpship", Command: "/usr/bin/mcpship", Args: []string{"serve"}}

func write(t *testing.T, path, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAddBacksUpKeepsModeAndUndoes(t *testing.T) {
	tg, o := testTarget(t, "cursor", ScopeUser)
	orig := "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\", \"autoApprove\": [\"t\"]}\n  }\n}\n"
	write(t, tg.File, orig, 0o640)

	ch, err := tg.Add(srv, o)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Action != "added" || ch.Backup == "" {
		t.Fatalf("change = %+v, want added with a backup", ch)
	}
	if got := read(t, ch.Backup); got != orig {
		t.Errorf("backup holds %q, want the original", got)
	}
	if fi, _ := os.Stat(tg.File); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640 kept", fi.Mode().Perm())
	}
	// Again: nothing written, no new backup.
	ch, err = tg.Add(srv, o)
	if err != nil || ch.Action != "unchanged" || ch.Backup != "" {
		t.Fatalf("second add: %+v, %v; want unchanged without a backup", ch, err)
	}
	if bs, _ := tg.Backups(o.StateDir); len(bs) != 1 {
		t.Errorf("%d backups after an idempotent add, want 1", len(bs))
	}
	regs, exists, err := tg.Servers(o.StateDir)
	if err != nil || !exists || len(regs) != 2 || regs[1].Name != "mcpship" || !regs[1].Ours || regs[0].Ours {
		t.Errorf("Servers = %+v, %v, %v", regs, exists, err)
	}
	if _, err := tg.Remove("mcpship", o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, tg.File); got != orig {
		t.Errorf("after remove:\n%s\nwant the original:\n%s", got, orig)
	}
	ch, err = tg.Remove("mcpship", o)
	if err != nil || ch.Action != "absent" {
		t.Errorf("removing again: %+v, %v; want absent", ch, err)
	}
}

func TestNewFileModes(t *testing.T) {
	for _, c := range []struct {
		client string
		scope  Scope
		mode   os.FileMode
	}{
		{"claude-code", ScopeProject, 0o644},
		{"claude-code", ScopeUser, 0o600},
		{"codex", ScopeUser, 0o600},
		{"goose", ScopeUser, 0o600},
	} {
		tg, o := testTarget(t, c.client, c.scope)
		ch, err := tg.Add(Entry{Name: "s", Command: "c", Env: map[string]string{"TOKEN": "secret"}}, o)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(tg.File)
		if err != nil || fi.Mode().Perm() != c.mode || !ch.Created || ch.Backup != "" {
			t.Errorf("%s %s: %+v, mode %v, %v; want a new file with mode %v", c.client, c.scope, ch, fi.Mode().Perm(), err, c.mode)
		}
	}
}

func TestSymlinkKept(t *testing.T) {
	tg, o := testTarget(t, "claude-code", ScopeProject)
	real := filepath.Join(filepath.Dir(tg.File), "dotfiles", "mcp.json")
	write(t, real, `{"mcpServers":{}}`, 0o600)
	if err := os.Symlink("dotfiles/mcp.json", tg.File); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Add(srv, o); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(tg.File)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if !strings.Contains(read(t, real), `"mcpship"`) {
		t.Errorf("the link's target was not edited: %s", read(t, real))
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(real), ".*tmp"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestConflictAndForce(t *testing.T) {
	tg, o := testTarget(t, "vscode", ScopeProject)
	orig := "{\n  // mine\n  \"servers\": {\n    \"mcpship\": {\"type\": \"stdio\", \"command\": \"old\"},\n  },\n}\n"
	write(t, tg.File, orig, 0o644)
	_, err := tg.Add(srv, o)
	var ce *ConflictError
	if !errors.As(err, &ce) || !strings.Contains(ce.Diff, `-    "mcpship": {"type": "stdio", "command": "old"},`) {
		t.Fatalf("err = %v, want a conflict with a diff", err)
	}
	if read(t, tg.File) != orig {
		t.Error("a refused add changed the file")
	}
	o.Force = true
	ch, err := tg.Add(srv, o)
	if err != nil || ch.Action != "replaced" {
		t.Fatalf("forced add: %+v, %v", ch, err)
	}
	got := read(t, tg.File)
	if !strings.Contains(got, "// mine") || !strings.Contains(got, `"command": "/usr/bin/mcpship"`) {
		t.Errorf("forced add lost comments or did not replace:\n%s", got)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	tg, o := testTarget(t, "codex", ScopeUser)
	o.DryRun = true
	ch, err := tg.Add(srv, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ch.Diff, "+[mcp_servers.mcpship]") || !ch.DryRun {
		t.Errorf("dry run diff = %q", ch.Diff)
	}
	if _, err := os.Stat(tg.File); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run created the file: %v", err)
	}
	if _, err := os.Stat(o.StateDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run created the state directory: %v", err)
	}
}

func TestRefusedFilesUntouched(t *testing.T) {
	for client, body := range map[string]string{
		"claude-code": "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"",
		"cursor":      "{\"mcpServers\": \"nope\"}",
		"codex":       "[mcp_servers.a]\ncommand = \n",
		"goose":       "extensions:\n  a: 1\n    b: 2\n",
		"kiro":        "\x89PNG\r\n\x1a\n\x00\x00",
	} {
		tg, o := testTarget(t, client, ScopeUser)
		if client == "claude-code" {
			tg, o = testTarget(t, client, ScopeProject)
		}
		write(t, tg.File, body, 0o600)
		_, err := tg.Add(srv, o)
		var fe *FileError
		if !errors.As(err, &fe) || fe.File != tg.File || fe.Line == 0 {
			t.Errorf("%s: err = %v, want a FileError naming the file and line", client, err)
		}
		if read(t, tg.File) != body {
			t.Errorf("%s: refused file was changed", client)
		}
		if bs, _ := tg.Backups(o.StateDir); len(bs) != 0 {
			t.Errorf("%s: refused add made a backup", client)
		}
	}
}

func TestRestore(t *testing.T) {
	tg, o := testTarget(t, "zed", ScopeUser)
	orig := "// settings\n{\"theme\": \"x\",}\n"
	write(t, tg.File, orig, 0o600)
	if _, err := tg.Restore("", o); err == nil {
		t.Error("restore without backups succeeded")
	}
	if _, err := tg.Add(srv, o); err != nil {
		t.Fatal(err)
	}
	added := read(t, tg.File)
	ch, err := tg.Restore("", o)
	if err != nil || ch.Action != "restored" || ch.Backup == "" {
		t.Fatalf("restore: %+v, %v", ch, err)
	}
	if read(t, tg.File) != orig {
		t.Errorf("restore did not bring back the original")
	}
	bs, _ := tg.Backups(o.StateDir)
	if len(bs) != 2 || read(t, bs[0].Path) != added || read(t, bs[1].Path) != orig {
		t.Errorf("backups after restore are not newest first with the pre-restore file on top: %+v", bs)
	}
	// Restoring the newest again brings back the state before the restore.
	if _, err := tg.Restore("", o); err != nil || read(t, tg.File) != added {
		t.Errorf("second restore: %v", err)
	}
}

func TestChangedUnderneathRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	write(t, p, "a", 0o600)
	snap, err := readConfig(p, p)
	if err != nil {
		t.Fatal(err)
	}
	write(t, p, "b", 0o600) // in place: the same file, other contents
	if err := snap.replace([]byte("new"), 0o600, 0o700); !errors.Is(err, errChanged) || read(t, p) != "b" {
		t.Errorf("wrote over a file that changed since it was read: %v", err)
	}
	os.Remove(p)
	if err := snap.replace([]byte("new"), 0o600, 0o700); !errors.Is(err, errChanged) {
		t.Errorf("wrote a file that was deleted since it was read: %v", err)
	}
	snap, _ = readConfig("g.json", filepath.Join(dir, "g.json"))
	write(t, filepath.Join(dir, "g.json"), "", 0o600)
	if err := snap.replace([]byte("new"), 0o600, 0o700); !errors.Is(err, errChanged) {
		t.Errorf("wrote over a file that was created since it was read: %v", err)
	}
}

// TestUndoThroughLedger checks that what init finds in an empty servers
// object, kept in the ledger, lets remove give the file back byte for
// byte (issue 10 items 22 and 23).
func TestUndoThroughLedger(t *testing.T) {
	for client, orig := range map[string]string{
		"vscode":   "{\n  // mine\n  \"servers\": {\n  }\n}\n",
		"goose":    "GOOSE_PROVIDER: openai\nextensions: {}\n",
		"continue": "name: A\nmcpServers: [] # none\n",
	} {
		tg, o := testTarget(t, client, ScopeUser)
		write(t, tg.File, orig, 0o600)
		if _, err := tg.Add(srv, o); err != nil {
			t.Fatalf("%s: %v", client, err)
		}
		if read(t, tg.File) == orig {
			t.Fatalf("%s: add changed nothing", client)
		}
		if _, err := tg.Remove(srv.Name, o); err != nil {
			t.Fatalf("%s: %v", client, err)
		}
		if got := read(t, tg.File); got != orig {
			t.Errorf("%s: after init and remove:\n%q\nwant the original:\n%q", client, got, orig)
		}
	}
}
