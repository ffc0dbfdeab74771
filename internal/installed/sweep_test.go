package installed

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSweep: only what a stopped add left goes: the folder a pending
// mark names (not the recorded version, nor an older one an entry still
// runs), unpacking folders, and the unpacked bundles of a server with no
// record; a folder that is no unpacked bundle stays.
func TestSweep(t *testing.T) {
	root := t.TempDir()
	mk := func(parts ...string) string {
		d := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	bundle := func(parts ...string) string {
		d := mk(parts...)
		os.WriteFile(filepath.Join(d, "manifest.json"), []byte("{}"), 0o644)
		return d
	}
	// rigor: 1.1.0 recorded, 1.0.0 still run by an entry, 1.2.0 pending.
	if err := Save(root, &Record{Name: "rigor", Version: "1.1.0", Dir: bundle("rigor", "1.1.0")}); err != nil {
		t.Fatal(err)
	}
	old := bundle("rigor", "1.0.0")
	MarkPending(root, "rigor", "1.2.0")
	pending := bundle("rigor", "1.2.0")
	unpack := mk("rigor", ".unpack-1.2.0-123", "server")
	// probe: no record, one bundle unpacked; other: no record, no bundle.
	bundle("probe", "1.0.0")
	mk("other", "notes")

	removed, err := Sweep(root, "", func(dir string) bool { return dir == old })
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{filepath.Join(root, "probe"), filepath.Dir(unpack), pending}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	for _, d := range []string{old, filepath.Join(root, "rigor", "1.1.0"), filepath.Join(root, "other", "notes")} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "rigor", pendingPrefix+"1.2.0")); !os.IsNotExist(err) {
		t.Errorf("the pending mark stayed: %v", err)
	}
	if again, err := Sweep(root, "", nil); len(again) != 0 || err != nil {
		t.Errorf("a second sweep removed %q (%v)", again, err)
	}
}
