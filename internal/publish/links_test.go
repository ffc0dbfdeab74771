package publish

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/internal/testutil"
	"go.yaml.in/yaml/v3"
)

// testEntry has what makes links hard: a space and a quote in an
// argument, a flag-like argument, non-ASCII, characters that URLs and
// shells treat specially, and environment variables.
var testEntry = Entry{
	Name:        "rigor",
	Description: "Type-check Ruby with Rigor",
	Command:     "mcpship",
	Args:        []string{"serve", "--manifest", "/home/ann/My Tools/rigor's mcpship.json", "--set", "config=a&b+c%20d#é"},
	Env:         map[string]string{"RIGOR_HOME": "/opt/rigor", "LANG": "C.UTF-8"},
}

// initEntries registers e with each client the way "mcpship init --scope
// user" does and returns each client's entry as the file holds it.
func initEntries(t *testing.T, e Entry, clients ...string) map[string]map[string]any {
	t.Helper()
	home := t.TempDir()
	env := installer.Env{
		GOOS:       runtime.GOOS,
		Getenv:     func(k string) string { return map[string]string{"HOME": home, "USERPROFILE": home}[k] },
		Exists:     func(p string) bool { _, err := os.Stat(p); return err == nil },
		ProjectDir: t.TempDir(),
	}
	out := map[string]map[string]any{}
	for _, name := range clients {
		c, err := installer.LookupAssistant(name)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := c.Target(env, installer.ScopeUser)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tg.Add(installer.Entry{Name: e.Name, Command: e.Command, Args: e.Args, Env: e.Env}, installer.Options{StateDir: filepath.Join(home, ".state")}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := os.ReadFile(tg.File)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		switch c.Format() {
		case "TOML":
			_, err = toml.Decode(string(data), &doc)
		case "YAML":
			err = yaml.Unmarshal(data, &doc)
		default:
			err = json.Unmarshal(data, &doc)
		}
		if err != nil {
			t.Fatalf("%s: %v", tg.File, err)
		}
		v := any(doc)
		for _, k := range append(tg.Container, e.Name) {
			v = v.(map[string]any)[k]
		}
		out[name] = canon(t, v).(map[string]any)
	}
	return out
}

// canon returns v as encoding/json decodes it, so that values read by
// the TOML and YAML parsers compare with JSON ones.
func canon(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v in %q", err, s)
	}
	return m
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s:\n got  %s\n want %s (the entry init writes)", what, g, w)
	}
}

// TestLinksDecodeToInitsEntries decodes each link as its assistant does
// and compares what it would install with the entry "mcpship init"
// writes for that assistant.
func TestLinksDecodeToInitsEntries(t *testing.T) {
	for _, e := range []Entry{testEntry, {Name: "plain", Command: "npx", Args: []string{"-y", "@scope/pkg@1.0"}}, {Name: "noargs", Command: "/usr/bin/tool"}} {
		inits := initEntries(t, e, "cursor", "vscode", "lmstudio", "goose")
		links := Links(e)
		for _, l := range links {
			t.Run(e.Name+"/"+l.Client, func(t *testing.T) {
				for _, raw := range []string{l.URL, l.Deeplink} {
					u, err := url.Parse(raw)
					if err != nil {
						t.Fatal(err)
					}
					switch l.Client {
					case "cursor", "lmstudio":
						q := u.Query()
						if q.Get("name") != e.Name {
							t.Errorf("%s: name %q, want %q", raw, q.Get("name"), e.Name)
						}
						cfg, err := base64.StdEncoding.DecodeString(q.Get("config"))
						if err != nil {
							t.Fatalf("%s: config is not base64: %v", raw, err)
						}
						same(t, raw, decodeJSON(t, string(cfg)), inits[l.Client])
					case "vscode", "vscode-insiders":
						if u.Scheme == "https" { // the redirect carries the deeplink
							if u, err = url.Parse(u.Query().Get("url")); err != nil {
								t.Fatal(err)
							}
						}
						wantScheme := map[string]string{"vscode": "vscode", "vscode-insiders": "vscode-insiders"}[l.Client]
						if u.Scheme != wantScheme || u.Opaque != "mcp/install" {
							t.Fatalf("%s: want %s:mcp/install?..., got scheme %q path %q", raw, wantScheme, u.Scheme, u.Opaque)
						}
						q, err := url.QueryUnescape(u.RawQuery)
						if err != nil {
							t.Fatal(err)
						}
						m := decodeJSON(t, q)
						if m["name"] != e.Name {
							t.Errorf("%s: name %v, want %q", raw, m["name"], e.Name)
						}
						delete(m, "name")
						same(t, raw, m, inits["vscode"])
					case "goose":
						// What Goose's deeplink.ts builds from the link's query.
						q := u.Query()
						envs := map[string]any{}
						for _, kv := range q["env"] {
							k, _, _ := strings.Cut(kv, "=")
							envs[k] = ""
						}
						got := map[string]any{"name": q.Get("name"), "cmd": q.Get("cmd"), "args": canon(t, q["arg"]), "type": "stdio", "timeout": q.Get("timeout"), "envs": slices.Sorted(maps.Keys(envs))}
						want := inits["goose"]
						want = map[string]any{"name": want["name"], "cmd": want["cmd"], "args": want["args"], "type": want["type"], "timeout": "300",
							"envs": slices.Sorted(maps.Keys(want["envs"].(map[string]any)))}
						if a, _ := want["args"].([]any); len(a) == 0 {
							want["args"] = nil
							if len(q["arg"]) == 0 {
								got["args"] = nil
							}
						}
						same(t, raw, got, want)
					default:
						t.Fatalf("no check for %s", l.Client)
					}
				}
			})
		}
		gotClients := make([]string, len(links))
		for i, l := range links {
			gotClients[i] = l.Client
		}
		want := []string{"cursor", "vscode", "vscode-insiders", "lmstudio"}
		if e.Command == "npx" {
			want = append(want, "goose")
		}
		if !slices.Equal(gotClients, want) {
			t.Errorf("%s: links for %v, want %v", e.Name, gotClients, want)
		}
	}
}

