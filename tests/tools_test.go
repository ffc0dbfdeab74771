package tests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/internal/testutil"
)

// TestToolsGolden runs "mcpship tools" and "mcpship call" against the
// example servers (a manifest, served by mcpship, and goapp, a cliadapter
// app) and compares what they print, on both streams, and their exit code
// with testdata/tools/NAME.golden.
func TestToolsGolden(t *testing.T) {
	const rigor = "../examples/rigor/mcpship.json"
	const words = `{"by": "words", "files": ["testdata/tools/words.txt"]}`
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"tools_rigor", []string{"tools", "--", "mcpship", "serve", "--manifest", rigor}},
		{"tools_goapp", []string{"tools", "--", "goapp", "mcp"}},
		{"tools_goapp_json", []string{"tools", "--json", "--", "goapp", "mcp"}},
		{"call_count", []string{"call", "goapp_count", words, "--", "goapp", "mcp"}},
		{"call_count_json", []string{"call", "--json", "goapp_count", words, "--", "goapp", "mcp"}},
		{"call_find", []string{"call", "goapp_find", `{"pattern": "at", "files": ["testdata/tools/words.txt"], "max": 2}`, "--", "goapp", "mcp"}},
		{"call_find_none", []string{"call", "goapp_find", `{"pattern": "dog", "files": ["testdata/tools/words.txt"]}`, "--", "goapp", "mcp"}},
		{"call_is_error", []string{"call", "goapp_count", `{"files": ["testdata/tools/missing.txt"]}`, "--", "goapp", "mcp"}},
		{"call_is_error_manifest", []string{"call", "rigor_explain", `{"rule": "exit64"}`, "--", "mcpship", "serve", "--manifest", rigor}},
		{"call_invalid_arguments", []string{"call", "goapp_find", `{"pattern": 7}`, "--", "goapp", "mcp"}},
		{"call_unknown_tool", []string{"call", "goapp_cuont", "--", "goapp", "mcp"}},
		{"call_bad_json", []string{"call", "goapp_count", `{"files": ["a.txt"],}`, "--", "goapp", "mcp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runGolden(t, tc.args...)
			testutil.Golden(t, filepath.Join("testdata", "tools", tc.name+".golden"), got)
		})
	}
}

// version is mcpship's version where it names itself as a server.
var version = regexp.MustCompile(`mcpship \S+ \(protocol`)

// runGolden runs mcpship with args, with goapp and the stand-ins first on
// PATH, and returns the command line, its stdout, its stderr and its exit
// code, as a golden file holds them.
func runGolden(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "PATH="+strings.Join([]string{binDir, standinDir, os.Getenv("PATH")}, string(os.PathListSeparator)))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "$ mcpship %q\n", args)
	b.Write(version.ReplaceAll(stdout.Bytes(), []byte("mcpship VERSION (protocol")))
	fmt.Fprintf(&b, "--- stderr\n%s--- exit %d\n", withoutEchoes(stderr.Bytes(), stdout.Bytes()), code)
	return b.Bytes()
}

// withoutEchoes returns call's stderr without its progress lines that
// repeat a line the tool wrote to its own stderr, which call also prints
// on stdout. serve sends such a line as progress only if it reads the line
// before it sees the tool exit, which depends on the machine's load.
// TestCallShowsProgress checks that progress reaches call's stderr.
func withoutEchoes(stderr, stdout []byte) []byte {
	printed := map[string]bool{}
	for line := range strings.Lines(string(stdout)) {
		printed[strings.TrimSpace(line)] = true
	}
	var b bytes.Buffer
	for line := range strings.Lines(string(stderr)) {
		if echo, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "mcpship: "); ok && printed[echo] {
			continue
		}
		b.WriteString(line)
	}
	return b.Bytes()
}

// TestCallShowsProgress calls a manifest tool whose command runs until a
// file exists: the progress that mcpship serve reports while it runs
// appears on call's standard error, and the result once the file is there.
func TestCallShowsProgress(t *testing.T) {
	gofile := filepath.Join(t.TempDir(), "go")
	cmd := exec.Command(binPath, "call", "slow", fmt.Sprintf(`{"words": ["progress", %q]}`, gofile),
		"--", binPath, "serve", "--manifest", standinManifest, "--progress-interval", "50ms")
	cmd.Env = append(os.Environ(), "PATH="+standinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	want := regexp.MustCompile(`^mcpship: standin has run for \d+s: working: step 1$`)
	for lines.Scan() && !want.MatchString(lines.Text()) {
		t.Logf("stderr: %s", lines.Text())
	}
	if !want.MatchString(lines.Text()) {
		t.Fatalf("call's stderr ended without the progress line %s", want)
	}
	if err := os.WriteFile(gofile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("call: %v; stderr:\n%s", err, rest)
	}
	if !strings.Contains(stdout.String(), `"program": "standin"`) {
		t.Errorf("call printed\n%s\nwant the stand-in's report", stdout.String())
	}
}
