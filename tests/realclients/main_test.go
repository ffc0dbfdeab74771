// Package realclients tests mcpship against MCP clients that others wrote:
// the official Go SDK, mcp-go, the TypeScript SDK, the MCP Inspector,
// Claude Code, Gemini CLI and Codex; and its deployment examples against
// the tools that run them: haproxy, compose-go and the Kubernetes API
// types.
//
// It is a module of its own so that the mcpship binary never depends on the
// client libraries. TestMain builds the real binary from the repository
// root; the Node clients come from scripts/install-clients.sh, which
// installs them into $MCPSHIP_CACHE/clients (default
// ~/.cache/mcpship/clients). A test whose client is not installed there
// skips, saying so loudly.
package realclients

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

var (
	// repoRoot is the root of the mcpship repository.
	repoRoot string
	// binPath is the mcpship binary built by TestMain.
	binPath string
	// standinDir holds the stand-in programs built by TestMain (today
	// "rigor", from tests/standin). TestMain puts it first on PATH, so
	// every server the tests start, directly or through a client and its
	// configuration file, runs the stand-in when a manifest calls rigor.
	standinDir string
	// selfBin is this test binary, which also serves as the recording
	// relay (see recordArg).
	selfBin string
	// versionLine and versionJSON are what "mcpship version" and
	// "mcpship version --json" print: the mcpship_version tool must answer
	// the same.
	versionLine string
	versionJSON map[string]any
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == recordArg {
		os.Exit(recordMain(os.Args[2:]))
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "realclients: "+format+"\n", args...)
		return 1
	}
	wd, err := os.Getwd()
	if err != nil {
		return fail("%v", err)
	}
	repoRoot = filepath.Clean(filepath.Join(wd, "..", ".."))
	if selfBin, err = os.Executable(); err != nil {
		return fail("%v", err)
	}
	dir, err := os.MkdirTemp("", "mcpship-realclients-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(dir)
	binPath = filepath.Join(dir, "mcpship")
	if runtime.GOOS == "windows" {
		binPath += ".exe"
	}
	// Built inside the main module, with its go.mod: this module's
	// dependencies must not leak into the binary.
	build := exec.Command("go", "build", "-o", binPath, "./cmd/mcpship")
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fail("building mcpship in %s: %v", repoRoot, err)
	}
	// The stand-in plays rigor when run under that name (argv[0]) and
	// reports what it received as JSON; see tests/standin.
	standinDir = filepath.Join(dir, "standin")
	rigor := filepath.Join(standinDir, "rigor")
	if runtime.GOOS == "windows" {
		rigor += ".exe"
	}
	build = exec.Command("go", "build", "-o", rigor, "./tests/standin")
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fail("building the stand-in in %s: %v", repoRoot, err)
	}
	if err := os.Setenv("PATH", standinDir+string(os.PathListSeparator)+os.Getenv("PATH")); err != nil {
		return fail("%v", err)
	}
	out, err := exec.Command(binPath, "version").Output()
	if err != nil {
		return fail("mcpship version: %v", err)
	}
	versionLine = strings.TrimSpace(string(out))
	out, err = exec.Command(binPath, "version", "--json").Output()
	if err != nil {
		return fail("mcpship version --json: %v", err)
	}
	if err := json.Unmarshal(out, &versionJSON); err != nil {
		return fail("mcpship version --json: %v in %q", err, out)
	}
	return m.Run()
}

// cacheDir is where scripts/install-clients.sh installs the clients.
func cacheDir() string {
	if d := os.Getenv("MCPSHIP_CACHE"); d != "" {
		return filepath.Join(d, "clients")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "mcpship", "clients")
}

// skipLoudly skips the test with a message that stands out in the output.
func skipLoudly(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	t.Skipf("\n%s\nSKIPPED: %s\n%s", strings.Repeat("*", 72), msg, strings.Repeat("*", 72))
}

// nodeBin returns the path of the executable that npm linked as name in
// the "npm" client group, skipping the test when it is not installed.
func nodeBin(t *testing.T, name string) string {
	t.Helper()
	return groupFile(t, "npm", filepath.Join("node_modules", ".bin", name))
}

// groupFile returns the path of rel inside the installed client group,
// skipping the test when the group or the file is missing.
func groupFile(t *testing.T, group, rel string) string {
	t.Helper()
	dir := filepath.Join(cacheDir(), group)
	if _, err := os.Stat(filepath.Join(dir, ".installed")); err != nil {
		skipLoudly(t, "the %s client group is not installed in %s: run scripts/install-clients.sh (or scripts/test-realclients.sh) first", group, dir)
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		skipLoudly(t, "%s is missing although %s says the group is installed; run scripts/install-clients.sh again (%v)", p, filepath.Join(dir, ".installed"), err)
	}
	return p
}

// needNode skips the test when node is not on PATH.
func needNode(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		skipLoudly(t, "node is not on PATH; the Node clients need Node.js 20 or later (scripts/install-clients.sh)")
	}
	return p
}

// run is one finished command.
type run struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

func (r run) String() string {
	return fmt.Sprintf("exit %d after %v\n--- stdout:\n%s\n--- stderr:\n%s", r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr)
}

// runTool runs a client command with no standard input, in dir, with env
// added to a clean environment, and a timeout. Only an exec or timeout
// failure fails the test; the exit code is returned.
func runTool(t *testing.T, timeout time.Duration, dir string, env []string, name string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), env...)
	cmd.Stdin = nil
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := run{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%s %s: timed out after %v\n%s", name, strings.Join(args, " "), timeout, r)
	}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		r.code = ee.ExitCode()
	}
	t.Logf("%s %s: exit %d in %v", filepath.Base(name), strings.Join(args, " "), r.code, r.took.Round(time.Millisecond))
	return r
}

// baseEnv is the environment every client runs in: PATH and the locale
// from ours, and nothing that could send it to a network or a real home.
func baseEnv() []string {
	env := []string{"CI=true", "NO_COLOR=1", "TERM=dumb"}
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// writeFile writes data to path, creating its directory.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeJSON writes v to path as indented JSON.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, append(b, '\n'))
}
