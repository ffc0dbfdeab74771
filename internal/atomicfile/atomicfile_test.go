package atomicfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mcpship/mcpship/internal/atomicfile"
)

func TestWriteReplaces(t *testing.T) {
	file := filepath.Join(t.TempDir(), "server.json")
	if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(file, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil || string(got) != "new\n" {
		t.Fatalf("file holds %q, %v; want %q", got, err, "new\n")
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(file)
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("mode %v, want 0644", fi.Mode().Perm())
		}
	}
	onlyFile(t, filepath.Dir(file), "server.json")
}

func TestWriteNewRefusesAnExistingFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcpship.json")
	if err := atomicfile.WriteNew(file, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := atomicfile.WriteNew(file, []byte("second"), 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second WriteNew: %v, want an error wrapping fs.ErrExist", err)
	}
	got, _ := os.ReadFile(file)
	if string(got) != "first" {
		t.Errorf("file holds %q after a refused WriteNew, want %q", got, "first")
	}
	onlyFile(t, dir, "mcpship.json")
}

func TestWriteFailsWithoutTheDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "missing", "f.json")
	if err := atomicfile.Write(file, []byte("x"), 0o644); err == nil {
		t.Fatal("Write into a missing directory succeeded")
	}
}

// onlyFile fails unless dir holds just name: no temporary file is left.
func onlyFile(t *testing.T, dir, name string) {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(des) != 1 || des[0].Name() != name {
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		t.Errorf("%s holds %q, want only %q", dir, names, name)
	}
}

// A Check that fails leaves the file as it was and no temporary file;
// Prepare runs on the temporary file before the data is in it.
func TestWriteWithCheckAndPrepare(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.json")
	if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	changed := errors.New("changed")
	var sizeAtPrepare int64 = -1
	err := atomicfile.WriteWith(file, []byte("new"), atomicfile.Options{
		Perm: 0o600,
		Prepare: func(f *os.File) error {
			fi, err := f.Stat()
			if err == nil {
				sizeAtPrepare = fi.Size()
			}
			return err
		},
		Check: func() error { return changed },
	})
	if !errors.Is(err, changed) {
		t.Fatalf("WriteWith with a failing Check: %v, want its error", err)
	}
	if sizeAtPrepare != 0 {
		t.Errorf("Prepare saw a temporary file of %d bytes, want it empty", sizeAtPrepare)
	}
	if got, _ := os.ReadFile(file); string(got) != "old" {
		t.Errorf("file holds %q after a failed Check, want %q", got, "old")
	}
	onlyFile(t, dir, "config.json")
}

// RemoveTemps removes the temporary files a killed writer left, of the
// name given, and nothing else.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	stale := []string{".a.json.mcpship-123.tmp", ".b.json.mcpship-9.tmp"}
	kept := []string{"a.json", ".a.json.mcpship-x.tmp", "a.json.mcpship-1.tmp", ".a.json.mcpship-1.tmp~", ".a.json.1.tmp"}
	for _, n := range append(stale, kept...) {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	atomicfile.RemoveTemps(dir, "a.json")
	if _, err := os.Stat(filepath.Join(dir, stale[0])); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s kept: %v", stale[0], err)
	}
	if _, err := os.Stat(filepath.Join(dir, stale[1])); err != nil {
		t.Errorf("%s, of another name, removed: %v", stale[1], err)
	}
	atomicfile.RemoveTemps(dir, "")
	if _, err := os.Stat(filepath.Join(dir, stale[1])); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s kept by RemoveTemps of any name: %v", stale[1], err)
	}
	for _, n := range kept {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s, not a temporary file of mcpship, removed: %v", n, err)
		}
	}
}
