package installer

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Restore refuses a backup that does not parse in the client's format, or
// that is not a backup of the file, unless forced.
func TestRestoreRefusesForeignAndBrokenBackups(t *testing.T) {
	tg, o := testTarget(t, "claude-code", ScopeProject)
	orig := `{"mcpServers": {}, "keep": 1}`
	write(t, tg.File, orig, 0o644)
	if _, err := tg.Add(srv, o); err != nil {
		t.Fatal(err)
	}
	added := read(t, tg.File)
	bs, _ := tg.Backups(o.StateDir)
	if len(bs) != 1 {
		t.Fatalf("backups = %v", bs)
	}

	// A torn newest backup, as a kill during an old backup left it.
	write(t, bs[0].Path, `{"mcpServers": {`, 0o600)
	// Another file, and another config's backup.
	other := filepath.Join(t.TempDir(), "hostname")
	write(t, other, "box\n", 0o644)
	tg2, o2 := testTarget(t, "cursor", ScopeUser)
	o2.StateDir = o.StateDir
	write(t, tg2.File, `{"x": 1}`, 0o600)
	if _, err := tg2.Add(srv, o2); err != nil {
		t.Fatal(err)
	}
	bs2, _ := tg2.Backups(o.StateDir)

	for from, want := range map[string]string{
		"":          "not a JSON file that Claude Code can read",
		other:       "not a backup of " + tg.File,
		bs2[0].Path: "not a backup of " + tg.File,
	} {
		_, err := tg.Restore(from, o)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--force") {
			t.Errorf("restore %q: err = %v, want %q and --force", from, err, want)
		}
		if read(t, tg.File) != added {
			t.Errorf("restore %q: the file was changed", from)
		}
	}
	o.Force = true
	if _, err := tg.Restore(other, o); err != nil || read(t, tg.File) != "box\n" {
		t.Errorf("forced restore: %v, %q", err, read(t, tg.File))
	}
}

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
