package tests

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/internal/testutil"
	"github.com/mcpship/mcpship/mcp"
)

// TestWrapReadOnlyToolsChangeNothing drafts real programs, serves each
// draft in a scratch folder (with a home folder of its own), and calls
// every read-only tool: once with its positional arguments filled in, then
// once more with each of its switches turned on. No call of a read-only
// tool may change either folder, but for the cache a program keeps for
// itself in $XDG_CACHE_HOME (pre-commit's, black's). The writers among the tools drafted as
// not read-only are called too, and must change the scratch folder: the
// check can see a change.
func TestWrapReadOnlyToolsChangeNothing(t *testing.T) {
	python3, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	sqlite := map[string]any{"path": "db.sqlite", "dbtable": "t", "table": "t", "tables": []string{"t"}}
	programs := []struct {
		argv []string
		args map[string]map[string]any // a tool's arguments, where the defaults do not fit
		// writers are tools drafted as not read-only that are called, and
		// must change the scratch folder.
		writers []string
	}{
		{argv: []string{"/usr/bin/gzip"}, writers: []string{"gzip"}},
		{argv: []string{"/usr/bin/xz"}, writers: []string{"xz"}},
		{argv: []string{"/usr/bin/black"}, args: map[string]map[string]any{"black": {"src": []string{"d.py"}}}, writers: []string{"black"}},
		{argv: []string{"/usr/bin/sd"}, args: map[string]map[string]any{"sd": {"find": "needle", "replace-with": "pin", "files": []string{"a.txt"}}}, writers: []string{"sd"}},
		{argv: []string{python3, "-m", "json.tool"}, args: map[string]map[string]any{"python3_m_json_tool": {"infile": "c.json"}}},
		{argv: []string{"/usr/bin/yamllint"}, args: map[string]map[string]any{"yamllint": {"file_or_dir": []string{"y.yaml"}}}},
		{argv: []string{"/usr/bin/fdfind"}},
		{argv: []string{"/usr/bin/rg"}},
		{argv: []string{"/usr/bin/grep"}},
		{argv: []string{"/usr/bin/sort"}},
		{argv: []string{"/usr/bin/du"}},
		{argv: []string{"/usr/bin/wc"}},
		{argv: []string{"/usr/bin/hexyl"}},
		{argv: []string{"/usr/bin/find"}, args: map[string]map[string]any{"find": {"path": []string{"."}}}},
		{argv: []string{"/usr/bin/gdu"}, args: map[string]map[string]any{"gdu": {"directory_to_scan": ".", "non-interactive": true, "no-progress": true}}},
		// One command at a time: sqlite-utils, pre-commit and hugo have
		// dozens, and each help run starts Python or hugo.
		{argv: []string{"/usr/bin/sqlite-utils", "tables"}, args: map[string]map[string]any{"": sqlite}},
		{argv: []string{"/usr/bin/sqlite-utils", "rows"}, args: map[string]map[string]any{"": sqlite}},
		{argv: []string{"/usr/bin/sqlite-utils", "optimize"}, args: map[string]map[string]any{"": sqlite}}, // VACUUM: not read-only
		{argv: []string{"/usr/bin/sqlite-utils", "insert"}, args: map[string]map[string]any{"sqlite-utils_insert": {"path": "db.sqlite", "table": "t2", "file": "c.json"}},
			writers: []string{"sqlite-utils_insert"}},
		{argv: []string{"/usr/bin/pre-commit", "validate-config"}, args: map[string]map[string]any{"pre-commit_validate-config": {"filenames": []string{".pre-commit-config.yaml"}}}},
		{argv: []string{"/usr/bin/hugo", "list", "all"}},
		{argv: []string{"/usr/bin/hugo", "new", "site"}, args: map[string]map[string]any{"hugo_new_site": {"path": "site"}}, writers: []string{"hugo_new_site"}},
	}
	for _, p := range programs {
		t.Run(strings.Join(append([]string{filepath.Base(p.argv[0])}, p.argv[1:]...), "_"), func(t *testing.T) {
			t.Parallel()
			prog := p.argv[0]
			if prog != python3 {
				prog = wrapProgram(t, prog)
			}
			argv := append([]string{prog}, p.argv[1:]...)
			d := wrapDraft(t, append([]string{"--"}, argv...)...)
			work, home := t.TempDir(), t.TempDir()
			testutil.WriteFile(t, work, "a.txt", "hay\nneedle\nhay\n")
			testutil.WriteFile(t, work, "b.txt", "b\n")
			testutil.WriteFile(t, work, "c.json", `[{"a": 1, "b": "x"}]`)
			testutil.WriteFile(t, work, "d.py", "x = [1,\n  2]\n")
			testutil.WriteFile(t, work, "y.yaml", "a: 1\nb: [1, 2]\n")
			testutil.WriteFile(t, work, ".pre-commit-config.yaml", "repos: []\n")
			if out, err := exec.Command("/usr/bin/sqlite3", filepath.Join(work, "db.sqlite"), "create table t(a, b); insert into t values (1, 'x');").CombinedOutput(); err != nil {
				t.Fatalf("sqlite3: %v\n%s", err, out)
			}
			c := serveIn(t, work, home, d.file)
			changed := map[string]bool{}
			for _, tl := range d.Tools {
				readOnly := tl.ReadOnly == nil || *tl.ReadOnly
				if !readOnly && !slices.Contains(p.writers, tl.Name) {
					continue // not read-only, and not known to be safe to run here
				}
				base := defaultArgs(tl.Inputs, p.args[""])
				for k, v := range p.args[tl.Name] {
					base[k] = v
				}
				calls := []map[string]any{base}
				if readOnly {
					for _, name := range sortedKeys(tl.Inputs) {
						if tl.Inputs[name]["type"] == "boolean" && base[name] == nil {
							args := clone(base)
							args[name] = true
							calls = append(calls, args)
						}
					}
				}
				for _, args := range calls {
					before, beforeHome := snapshot(t, work), snapshot(t, home)
					res, err := c.CallTool(context.Background(), tl.Name, args)
					if err != nil {
						t.Fatalf("%s %v: %v", tl.Name, args, err)
					}
					diff := append(diffSnapshots(before, snapshot(t, work)), diffSnapshots(beforeHome, snapshot(t, home))...)
					diff = slices.DeleteFunc(diff, func(p string) bool { return strings.HasPrefix(p, ".cache") })
					switch {
					case readOnly && len(diff) > 0:
						t.Errorf("%s, drafted read-only, changed %s when called with %v:\n%s", tl.Name, strings.Join(diff, ", "), args, text(res))
					case !readOnly && len(diff) > 0:
						changed[tl.Name] = true
					}
				}
			}
			for _, w := range p.writers {
				if !changed[w] {
					t.Errorf("%s, drafted as not read-only, changed nothing: the check cannot see a change, or the call is wrong", w)
				}
			}
		})
	}
}