// shellWords splits a command line as a POSIX shell does, by asking one.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `printf '%s\0' `+line).Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// TestOneLinersDecodeToInitsEntries splits each one-liner as the shell
// will and compares what the client is told to register with the entry
// init writes. (tests/realclients runs them through the clients.)
func TestOneLinersDecodeToInitsEntries(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no POSIX shell to split the one-liners")
	}
	e := testEntry
	inits := initEntries(t, e, "claude-code", "codex", "gemini", "vscode")
	for _, o := range OneLiners(e) {
		t.Run(o.Client, func(t *testing.T) {
			w := shellWords(t, o.Line)
			switch o.Client {
			case "claude-code":
				if !slices.Equal(w[:5], []string{"claude", "mcp", "add-json", "--scope", "user"}) || w[5] != e.Name || len(w) != 7 {
					t.Fatalf("got %q", w)
				}
				same(t, o.Line, decodeJSON(t, w[6]), inits[o.Client])
			case "vscode":
				if !slices.Equal(w[:2], []string{"code", "--add-mcp"}) || len(w) != 3 {
					t.Fatalf("got %q", w)
				}
				m := decodeJSON(t, w[2])
				if m["name"] != e.Name {
					t.Errorf("name %v", m["name"])
				}
				delete(m, "name")
				same(t, o.Line, m, inits[o.Client])
			case "codex", "gemini":
				// codex mcp add NAME [--env K=V]... -- CMD ARGS...
				// gemini mcp add --scope user [-e K=V]... NAME CMD -- ARGS...
				got := map[string]any{}
				env := map[string]any{}
				rest := w[3:]
				if o.Client == "gemini" {
					rest = rest[2:]
				} else {
					got["name"], rest = rest[0], rest[1:]
				}
				for len(rest) > 1 && (rest[0] == "--env" || rest[0] == "-e") {
					k, v, _ := strings.Cut(rest[1], "=")
					env[k] = v
					rest = rest[2:]
				}
				if o.Client == "gemini" {
					got["name"], rest = rest[0], rest[1:]
					rest = slices.Delete(rest, 1, 2) // the "--" after the command
				} else {
					rest = rest[1:] // "--"
				}
				got["command"], got["args"] = rest[0], canon(t, rest[1:])
				got["env"] = env
				want := maps.Clone(inits[o.Client])
				want["name"] = e.Name
				same(t, o.Line, got, want)
			default:
				t.Fatalf("no check for %s", o.Client)
			}
		})
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, Entry{Name: "rigor", Command: "mcpship", Args: []string{"serve", "--manifest", "/opt/rigor/mcpship.json"}}); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "links.golden.md"), b.Bytes())
}
