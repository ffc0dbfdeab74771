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
