package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// A cache project is a folder with a manifest whose tool "show" prints a
// line naming the run (its process id and the time), then a file, so
// that a test sees whether a call ran the command or was served from the
// cache. The tool is read-only, as a cached tool is: the sandbox would
// refuse it a counter on disk.
type cacheProject struct {
	t        *testing.T
	dir      string
	cacheDir string          // XDG_CACHE_HOME: the disk tier is under it
	seen     map[string]bool // the runs the results named
}

const cacheScript = `echo "run $$.$(date +%s%N)"; [ -n "$SLEEP" ] && sleep "$SLEEP"; cat -- "$1"; [ -z "$FAIL" ] || exit 3; [ -z "$BIG" ] || head -c 5000 /dev/zero`

func newCacheProject(t *testing.T, cache string) *cacheProject {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the tool is a shell script")
	}
	p := &cacheProject{t: t, dir: t.TempDir(), cacheDir: t.TempDir(), seen: map[string]bool{}}
	p.manifest(cache)
	p.write("tool.sh", "#!/bin/sh\n"+cacheScript+"\n")
	os.Chmod(filepath.Join(p.dir, "tool.sh"), 0o755)
	return p
}

// manifest writes mcpship.json with cache as the tool's "cache".
func (p *cacheProject) manifest(cache string) {
	p.write("mcpship.json", `{"tools": [{
  "name": "show", "description": "Print a file.",
  "command": ["./tool.sh", "{file}"],
  "inputs": {"file": {"required": true}, "level": {"env": "LEVEL"}, "fail": {"env": "FAIL"},
    "big": {"env": "BIG"}, "sleep": {"env": "SLEEP"}},
  "maxOutputBytes": 1024, "timeout": "1s", "readOnly": true,
  "cache": `+cache+`}]}`)
}

func (p *cacheProject) write(name, data string) string {
	p.t.Helper()
	f := filepath.Join(p.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
		p.t.Fatal(err)
	}
	return f
}

func (p *cacheProject) path(name string) string {
	return filepath.Join(p.dir, filepath.FromSlash(name))
}

// serve starts mcpship serve on the manifest in the working directory
// cwd (the project's when ""), the tool's dir not being set.
func (p *cacheProject) serve(cwd string) *mcp.Client {
	p.t.Helper()
	if cwd == "" {
		cwd = p.dir
	}
	cmd := exec.Command(binPath, "serve", "--manifest", p.path("mcpship.json"), "--log-level", "debug")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+p.cacheDir, "HOME="+p.cacheDir)
	c, err := mcp.StartCommand(cmd, nil)
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(context.Background(), ""); err != nil {
		p.t.Fatalf("initialize: %v; stderr:\n%s", err, c.Stderr())
	}
	return c
}

// runRE matches the line that names a run of the tool.
var runRE = regexp.MustCompile(`run \d+\.\d+`)

// ran notes the runs res names and reports whether one is new.
func (p *cacheProject) ran(res *mcp.CallToolResult) bool {
	before := len(p.seen)
	for _, r := range runRE.FindAllString(text(res), -1) {
		p.seen[r] = true
	}
	return len(p.seen) > before
}

// call calls show and checks whether it was a hit, by the command's runs
// and by the result's _meta note, and what it printed.
func (p *cacheProject) call(c *mcp.Client, args map[string]any, wantHit bool, wantText, why string) *mcp.CallToolResult {
	p.t.Helper()
	res, err := c.CallTool(context.Background(), "show", args)
	if err != nil {
		p.t.Fatalf("%s: %v\n%s", why, err, c.Stderr())
	}
	note, _ := res.Meta["io.github.mcpship/cache"].(map[string]any)
	ran := p.ran(res)
	switch {
	case wantHit && (ran || note["hit"] != true):
		p.t.Errorf("%s: want a hit, got ran=%v _meta=%v", why, ran, res.Meta)
	case !wantHit && (!ran || note != nil):
		p.t.Errorf("%s: want a miss, got ran=%v _meta=%v", why, ran, res.Meta)
	}
	if wantText != "" && !strings.Contains(text(res), wantText) {
		p.t.Errorf("%s: result %q, want it to contain %q", why, text(res), wantText)
	}
	return res
}

