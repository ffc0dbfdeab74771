package warm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// counted is a Value whose Build reads conf.yml and counts its builds.
func counted(n *atomic.Int64) *Value[string] {
	return &Value[string]{
		Inputs: []string{"conf.yml", "sig/"},
		Build: func(ctx context.Context, dir string) (string, error) {
			n.Add(1)
			data, err := os.ReadFile(filepath.Join(dir, "conf.yml"))
			return string(data), err
		},
	}
}

func get(t *testing.T, v *Value[string], dir string) string {
	t.Helper()
	s, err := v.Get(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRebuildsOnlyOnChange(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "conf.yml"), []byte("a"), 0o644)
	var n atomic.Int64
	v := counted(&n)
	first, second := get(t, v, dir), get(t, v, dir)
	if first != "a" || second != "a" || n.Load() != 1 {
		t.Fatalf("two Gets with nothing changed built %d times, want 1", n.Load())
	}
	os.WriteFile(filepath.Join(dir, "conf.yml"), []byte("b"), 0o644) // same size, same second
	if s := get(t, v, dir); s != "b" || n.Load() != 2 {
		t.Errorf("after an edit: %q, %d builds", s, n.Load())
	}
	os.MkdirAll(filepath.Join(dir, "sig"), 0o755) // was absent
	get(t, v, dir)
	os.WriteFile(filepath.Join(dir, "sig", ".x.rbs"), nil, 0o644)
	get(t, v, dir)
	if n.Load() != 4 {
		t.Errorf("a created folder and a new file in it: %d builds, want 4", n.Load())
	}
}

func TestFoldersAreKeptApart(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "conf.yml"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(b, "conf.yml"), []byte("b"), 0o644)
	var n atomic.Int64
	v := counted(&n)
	v.MaxDirs = 1
	if get(t, v, a) != "a" || get(t, v, b) != "b" || get(t, v, b) != "b" || n.Load() != 2 {
		t.Fatalf("%d builds, want 2", n.Load())
	}
	get(t, v, a) // dropped for room when b was built
	if n.Load() != 3 {
		t.Errorf("MaxDirs 1: %d builds, want 3", n.Load())
	}
}

func TestErrorsAndPanicsAreNotKept(t *testing.T) {
	dir := t.TempDir()
	var n atomic.Int64
	v := counted(&n) // conf.yml is missing: Build fails
	for range 2 {
		if _, err := v.Get(context.Background(), dir); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("Get: %v, want the Build error", err)
		}
	}
	if n.Load() != 2 {
		t.Errorf("a failed build was kept: %d builds, want 2", n.Load())
	}
	p := &Value[int]{Build: func(context.Context, string) (int, error) { panic("boom") }}
	if _, err := p.Get(context.Background(), dir); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a panicking Build gave %v", err)
	}
	if _, err := p.Get(context.Background(), dir); err == nil {
		t.Error("the second Get after a panic gave no error")
	}
	if _, err := (&Value[int]{}).Get(context.Background(), dir); err == nil {
		t.Error("a Value without Build gave no error")
	}
}

func TestConcurrentGetsBuildOnce(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "conf.yml"), []byte("a"), 0o644)
	var n atomic.Int64
	v := counted(&n)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s, err := v.Get(context.Background(), dir); s != "a" || err != nil {
				t.Errorf("Get = %q, %v", s, err)
			}
		}()
	}
	wg.Wait()
	if n.Load() != 1 {
		t.Errorf("20 concurrent Gets built %d times, want 1", n.Load())
	}
}
