package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// sandbox is a temporary home and project directory for running mcpship.
type sandbox struct {
	home, proj string
}

func newSandbox(t *testing.T) sandbox {
	t.Helper()
	root := t.TempDir()
	s := sandbox{home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj")}
	for _, d := range []string{s.home, s.proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func (s sandbox) cmd(args ...string) *exec.Cmd {
	c := exec.Command(binPath, args...)
	c.Dir = s.proj
	c.Env = []string{"HOME=" + s.home, "XDG_CONFIG_HOME=" + filepath.Join(s.home, ".config"), "PATH=" + os.Getenv("PATH")}
	if coverDir != "" {
		c.Env = append(c.Env, "GOCOVERDIR="+coverDir)
	}
	return c
}

func (s sandbox) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := s.cmd(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("mcpship %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestConcurrentInit starts 16 mcpship processes at once, each adding a
// different server to the same files; every one must land.
func TestConcurrentInit(t *testing.T) {
	const n = 16
	for _, client := range []string{"claude-code", "codex", "zed"} {
		t.Run(client, func(t *testing.T) {
			s := newSandbox(t)
			scope := "project"
			var wg sync.WaitGroup
			errs := make([]error, n)
			outs := make([][]byte, n)
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := s.cmd("init", "--client", client, "--scope", scope, "--name", fmt.Sprintf("server%02d", i), "--command", binPath)
					<-start
					outs[i], errs[i] = c.CombinedOutput()
				}()
			}
			close(start)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("process %d: %v\n%s", i, err, outs[i])
				}
			}
			var listed []struct {
				Client, Scope string
				Servers       []struct{ Name string }
			}
			if err := json.Unmarshal([]byte(s.run(t, "list", "--json")), &listed); err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, r := range listed {
				if r.Client == client && r.Scope == scope {
					for _, sv := range r.Servers {
						got[sv.Name] = true
					}
				}
			}
			for i := range n {
				if name := fmt.Sprintf("server%02d", i); !got[name] {
					t.Errorf("%s is missing after concurrent inits (have %v)", name, got)
				}
			}
		})
	}
}

// Original files for the byte-for-byte round trips, by format. KEY is
// replaced by the client's servers key.
var seeds = map[string]string{
	"JSON":  "\ufeff{\r\n    \"numStartups\": 7,\r\n    \"KEY\": {\r\n        \"other\": {\r\n            \"command\": \"npx\",\r\n            \"args\": [\"-y\", \"x\"],\r\n            \"disabled\": true\r\n        }\r\n    },\r\n    \"tips\": {\"a\": [1, 2.50]}\r\n}\r\n",
	"JSONC": "\ufeff// settings\r\n{\r\n  \"theme\": \"dark\", /* keep */\r\n  \"KEY\": {\r\n    // \"old\": {\"command\": \"x\"},\r\n    \"other\": {\r\n      \"command\": \"x\", // trailing\r\n    },\r\n  },\r\n}\r\n",
	"TOML":  "# Codex\r\nmodel = \"o3\"\r\n\r\n[mcp_servers.other]\r\ncommand = \"npx\"\r\nfuture_unknown_key = 1\r\n\r\n[mcp_servers.other.tools.search]\r\nenabled = false\r\n",
	"YAML":  "# goose\nGOOSE_PROVIDER: openai\nextensions:\n  other:\n    enabled: true # builtin\n    type: builtin\nGOOSE_MODEL: gpt-4o\n",
	"YAMLL": "name: My Assistant\nmcpServers:\n  - name: other\n    command: npx\n    args: [\"-y\", \"x\"]\nmodels: []\n",
	"none":  "",
}

// TestRoundTripBytes registers and removes a server for every client and
// scope, in files that existed (with comments, BOM, CRLF where the format
// allows) and in files that did not; files that existed must come back
// byte for byte.
func TestRoundTripBytes(t *testing.T) {
	s := newSandbox(t)
	var listed []struct {
		Client, Scope, File string
	}
	if err := json.Unmarshal([]byte(s.run(t, "list", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	formats := map[string]string{
		"codex": "TOML", "goose": "YAML", "continue": "YAMLL",
		"vscode": "JSONC", "zed": "JSONC", "gemini": "JSONC", "opencode": "JSONC",
	}
	keys := map[string]string{"vscode": "servers", "zed": "context_servers", "opencode": "mcp"}
	for _, r := range listed {
		format := formats[r.Client]
		if format == "" {
			format = "JSON"
		}
		key := keys[r.Client]
		if key == "" {
			key = "mcpServers"
		}
		for _, seed := range []string{format, "none"} {
			orig := strings.ReplaceAll(seeds[seed], "KEY", key)
			if seed == "none" {
				os.Remove(r.File)
			} else {
				if r.Client == "claude-code" && r.Scope == "local" {
					orig = strings.Replace(orig, `"numStartups": 7,`, `"projects": {"/elsewhere": {"mcpServers": {}}},`, 1)
				}
				if err := os.MkdirAll(filepath.Dir(r.File), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(r.File, []byte(orig), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"--client", r.Client, "--scope", r.Scope, "--name", "my.server"}
			s.run(t, append([]string{"init", "--command", binPath, "--env", "TOKEN=a,b"}, args...)...)
			added, err := os.ReadFile(r.File)
			if err != nil {
				t.Fatalf("%s %s: %v", r.Client, r.Scope, err)
			}
			if !strings.Contains(string(added), binPath) {
				t.Errorf("%s %s: entry not written:\n%s", r.Client, r.Scope, added)
			}
			if seed != "none" && !strings.Contains(string(added), "other") {
				t.Errorf("%s %s: other server lost:\n%s", r.Client, r.Scope, added)
			}
			s.run(t, append([]string{"remove"}, args...)...)
			back, err := os.ReadFile(r.File)
			if err != nil {
				t.Fatal(err)
			}
			if seed != "none" && string(back) != orig {
				t.Errorf("%s %s: init+remove changed the file\n--- before\n%q\n--- after\n%q", r.Client, r.Scope, orig, back)
			}
			os.Remove(r.File)
		}
	}
}

// TestInitLargeConfig times init and remove in a 1 MiB ~/.claude.json
// with 1,000 servers, and checks the rest of the file is kept.
func TestInitLargeConfig(t *testing.T) {
	s := newSandbox(t)
	var b strings.Builder
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "    \"srv%04d\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@scope/server-%d\"],\n      \"env\": {\"PAD\": %q}\n    },\n", i, i, strings.Repeat("x", 800))
	}
	b.WriteString("    \"last\": {\"command\": \"x\"}\n  }\n}\n")
	file := filepath.Join(s.home, ".claude.json")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s.run(t, "init", "--scope", "user", "--command", binPath)
	added := time.Since(start)
	start = time.Now()
	s.run(t, "remove", "--scope", "user")
	removed := time.Since(start)
	t.Logf("%d KiB, 1001 servers: init %v, remove %v", b.Len()>>10, added, removed)
	if got, _ := os.ReadFile(file); string(got) != b.String() {
		t.Error("init+remove changed the large file")
	}
}

// TestExitCodes checks that command-line mistakes exit 64 and refused
// files exit 1.
func TestExitCodes(t *testing.T) {
	s := newSandbox(t)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"init", "--client", "nosuch"}, 64},
		{[]string{"init", "--client", "windsurf", "--scope", "project"}, 64},
		{[]string{"init", "--env", "NOEQUALS"}, 64},
		{[]string{"list", "extra"}, 64},
		{[]string{"init", "--manifest", "nope.json"}, 64},
		{[]string{"init", "--command", "/nonexistent/mcpship"}, 64},
		{[]string{"restore", "--client", "nosuch"}, 64},
		{[]string{"completion", "tcsh"}, 64},
		{[]string{"manifest", "check", "nope.json"}, 1},
		{[]string{"init", "--all", "--scope", "local"}, 1},
	} {
		out, err := s.cmd(c.args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.code {
			t.Errorf("mcpship %s: %v, want exit status %d", strings.Join(c.args, " "), err, c.code)
		}
		// The pointer to help follows usage errors, and only them.
		if hint := strings.Contains(string(out), "Run 'mcpship help' for usage."); hint != (c.code == 64) {
			t.Errorf("mcpship %s printed\n%s\nwant the help hint only for exit status 64", strings.Join(c.args, " "), out)
		}
	}
	if err := os.WriteFile(filepath.Join(s.proj, ".mcp.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := s.cmd("init").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || strings.Contains(string(out), "mcpship help") {
		t.Errorf("init into a broken file: %v, want exit status 1 and no help hint\n%s", err, out)
	}
}

// TestHostExitCodes checks that a host app's init, remove and doctor keep
// the conventions: command-line mistakes exit 64, failures 1.
func TestHostExitCodes(t *testing.T) {
	s := newSandbox(t)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"init", "--client", "nosuch"}, 64},
		{[]string{"init", "--scope", "global"}, 64},
		{[]string{"init", "--name", ""}, 64},
		{[]string{"init", "--nosuchflag"}, 64},
		{[]string{"remove", "extra"}, 64},
		{[]string{"doctor", "--timeout", "0s"}, 64},
	} {
		cmd := s.cmd(c.args...)
		cmd.Path, cmd.Args[0] = goappPath, goappPath
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.code {
			t.Errorf("goapp %s: %v, want exit status %d", strings.Join(c.args, " "), err, c.code)
		}
	}
	if err := os.WriteFile(filepath.Join(s.proj, ".mcp.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := s.cmd("init")
	cmd.Path, cmd.Args[0] = goappPath, goappPath
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.HasPrefix(string(out), "goapp: ") {
		t.Errorf("goapp init into a broken file: %v, want exit status 1 and a goapp: message\n%s", err, out)
	}
}

// TestBrokenFileAdvisesRestoreOnlyWithABackup runs init on a
// ~/.claude.json that does not parse: with no backup of it, the error must
// not send the user to 'mcpship restore'; once an earlier edit left a
// backup, it does.
func TestBrokenFileAdvisesRestoreOnlyWithABackup(t *testing.T) {
	s := newSandbox(t)
	file := filepath.Join(s.home, ".claude.json")
	initArgs := []string{"init", "--client", "claude-code", "--scope", "user", "--name", "demo", "--", "/bin/true"}
	broken := []byte("{\"projects\": {,}\n")
	try := func() string {
		t.Helper()
		if err := os.WriteFile(file, broken, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := s.cmd(initArgs...).CombinedOutput()
		if err == nil {
			t.Fatalf("init on a broken file succeeded:\n%s", out)
		}
		if got, _ := os.ReadFile(file); string(got) != string(broken) {
			t.Fatalf("init changed the broken file to:\n%s", got)
		}
		return string(out)
	}
	if out := try(); strings.Contains(out, "mcpship restore") || !strings.Contains(out, "no backup") {
		t.Errorf("with no backup, init said:\n%s", out)
	}
	if err := os.WriteFile(file, []byte("{\"projects\": {}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.run(t, initArgs...) // backs the file up
	if out := try(); !strings.Contains(out, "mcpship restore") {
		t.Errorf("with a backup, init did not point to 'mcpship restore':\n%s", out)
	}
}

// TestInitAllIgnoresFilesMcpshipCreated registers a server for Gemini CLI
// on a machine without it, which creates ~/.gemini/settings.json: a later
// 'init --all' must not take that file for Gemini CLI being installed,
// until something other than mcpship changes it.
func TestInitAllIgnoresFilesMcpshipCreated(t *testing.T) {
	s := newSandbox(t)
	if err := os.MkdirAll(filepath.Join(s.home, ".cursor"), 0o755); err != nil { // Cursor is installed
		t.Fatal(err)
	}
	s.run(t, "init", "--client", "gemini", "--scope", "user", "--name", "first", "--", "/bin/true")
	clients := func() []string {
		t.Helper()
		var chs []struct{ Client string }
		out := s.run(t, "init", "--all", "--scope", "user", "--name", "second", "--dry-run", "--json", "--", "/bin/true")
		if err := json.Unmarshal([]byte(out), &chs); err != nil {
			t.Fatalf("init --all --json: %v\n%s", err, out)
		}
		var names []string
		for _, ch := range chs {
			names = append(names, ch.Client)
		}
		return names
	}
	if got := clients(); fmt.Sprint(got) != "[cursor]" {
		t.Errorf("init --all after mcpship created Gemini CLI's file chose %v, want [cursor]", got)
	}
	file := filepath.Join(s.home, ".gemini", "settings.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Gemini CLI runs and writes its own settings.
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), "{", "{\n  \"ui\": {\"theme\": \"GitHub\"},", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := clients(); fmt.Sprint(got) != "[cursor gemini]" {
		t.Errorf("init --all once Gemini CLI changed its file chose %v, want [cursor gemini]", got)
	}
}

// TestProjectFileWarnsOfAbsolutePaths registers servers in the project's
// .mcp.json, a file meant to be committed: an absolute path in the command
// or its arguments gets a warning on stderr, a command on PATH with a
// relative path none, and the same absolute paths in a file of the user's
// own (--scope local) none.
func TestProjectFileWarnsOfAbsolutePaths(t *testing.T) {
	s := newSandbox(t)
	for _, c := range []struct {
		args []string
		warn []string
	}{
		{[]string{"init", "--name", "a"}, []string{"the command " + binPath + " is an absolute path on this machine", "--command mcpship"}},
		{[]string{"init", "--name", "b", "--", "/bin/sh", "--config=/home/me/srv.json"}, []string{"the command /bin/sh is an absolute path", "argument 1 of the command, /home/me/srv.json, is an absolute path"}},
		{[]string{"init", "--name", "c", "--", "mcpship", "serve", "--manifest", "tools/mcpship.json"}, nil},
		{[]string{"init", "--name", "d", "--scope", "local", "--", "/bin/sh"}, nil},
	} {
		out, err := s.cmd(c.args...).CombinedOutput()
		if err != nil {
			t.Fatalf("mcpship %q: %v\n%s", c.args, err, out)
		}
		for _, w := range c.warn {
			if !strings.Contains(string(out), w) {
				t.Errorf("mcpship %q does not warn %q:\n%s", c.args, w, out)
			}
		}
		if c.warn == nil && strings.Contains(string(out), "warning") {
			t.Errorf("mcpship %q warns:\n%s", c.args, out)
		}
	}
}
