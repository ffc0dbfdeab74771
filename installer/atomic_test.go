package installer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// claudeJSON is a config like ~/.claude.json: a lot besides the servers.
func claudeJSONWith(marker string) string {
	return fmt.Sprintf("{\n  \"history\": %q,\n  \"marker\": %q\n}\n", strings.Repeat("x", 256<<10), marker)
}

// rewriteInPlace rewrites path the way Node's writeFileSync does:
// truncate, then write, into the same file.
func rewriteInPlace(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Error(err)
		return
	}
	if _, err := f.WriteString(s); err != nil {
		t.Error(err)
	}
	f.Close()
}

func hook(t *testing.T, f func(path string)) {
	testHookReplace = f
	t.Cleanup(func() { testHookReplace = nil })
}

// A file rewritten in place between the read and the rename is read again
// and edited as it is then.
func TestRewrittenInPlaceIsReadAgain(t *testing.T) {
	tg, o := testTarget(t, "claude-code", ScopeUser)
	write(t, tg.File, claudeJSONWith("first"), 0o600)
	n := 0
	hook(t, func(p string) {
		if n++; n == 1 {
			rewriteInPlace(t, p, claudeJSONWith("second"))
		}
	})
	ch, err := tg.Add(srv, o)
	if err != nil || ch.Action != "added" {
		t.Fatalf("Add = %+v, %v", ch, err)
	}
	got := read(t, tg.File)
	if !strings.Contains(got, `"marker": "second"`) || !strings.Contains(got, `"mcpship"`) || len(got) < 256<<10 {
		t.Errorf("the edit was not made to the rewritten file: %.200s", got)
	}
	if bs, _ := tg.Backups(o.StateDir); len(bs) != 1 || !strings.Contains(read(t, bs[0].Path), `"second"`) {
		t.Errorf("backups = %v, want one, of the rewritten file", bs)
	}
}

// The window of an in-place rewrite: the file is empty when read, and
// whole again before the rename. A client whose file may be empty gets
// its edit made to the whole file.
func TestEmptyWindowIsNotWrittenOver(t *testing.T) {
	tg, o := testTarget(t, "cursor", ScopeUser)
	write(t, tg.File, "", 0o600)
	n := 0
	hook(t, func(p string) {
		if n++; n == 1 {
			rewriteInPlace(t, p, claudeJSONWith("whole"))
		}
	})
	if _, err := tg.Add(srv, o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, tg.File); !strings.Contains(got, `"marker": "whole"`) || !strings.Contains(got, `"mcpship"`) {
		t.Errorf("the file was written over: %.200s", got)
	}
}

// A file that keeps changing is refused after a few tries, and left as
// the other program wrote it.
func TestKeepsChangingRefused(t *testing.T) {
	tg, o := testTarget(t, "claude-code", ScopeUser)
	write(t, tg.File, claudeJSONWith("0"), 0o600)
	n := 0
	hook(t, func(p string) {
		n++
		rewriteInPlace(t, p, claudeJSONWith(fmt.Sprint(n)))
	})
	_, err := tg.Add(srv, o)
	if err == nil || !strings.Contains(err.Error(), "kept changing while mcpship edited it") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if n != tries || read(t, tg.File) != claudeJSONWith(fmt.Sprint(n)) {
		t.Errorf("%d tries, file %.100q", n, read(t, tg.File))
	}
	if bs, _ := tg.Backups(o.StateDir); len(bs) != 0 {
		t.Errorf("refused edits left backups: %v", bs)
	}
}

// ~/.claude.json is never empty when Claude Code is done with it: found
// empty (or blank), it is not taken for {}.
func TestNeverEmptyFileFoundEmptyRefused(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", " \n"} {
		tg, o := testTarget(t, "claude-code", ScopeLocal)
		write(t, tg.File, body, 0o600)
		_, err := tg.Add(srv, o)
		if err == nil || !strings.Contains(err.Error(), "is empty, though Claude Code never leaves it so") || !strings.Contains(err.Error(), "mcpship restore") {
			t.Errorf("%q: err = %v, want a refusal", body, err)
		}
		if read(t, tg.File) != body {
			t.Errorf("%q: the file was changed", body)
		}
	}
	// A project's .mcp.json may be empty.
	tg, o := testTarget(t, "claude-code", ScopeProject)
	write(t, tg.File, "", 0o644)
	if _, err := tg.Add(srv, o); err != nil {
		t.Error(err)
	}
}

