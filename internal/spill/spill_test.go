package spill

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

func newTestStore(t *testing.T, mem, disk int64) *Store {
	s := New(mem, disk)
	s.base = t.TempDir()
	t.Cleanup(func() { s.Close() })
	return s
}

func read(t *testing.T, s *Store, uri string) ([]byte, string, error) {
	t.Helper()
	cs, err := s.ReadResource(context.Background(), uri)
	if err != nil {
		return nil, "", err
	}
	if len(cs) != 1 || cs[0].URI != uri {
		t.Fatalf("ReadResource(%s) = %+v", uri, cs)
	}
	if cs[0].Blob != "" {
		b, err := base64.StdEncoding.DecodeString(cs[0].Blob)
		if err != nil {
			t.Fatal(err)
		}
		return b, "blob", nil
	}
	return []byte(cs[0].Text), "text", nil
}

func TestKeepAndReadBack(t *testing.T) {
	s := newTestStore(t, 1<<20, 1<<20)
	text := bytes.Repeat([]byte("héllo\n"), 1000)
	r1, ok := s.Keep("tool", "stdout", "text/plain", text)
	if !ok || r1.Size != int64(len(text)) || r1.MimeType != "text/plain" {
		t.Fatalf("Keep text = %+v, %v", r1, ok)
	}
	bin := []byte{0xff, 0xfe, 0, 1, 2}
	r2, ok := s.Keep("tool", "stdout", "text/plain", bin)
	if !ok || r2.MimeType != "application/octet-stream" {
		t.Fatalf("Keep of bytes that are not UTF-8 = %+v, %v; want application/octet-stream", r2, ok)
	}
	if got, kind, err := read(t, s, r1.URI); err != nil || kind != "text" || !bytes.Equal(got, text) {
		t.Errorf("text read back: %s, %v, equal %v", kind, err, bytes.Equal(got, text))
	}
	if got, kind, err := read(t, s, r2.URI); err != nil || kind != "blob" || !bytes.Equal(got, bin) {
		t.Errorf("blob read back: %s %v %q", kind, err, got)
	}
	list, next, err := s.ListResources(context.Background(), "")
	if err != nil || next != "" || len(list) != 2 || list[0].URI != r2.URI || list[1].URI != r1.URI {
		t.Errorf("ListResources = %+v, %q, %v; want newest first", list, next, err)
	}
	var e *mcp.Error
	if _, err := s.ReadResource(context.Background(), "mcpship://output/nope"); !errors.As(err, &e) || e.Code != mcp.CodeResourceNotFound {
		t.Errorf("unknown URI: %v", err)
	}
}

// TestBounds fills the store past both limits: the oldest outputs move
// to files, then the oldest files go, and neither limit is passed.
func TestBounds(t *testing.T) {
	s := newTestStore(t, 250, 500)
	var uris []string
	for i := range 10 {
		r, ok := s.Keep("t", "", "text/plain", bytes.Repeat([]byte{byte('a' + i)}, 100))
		if !ok {
			t.Fatalf("Keep %d refused", i)
		}
		uris = append(uris, r.URI)
		if s.mem > 250 || s.disk > 500 {
			t.Fatalf("after %d: %d bytes in memory, %d in files", i, s.mem, s.disk)
		}
	}
	// 2 in memory, 5 in files, the 3 oldest dropped.
	for i, uri := range uris {
		got, _, err := read(t, s, uri)
		switch {
		case i < 3 && err == nil:
			t.Errorf("output %d is still kept; the oldest go first", i)
		case i >= 3 && (err != nil || !bytes.Equal(got, bytes.Repeat([]byte{byte('a' + i)}, 100))):
			t.Errorf("output %d: %v, %q", i, err, got)
		}
	}
	files, _ := filepath.Glob(filepath.Join(s.dir, "*"))
	if len(files) != 5 {
		t.Errorf("%d files, want 5: %v", len(files), files)
	}
	fi, err := os.Stat(s.dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("folder: %v, %v; want 0700", fi.Mode(), err)
	}
	fi, err = os.Stat(files[0])
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file: %v, %v; want 0600", fi.Mode(), err)
	}
	if _, ok := s.Keep("t", "", "text/plain", make([]byte, 501)); ok {
		t.Error("an output larger than both limits was kept")
	}
	dir := s.dir
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Close left %s: %v", dir, err)
	}
	if _, ok := s.Keep("t", "", "text/plain", []byte("x")); ok {
		t.Error("Keep after Close kept something")
	}
}

// TestNoFiles keeps outputs in memory only when the file limit is
// negative.
func TestNoFiles(t *testing.T) {
	s := newTestStore(t, 100, -1)
	a, _ := s.Keep("t", "", "text/plain", make([]byte, 80))
	b, _ := s.Keep("t", "", "text/plain", make([]byte, 80))
	if _, _, err := read(t, s, a.URI); err == nil {
		t.Error("the older output is still kept")
	}
	if _, _, err := read(t, s, b.URI); err != nil {
		t.Error(err)
	}
	if s.dir != "" {
		t.Errorf("a folder was made: %s", s.dir)
	}
}

// TestStaleFolders removes the folder of a process that is gone, and
// keeps those of live ones.
func TestStaleFolders(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no cheap check of a pid on Windows: stale folders stay")
	}
	base := t.TempDir()
	gone := filepath.Join(base, "mcpship-output-999999999-x")
	live := filepath.Join(base, "mcpship-output-"+strconv.Itoa(os.Getppid())+"-x")
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{gone, live} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(d, old, old)
	}
	removeStale(base)
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the folder of a process that is gone is still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the folder of a live process was removed: %v", err)
	}
}