func setTimes(t *testing.T, file string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(file, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestCacheHitAndMiss goes through each change that must make a call a
// miss, over stdio, in one session.
func TestCacheHitAndMiss(t *testing.T) {
	p := newCacheProject(t, `{"inputs": ["{file}", "Gemfile.lock", "sig/", "conf.yml"]}`)
	p.write("a.rb", "puts 1\n")
	p.write("Gemfile.lock", "rake (13.0)\n")
	p.write("sig/a.rbs", "class A end\n")
	c := p.serve("")
	a := map[string]any{"file": "a.rb"}

	p.call(c, a, false, "puts 1", "first call")
	res := p.call(c, a, true, "puts 1", "the same call again")
	if note := res.Meta["io.github.mcpship/cache"].(map[string]any); note["ageMs"] == nil {
		t.Errorf("the hit's note has no age: %v", note)
	}

	// The content changes in the same second, the size kept.
	p.write("a.rb", "puts 2\n")
	p.call(c, a, false, "puts 2", "content changed in the same second")
	p.call(c, a, true, "puts 2", "unchanged after that")

	// The same size, the mtime put back (touch -r, a tar extract).
	old := time.Now().Add(-time.Hour)
	setTimes(t, p.path("Gemfile.lock"), old)
	p.call(c, a, true, "", "Gemfile.lock's mtime changed, its content the same")
	p.write("Gemfile.lock", "rake (13.1)\n")
	setTimes(t, p.path("Gemfile.lock"), old)
	p.call(c, a, false, "", "Gemfile.lock edited, its size and mtime put back")

	// A touch with the same content is a hit, after a hash check.
	setTimes(t, p.path("a.rb"), time.Now().Add(-time.Minute))
	p.call(c, a, true, "puts 2", "a.rb touched, its content the same")

	// A new file under a declared folder, a dotfile too.
	p.write("sig/b.rbs", "class B end\n")
	p.call(c, a, false, "", "a new file in sig/")
	p.call(c, a, true, "", "then nothing new")
	p.write("sig/.hidden", "x")
	p.call(c, a, false, "", "a new dotfile in sig/")

	// A declared file that was absent, now created.
	p.write("conf.yml", "level: 1\n")
	p.call(c, a, false, "", "conf.yml created")

	// A symlink retargeted.
	p.write("b.rb", "puts 'b'\n")
	os.Symlink("a.rb", p.path("link.rb"))
	l := map[string]any{"file": "link.rb"}
	p.call(c, l, false, "puts 2", "the symlink, first")
	p.call(c, l, true, "puts 2", "the symlink again")
	os.Remove(p.path("link.rb"))
	os.Symlink("b.rb", p.path("link.rb"))
	p.call(c, l, false, "puts 'b'", "the symlink retargeted")

	// A deleted input.
	os.Remove(p.path("sig/b.rbs"))
	p.call(c, a, false, "", "sig/b.rbs deleted")

	// Another argument, another environment value.
	p.call(c, map[string]any{"file": "b.rb"}, false, "puts 'b'", "another file")
	p.call(c, map[string]any{"file": "a.rb", "level": "2"}, false, "", "LEVEL=2")
	p.call(c, map[string]any{"file": "a.rb", "level": "2"}, true, "", "LEVEL=2 again")
	p.call(c, map[string]any{"file": "a.rb", "level": "3"}, false, "", "LEVEL=3")

	// An mtime in the future: the content is checked, not the stat.
	future := time.Now().Add(time.Hour)
	p.write("a.rb", "puts 3\n")
	setTimes(t, p.path("a.rb"), future)
	p.call(c, a, false, "puts 3", "a.rb with an mtime in the future")
	p.write("a.rb", "puts 4\n")
	setTimes(t, p.path("a.rb"), future)
	p.call(c, a, false, "puts 4", "a.rb edited, its future mtime put back")

	// The executable replaced.
	p.call(c, a, true, "puts 4", "before the upgrade")
	p.write("tool.sh", "#!/bin/sh\n"+cacheScript+"\necho v2\n")
	p.call(c, a, false, "v2", "tool.sh replaced")

	if !strings.Contains(c.Stderr(), "result cache: hit") || !strings.Contains(c.Stderr(), "hits=") {
		t.Errorf("the debug log has no cache lines with counts:\n%s", c.Stderr())
	}
}

// TestCacheStoresOnlyWholeResults: errors (unless the tool asks),
// cut output and timed-out runs are never served again.
func TestCacheStoresOnlyWholeResults(t *testing.T) {
	p := newCacheProject(t, `{"inputs": ["{file}"]}`)
	p.write("a.rb", "puts 1\n")
	c := p.serve("")
	for _, args := range []map[string]any{
		{"file": "a.rb", "fail": "1"},
		{"file": "a.rb", "big": "1"},
		{"file": "a.rb", "sleep": "5"},
	} {
		p.call(c, args, false, "", "first")
		p.call(c, args, false, "", "again: not stored")
	}

	p.manifest(`{"inputs": ["{file}"], "errors": true}`)
	c = p.serve("")
	fail := map[string]any{"file": "a.rb", "fail": "1"}
	res := p.call(c, fail, false, "", "an error, with errors: true")
	if !res.IsError {
		t.Fatalf("not an error result: %s", text(res))
	}
	if res := p.call(c, fail, true, "", "the error again"); !res.IsError {
		t.Errorf("the stored error is not an error: %s", text(res))
	}
}

// TestCacheDiskTier: entries kept on disk serve the next session, but not
// once the manifest is edited, nor in another working directory, nor when
// the file is corrupt.
func TestCacheDiskTier(t *testing.T) {
	p := newCacheProject(t, `{"inputs": ["{file}"], "disk": true}`)
	p.write("a.rb", "puts 1\n")
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "a.rb"), []byte("puts 1\n"), 0o644)
	a := map[string]any{"file": "a.rb"}

	p.call(p.serve(""), a, false, "puts 1", "session 1")
	p.call(p.serve(""), a, true, "puts 1", "session 2, from disk")
	p.call(p.serve(other), a, false, "puts 1", "another working directory")

	files, _ := filepath.Glob(filepath.Join(p.cacheDir, "mcpship", "results", "*.json"))
	if len(files) != 2 {
		t.Fatalf("disk entries %v, want 2", files)
	}
	for _, f := range files {
		if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", f, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(filepath.Dir(files[0])); fi.Mode().Perm() != 0o700 {
		t.Errorf("the disk folder has mode %v, want 0700", fi.Mode().Perm())
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		os.WriteFile(f, data[:len(data)-10], 0o600)
	}
	p.call(p.serve(""), a, false, "puts 1", "a truncated disk entry")
	p.call(p.serve(""), a, true, "puts 1", "rewritten by that miss")

	p.manifest(`{"inputs": ["{file}"], "disk": true }`)
	p.call(p.serve(""), a, false, "puts 1", "the manifest edited")
	p.call(p.serve(""), a, true, "puts 1", "the edited manifest again")
}