// defaultArgs fills in a tool's positional arguments (inputs without a
// flag): a list gets a.txt, a pattern needle, anything else a.txt.
func defaultArgs(inputs map[string]map[string]any, given map[string]any) map[string]any {
	args := map[string]any{}
	for name, in := range inputs {
		if v, ok := given[name]; ok {
			args[name] = v
			continue
		}
		if in["flag"] != nil {
			continue
		}
		switch {
		case strings.Contains(name, "pattern") || strings.Contains(name, "regex") || name == "find" || name == "q":
			args[name] = "needle"
		case in["type"] == "array":
			args[name] = []string{"a.txt"}
		default:
			args[name] = "a.txt"
		}
	}
	return args
}

func clone(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// serveIn serves a manifest in dir, with HOME (and the XDG folders) in home.
func serveIn(t *testing.T, dir, home, manifest string) *mcp.Client {
	t.Helper()
	cmd := exec.Command(binPath, "serve", "--manifest", manifest)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
	c, err := mcp.StartCommand(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(context.Background(), ""); err != nil {
		t.Fatalf("initialize: %v; stderr:\n%s", err, c.Stderr())
	}
	return c
}

// snapshot maps each file and folder under dir to its kind, size and
// content's hash.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if e.IsDir() {
			out[rel] = "dir"
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			out[rel] = "unreadable"
			return nil
		}
		sum := sha256.Sum256(b)
		out[rel] = e.Type().String() + " " + hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(before, after map[string]string) []string {
	var diff []string
	for p, v := range after {
		switch w, ok := before[p]; {
		case !ok:
			diff = append(diff, p+" (new)")
		case w != v:
			diff = append(diff, p+" (changed)")
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			diff = append(diff, p+" (removed)")
		}
	}
	sort.Strings(diff)
	return diff
}