// Another program rewrites the file in place again and again, keeping
// what it holds, as Claude Code does with ~/.claude.json, while mcpship
// adds servers: nothing the program keeps is lost.
func TestConcurrentInPlaceRewriter(t *testing.T) {
	t.Parallel()
	tg, o := testTarget(t, "claude-code", ScopeUser)
	write(t, tg.File, claudeJSONWith("m"), 0o600)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(tg.File)
			if err != nil {
				t.Error(err)
				return
			}
			f, err := os.OpenFile(tg.File, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(2 * time.Millisecond) // the empty window, widened
			f.Write(b)
			f.Close()
			time.Sleep(20 * time.Millisecond)
		}
	}()
	for i := range 20 {
		_, err := tg.Add(Entry{Name: fmt.Sprint("s", i), Command: "c"}, o)
		if err != nil && !strings.Contains(err.Error(), "nothing was written") {
			t.Errorf("add %d: %v", i, err)
		}
	}
	close(stop)
	wg.Wait()
	var m map[string]any
	if err := json.Unmarshal([]byte(read(t, tg.File)), &m); err != nil || m["marker"] != "m" {
		t.Fatalf("the program's data was lost: %v, %.200q", err, read(t, tg.File))
	}
}

// Temporary files are created with their final mode, keep the mode of
// the file they replace, and those of killed runs are removed.
func TestTempFiles(t *testing.T) {
	tg, o := testTarget(t, "claude-code", ScopeProject)
	write(t, tg.File, "{}", 0o640)
	dir := filepath.Dir(tg.File)
	stale := filepath.Join(dir, "..mcp.json.mcpship-123.tmp")
	// Not of mcpship's naming for .mcp.json: of mcp.json, or another.
	others := []string{"..mcp.json.mcpship-x.tmp", ".mcp.json.mcpship-1.tmp", "..other.json.mcpship-1.tmp", ".mcp.json.mcpship-1.tmp~"}
	for _, n := range append(others, "..mcp.json.mcpship-123.tmp") {
		write(t, filepath.Join(dir, n), "secret", 0o644)
	}
	hook(t, func(p string) {
		tmp, _ := filepath.Glob(filepath.Join(dir, "..mcp.json.mcpship-*.tmp"))
		for _, p := range tmp {
			if fi, err := os.Stat(p); err == nil && p != filepath.Join(dir, others[0]) && fi.Mode().Perm() != 0o640 {
				t.Errorf("temporary file %s has mode %v, want 0640", p, fi.Mode().Perm())
			}
		}
	})
	if _, err := tg.Add(srv, o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temporary file kept: %v", err)
	}
	for _, n := range others {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("a file not of mcpship's naming for this file was removed: %v", err)
		}
	}
}

// A read-only file is refused unless forced, and then stays read-only.
func TestReadOnlyRefused(t *testing.T) {
	tg, o := testTarget(t, "cursor", ScopeUser)
	write(t, tg.File, `{}`, 0o444)
	_, err := tg.Add(srv, o)
	if err == nil || !strings.Contains(err.Error(), "read-only (mode 0444)") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("err = %v, want a refusal", err)
	}
	if read(t, tg.File) != `{}` {
		t.Error("the read-only file was changed")
	}
	o.Force = true
	if _, err := tg.Add(srv, o); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(tg.File); fi.Mode().Perm() != 0o444 || !strings.Contains(read(t, tg.File), "mcpship") {
		t.Errorf("forced: mode %v, %s", fi.Mode().Perm(), read(t, tg.File))
	}
}