// TestCacheConcurrentCallsRunOnce: identical calls at once run the
// command once.
func TestCacheConcurrentCallsRunOnce(t *testing.T) {
	p := newCacheProject(t, `{"inputs": ["{file}"]}`)
	p.write("a.rb", "puts 1\n")
	c := p.serve("")
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.CallTool(context.Background(), "show", map[string]any{"file": "a.rb", "sleep": "0.3"})
			if err != nil || !strings.Contains(text(res), "puts 1") {
				t.Errorf("call: %v %+v", err, res)
				return
			}
			mu.Lock()
			p.ran(res)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n := len(p.seen); n != 1 {
		t.Errorf("10 identical calls at once ran the command %d times, want 1", n)
	}
}

// TestCacheGoApps: the example apps keep "count" results while the files
// counted are unchanged, each over stdio as its own server.
func TestCacheGoApps(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("alpha beta\n"), 0o644)
	for _, app := range exampleApps {
		t.Run(*app.name, func(t *testing.T) {
			os.WriteFile(file, []byte("alpha beta\n"), 0o644)
			c, err := mcp.StartCommand(exec.Command(*app.path, "mcp"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			if _, err := c.Initialize(context.Background(), ""); err != nil {
				t.Fatal(err)
			}
			count := func(wantHit bool, want, why string) {
				t.Helper()
				res, err := c.CallTool(context.Background(), *app.name+"_count", map[string]any{"by": "words", "files": []string{file}})
				if err != nil {
					t.Fatal(err)
				}
				_, hit := res.Meta["io.github.mcpship/cache"]
				if hit != wantHit || !strings.Contains(text(res), want) {
					t.Errorf("%s: hit=%v %s, want hit=%v and %q", why, hit, text(res), wantHit, want)
				}
			}
			count(false, `.txt":2}`, "first count")
			count(true, `.txt":2}`, "the same count")
			os.WriteFile(file, []byte("alpha beta gamma\n"), 0o644)
			count(false, `.txt":3}`, "after an edit")
		})
	}
}
