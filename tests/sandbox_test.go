//go:build linux

package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	landlock "github.com/mcpship/mcpship/internal/sandbox"
)

// needSandbox skips the test where this kernel has no Landlock, or one
// too old to confine TCP.
func needSandbox(t *testing.T) int {
	t.Helper()
	v, why := landlock.Available()
	if v < 4 {
		t.Skipf("the read-only sandbox needs Landlock ABI 4 for these tests: %s (ABI %d)", why, v)
	}
	return v
}

// sandboxProject is a working folder with files, a $HOME and a path in
// the shared /tmp for tools to write to, and a loopback port for them to
// connect to.
type sandboxProject struct {
	dir, home, shared string
	port              string
}

func newSandboxProject(t *testing.T) *sandboxProject {
	t.Helper()
	p := &sandboxProject{dir: t.TempDir(), home: t.TempDir()}
	p.shared = filepath.Join(os.TempDir(), fmt.Sprintf("mcpship-sandbox-test-%d", os.Getpid()))
	os.Remove(p.shared)
	t.Cleanup(func() { os.Remove(p.shared) })
	for name, data := range map[string]string{"keep.txt": "kept\n", "sub/inner.txt": "inner\n"} {
		f := filepath.Join(p.dir, name)
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	_, p.port, _ = net.SplitHostPort(l.Addr().String())
	return p
}

// scripts are the shell scripts of the tools that write or connect, by
// tool name; each fails when refused.
func (p *sandboxProject) scripts() map[string]string {
	connect := fmt.Sprintf(`python3 -c 'import socket; s = socket.create_connection(("127.0.0.1", %s)); print(s.recv(6).decode().strip())'`, p.port)
	return map[string]string{
		"write_here":   `echo new > new.txt`,
		"append":       `echo more >> keep.txt`,
		"write_home":   `echo x > "$HOME/.toolrc"`,
		"write_tmp":    `echo x > ` + p.shared,
		"rename":       `mv keep.txt moved.txt`,
		"remove":       `rm sub/inner.txt`,
		"mkdir":        `mkdir made`,
		"child_writes": `python3 -c 'import subprocess; subprocess.run(["sh", "-c", "echo x > child.txt"], check=True)'`,
		"connect":      connect,
	}
}

// manifest writes a manifest of the tools of scripts, read-only or not,
// and returns its path.
func (p *sandboxProject) manifest(t *testing.T, readOnly bool, extra ...string) string {
	t.Helper()
	var tools []string
	for name, script := range p.scripts() {
		tools = append(tools, fmt.Sprintf(`{"name": %q, "description": "d", "command": ["sh", "-c", %q], "readOnly": %v,
		  "dir": %q, "env": {"HOME": %q}, "output": "text"}`, name, script, readOnly, p.dir, p.home))
	}
	tools = append(tools, extra...)
	file := filepath.Join(t.TempDir(), "mcpship.json")
	if err := os.WriteFile(file, []byte(`{"tools": [`+strings.Join(tools, ",\n")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// snapshot lists every file under the project, its $HOME and the
// shared path, with its content.
func (p *sandboxProject) snapshot(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, root := range []string{p.dir, p.home} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			data := ""
			if !d.IsDir() {
				b, _ := os.ReadFile(path)
				data = string(b)
			}
			out = append(out, path+"="+data)
			return nil
		})
	}
	if _, err := os.Lstat(p.shared); err == nil {
		out = append(out, p.shared)
	}
	sort.Strings(out)
	return out
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("the child and connection cases run python3")
	}
}

// TestSandboxRefusesWrites: read-only tools that write in their working
// folder, in $HOME or in the shared /tmp, rename, remove or make
// something, start a child that writes, or connect to a loopback port
// are each refused, with an isError result that says so, and nothing on
// disk changes. Declared not read-only, the same tools succeed.
func TestSandboxRefusesWrites(t *testing.T) {
	needSandbox(t)
	needPython(t)
	p := newSandboxProject(t)
	c := serve(t, "--manifest", p.manifest(t, true))
	before := p.snapshot(t)
	for name := range p.scripts() {
		res := callTool(t, c, name, map[string]any{})
		isError(t, res, "blocked by the read-only sandbox: ")
		if after := p.snapshot(t); !equal(after, before) {
			t.Errorf("%s changed the disk though refused:\nbefore %q\nafter  %q", name, before, after)
		}
	}

	c = serve(t, "--manifest", p.manifest(t, false))
	for name := range p.scripts() {
		if res := callTool(t, c, name, map[string]any{}); res.IsError {
			t.Errorf("%s, not read-only: %s", name, text(res))
		}
	}
	if after := p.snapshot(t); equal(after, before) {
		t.Errorf("the tools that are not read-only changed nothing: %q", after)
	}
}

