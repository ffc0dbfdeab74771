package resultcache

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// write creates file name under dir with data, making its folders.
func write(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func recordAll(t *testing.T, dir string, patterns ...string) *Inputs {
	t.Helper()
	in, err := Record(dir, patterns)
	if err != nil {
		t.Fatal(err)
	}
	if why := in.Check(); why != "" {
		t.Fatalf("right after Record, Check says %q", why)
	}
	return in
}

// changed fails unless Check sees a change whose text contains want.
func changed(t *testing.T, in *Inputs, want string) {
	t.Helper()
	if why := in.Check(); why == "" || !strings.Contains(why, want) {
		t.Errorf("Check = %q, want a change mentioning %q", why, want)
	}
}

func unchanged(t *testing.T, in *Inputs) {
	t.Helper()
	if why := in.Check(); why != "" {
		t.Errorf("Check = %q, want no change", why)
	}
}

func TestSameSecondSameSize(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a.rb", "aaaa")
	in := recordAll(t, dir, "a.rb")
	fi, _ := os.Stat(p)
	write(t, dir, "a.rb", "bbbb")
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	changed(t, in, "a.rb")
}

// TestRacyFileComparedByContent is the racy rule alone: a file recorded
// within RacyWindow of its mtime is compared by content even when its
// stat is exactly the one recorded, as on a file system whose times are
// coarser than the edits.
func TestRacyFileComparedByContent(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a.rb", "aaaa")
	in := recordAll(t, dir, "a.rb")
	rec := &in.records[0]
	if !rec.Racy || rec.Sum == nil {
		t.Fatalf("a file written just now is not racy: %+v", rec)
	}
	write(t, dir, "a.rb", "bbbb")
	fi, _ := os.Lstat(p)
	rec.Stat = statOf(fi) // the stat did not change
	changed(t, in, "content changed")
}

func TestMtimePutBack(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "Gemfile.lock", "rake (13.0)\n")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	in := recordAll(t, dir, "Gemfile.lock")
	// touch -r, or a tar extract that keeps the archive's mtime.
	write(t, dir, "Gemfile.lock", "rake (13.1)\n")
	os.Chtimes(p, old, old)
	changed(t, in, "Gemfile.lock")
}

func TestReplacedByRename(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a.rb", "aaaa")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	in := recordAll(t, dir, "a.rb")
	tmp := write(t, dir, "extract/a.rb", "bbbb")
	os.Chtimes(tmp, old, old)
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	changed(t, in, "a.rb")
}

func TestDeleted(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a.rb", "x")
	in := recordAll(t, dir, "a.rb")
	os.Remove(p)
	changed(t, in, "deleted")
}

func TestNewFileInFolder(t *testing.T) {
	for _, name := range []string{"sig/b.rbs", "sig/.hidden", "sig/deep/er/c.rbs"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "sig/a.rbs", "x")
			write(t, dir, "sig/deep/er/keep", "x")
			in := recordAll(t, dir, "sig/")
			write(t, dir, name, "y")
			changed(t, in, "folder entries changed")
		})
	}
}

func TestFileInFolderEdited(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "sig/deep/a.rbs", "x")
	in := recordAll(t, dir, "sig")
	write(t, dir, "sig/deep/a.rbs", "xy")
	changed(t, in, filepath.Join("deep", "a.rbs"))
}

func TestAbsentCreated(t *testing.T) {
	dir := t.TempDir()
	in := recordAll(t, dir, ".rigor.yml", "no/such/folder/")
	if in.Len() != 2 {
		t.Fatalf("recorded %d inputs, want 2 absent paths", in.Len())
	}
	write(t, dir, ".rigor.yml", "x")
	changed(t, in, "created")
	in = recordAll(t, dir, "no/such/folder/")
	write(t, dir, "no/such/folder/x", "x")
	changed(t, in, "created")
}

func TestSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	write(t, dir, "v1.yml", "a: 1")
	write(t, dir, "v2.yml", "a: 2")
	link := filepath.Join(dir, "config.yml")
	os.Symlink("v1.yml", link)
	in := recordAll(t, dir, "config.yml")
	os.Remove(link)
	os.Symlink("v2.yml", link)
	changed(t, in, "config.yml")

	os.Remove(link)
	os.Symlink("v1.yml", link)
	in = recordAll(t, dir, "config.yml")
	write(t, dir, "v1.yml", "a: 3")
	changed(t, in, "config.yml")
}

func TestFutureMtime(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a.rb", "aaaa")
	future := time.Now().Add(time.Hour)
	os.Chtimes(p, future, future)
	in := recordAll(t, dir, "a.rb")
	if !in.records[0].Racy {
		t.Fatal("a file with an mtime in the future is not racy")
	}
	write(t, dir, "a.rb", "bbbb")
	os.Chtimes(p, future, future)
	changed(t, in, "a.rb")
}

func TestTouchSameContentIsUnchanged(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a.rb", "aaaa")
	in := recordAll(t, dir, "a.rb")
	later := time.Now().Add(-time.Minute)
	os.Chtimes(p, later, later)
	unchanged(t, in) // after a hash check
	fi, _ := os.Lstat(p)
	if in.records[0].Stat != statOf(fi) {
		t.Error("the stat was not recorded anew after the hash check")
	}
}

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "sig/a.rbs", "x")
	write(t, dir, "sig/sub/b.rbs", "x")
	in := recordAll(t, dir, "sig/**/*.rbs", "lib/*.rb")
	write(t, dir, "sig/sub/notes.txt", "x") // matches no glob
	unchanged(t, in)
	write(t, dir, "sig/other/deep/d.rbs", "x")
	changed(t, in, "folder entries changed")
	in = recordAll(t, dir, "sig/**/*.rbs", "lib/*.rb")
	write(t, dir, "lib/x.rb", "x")
	changed(t, in, "folder entries changed")
	in = recordAll(t, dir, "sig/**/*.rbs", "lib/*.rb")
	write(t, dir, "sig/a.rbs", "xy")
	changed(t, in, "a.rbs")
}

func TestEscapedValue(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a[1].rb", "x")
	write(t, dir, "a1.rb", "x")
	in := recordAll(t, dir, Escape("a[1].rb"))
	if in.Len() != 1 || in.records[0].Absent {
		t.Fatalf("an escaped name recorded %+v, want the one file", in.records)
	}
	write(t, dir, "a1.rb", "changed, but not an input")
	unchanged(t, in)
}

func TestTooManyInputs(t *testing.T) {
	dir := t.TempDir()
	in := &Inputs{}
	r := &recorder{in: in, seen: map[seenKey]bool{}}
	for range MaxInputs {
		r.add(record{})
	}
	if err := r.path(dir, true); err != ErrTooManyInputs {
		t.Errorf("recording past MaxInputs: %v, want ErrTooManyInputs", err)
	}
}

func TestCheckPattern(t *testing.T) {
	for _, p := range []string{"", "sig/[a"} {
		if CheckPattern(p) == nil {
			t.Errorf("CheckPattern(%q) = nil", p)
		}
	}
	for _, p := range []string{"{file}", "sig/", "sig/**/*.rbs", `a\*b`} {
		if err := CheckPattern(p); err != nil {
			t.Errorf("CheckPattern(%q) = %v", p, err)
		}
	}
}

// A listing's digest is the one earlier versions wrote to disk entries:
// name NUL type NL per entry, so that those entries still check.
func TestListingDigestStable(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.rb"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("a.rb", filepath.Join(dir, "ln"))
	h := sha256.New()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fmt.Fprintf(h, "%s\x00%d\n", e.Name(), e.Type())
	}
	if _, sum := listing(dir, ""); !bytes.Equal(sum, h.Sum(nil)) {
		t.Errorf("listing digest %x, want %x", sum, h.Sum(nil))
	}
}