func equal(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// TestSandboxAllows: a read-only tool reads anywhere and writes in its
// private TMPDIR, which is gone after the call; with "openWorld" it may
// connect. tools/list says how each read-only tool is confined.
func TestSandboxAllows(t *testing.T) {
	v := needSandbox(t)
	needPython(t)
	p := newSandboxProject(t)
	connect := p.scripts()["connect"]
	file := p.manifest(t, true,
		`{"name": "use_tmp", "description": "d", "command": ["sh", "-c", "echo scratch > \"$TMPDIR/f\" && cat \"$TMPDIR/f\" keep.txt /dev/null > /dev/null && mktemp -d > /dev/null && echo \"$TMPDIR\""],
		  "readOnly": true, "dir": `+jsonString(p.dir)+`, "output": "text"}`,
		`{"name": "fetch", "description": "d", "command": ["sh", "-c", `+jsonString(connect)+`], "readOnly": true, "openWorld": true, "output": "text"}`,
		`{"name": "writer", "description": "d", "command": ["true"], "readOnly": false}`)
	c := serve(t, "--manifest", file)

	res := callTool(t, c, "use_tmp", map[string]any{})
	ok(t, res)
	tmp := strings.TrimSpace(text(res))
	if !strings.HasPrefix(tmp, os.TempDir()) || tmp == os.TempDir() {
		t.Errorf("TMPDIR %q is not a private folder in %s", tmp, os.TempDir())
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the private TMPDIR %s is left after the call: %v", tmp, err)
	}
	if res := callTool(t, c, "fetch", map[string]any{}); res.IsError || strings.TrimSpace(text(res)) != "hello" {
		t.Errorf("an openWorld read-only tool could not connect: %s", text(res))
	}

	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("landlock-v%d", v)
	for _, tl := range tools {
		got, _ := tl.Meta["io.mcpship/sandbox"].(string)
		switch {
		case tl.Name == "writer" && got != "":
			t.Errorf("writer, not read-only, has _meta sandbox %q", got)
		case tl.Name != "writer" && got != want:
			t.Errorf("%s has _meta sandbox %q, want %q", tl.Name, got, want)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestSandboxWarmWorker: the warm worker of a read-only tool is confined
// as its cold runs are.
func TestSandboxWarmWorker(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	w := `{"command": ["workerstandin", "--persistent_worker"]}`
	file := filepath.Join(dir, "mcpship.json")
	os.WriteFile(file, []byte(`{"tools": [{"name": "warm", "description": "d", "command": ["workerstandin", "{words}"],
	  "inputs": {"words": {"type": "array", "required": true}}, "readOnly": true, "dir": `+jsonString(dir)+`, "worker": `+w+`}]}`), 0o644)
	c := serve(t, "--manifest", file)
	pid, _ := whoami(t, c, "warm")
	before, _ := os.ReadDir(dir)
	res := callTool(t, c, "warm", map[string]any{"words": []string{"barrier", dir, "1"}})
	isError(t, res, "blocked by the read-only sandbox: ")
	if after, _ := os.ReadDir(dir); len(after) != len(before) {
		t.Errorf("the confined worker wrote in %s: %v", dir, after)
	}
	if again, _ := whoami(t, c, "warm"); again != pid {
		t.Errorf("the calls went to two workers, %d and %d: the refused one was not served warm", pid, again)
	}
}

// TestServeRequireSandbox: serve --require-sandbox refuses, exit 64, to
// serve a read-only tool that would run unconfined (mcpship's own, which
// run inside its process), naming it, and serves confined ones.
func TestServeRequireSandbox(t *testing.T) {
	needSandbox(t)
	out, err := exec.Command(binPath, "serve", "--require-sandbox").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 64 || !strings.Contains(string(out), "mcpship_version would run outside the read-only sandbox") {
		t.Errorf("serve --require-sandbox with mcpship's own tools: %v\n%s", err, out)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "mcpship.json")
	os.WriteFile(file, []byte(`{"tools": [{"name": "look", "description": "d", "command": ["true"], "readOnly": true}]}`), 0o644)
	c := serve(t, "--require-sandbox", "--manifest", file)
	ok(t, callTool(t, c, "look", map[string]any{}))
}

// TestWrapHelpRunsConfined: the programs wrap runs to read their help
// run in the read-only sandbox: a help that writes changes nothing.
func TestWrapHelpRunsConfined(t *testing.T) {
	needSandbox(t)
	dir, elsewhere := t.TempDir(), t.TempDir()
	touched := filepath.Join(elsewhere, "touched")
	prog := filepath.Join(elsewhere, "loud")
	script := "#!/bin/sh\necho x > " + touched + "\necho 'Usage: loud [OPTIONS] FILE'\necho\necho 'Options:'\necho '  -v, --verbose  say more'\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runMcpship(dir, "wrap", "--", prog)
	if _, statErr := os.Stat(touched); statErr == nil {
		t.Errorf("the help run wrote %s (wrap: %v)\n%s\n%s", touched, err, stdout, stderr)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "mcpship.json")); statErr != nil {
		t.Errorf("wrap wrote no draft: %v\n%s", err, stderr)
	}
}
