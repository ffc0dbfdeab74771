package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/mcp"
)

// serve starts the built mcpship with args, the stand-ins first on PATH,
// and returns an initialized client.
func serve(t testing.TB, args ...string) *mcp.Client {
	t.Helper()
	return startServer(t, binPath, append([]string{"serve"}, args...)...)
}

func startServer(t testing.TB, prog string, args ...string) *mcp.Client {
	t.Helper()
	_, c := startCommand(t, nil, prog, args...)
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("%s exited with %v; stderr:\n%s", prog, err, c.Stderr())
		}
	})
	return c
}

// startCommand starts prog with args as an MCP server over stdio, with
// the stand-in programs first on PATH and opts, and initializes it. The
// caller closes the client.
func startCommand(t testing.TB, opts *mcp.ClientOptions, prog string, args ...string) (*exec.Cmd, *mcp.Client) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(),
		"PATH="+standinDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"MCPSHIP_TEST_PASSED=passed", "MCPSHIP_TEST_SECRET=secret")
	c, err := mcp.StartCommand(cmd, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(context.Background(), ""); err != nil {
		c.Close()
		t.Fatalf("initialize: %v; stderr:\n%s", err, c.Stderr())
	}
	return cmd, c
}

func callTool(t *testing.T, c *mcp.Client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.CallTool(context.Background(), name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok checks that res is a normal result and returns its structuredContent.
func ok(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected isError: %s", text(res))
	}
	m, _ := res.StructuredContent.(map[string]any)
	return m
}

// isError checks that res is an error result whose text contains want.
func isError(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if !res.IsError || !strings.Contains(text(res), want) {
		t.Errorf("want an isError result containing %q, got isError=%v:\n%s", want, res.IsError, text(res))
	}
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// argv returns the arguments the stand-in reported receiving.
func argv(t *testing.T, sc map[string]any) []string {
	t.Helper()
	raw, _ := json.Marshal(sc["argv"])
	var out []string
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("no argv in %v", sc)
	}
	return out
}

func wantArgv(t *testing.T, res *mcp.CallToolResult, want ...string) {
	t.Helper()
	if got := argv(t, ok(t, res)); !reflect.DeepEqual(got, want) {
		t.Errorf("argv:\n got %q\nwant %q", got, want)
	}
}

var (
	rigorManifest   = filepath.Join("..", "examples", "rigor", "mcpship.json")
	standinManifest = filepath.Join("testdata", "manifests", "standin.json")
)

func TestRigorExample(t *testing.T) {
	c := serve(t, "--manifest", rigorManifest)
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if tl.Annotations == nil || tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint {
			t.Errorf("%s is not announced read-only", tl.Name)
		}
	}
	want := []string{"rigor_check", "rigor_type_of", "rigor_triage", "rigor_annotate", "rigor_sig_gen", "rigor_explain", "rigor_coverage"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	wantArgv(t, callTool(t, c, "rigor_check", map[string]any{"paths": []string{"lib", "app/a.rb"}}),
		"check", "--format", "json", "--no-stats", "lib", "app/a.rb")
	wantArgv(t, callTool(t, c, "rigor_check", nil), "check", "--format", "json", "--no-stats")
	wantArgv(t, callTool(t, c, "rigor_type_of", map[string]any{"file": "lib/a.rb", "line": 3, "column": 14}),
		"type-of", "--format", "json", "lib/a.rb:3:14")
	wantArgv(t, callTool(t, c, "rigor_triage", map[string]any{"paths": []string{"lib"}}), "triage", "--format", "json", "lib")
	wantArgv(t, callTool(t, c, "rigor_sig_gen", map[string]any{"paths": []string{"lib"}}), "sig-gen", "--print", "--format", "json", "lib")
	wantArgv(t, callTool(t, c, "rigor_explain", nil), "explain", "--format", "json")
	wantArgv(t, callTool(t, c, "rigor_explain", map[string]any{"rule": "R001"}), "explain", "--format", "json", "R001")
	wantArgv(t, callTool(t, c, "rigor_coverage", map[string]any{"paths": []string{"."}}), "coverage", "--format", "json", ".")
	res := callTool(t, c, "rigor_annotate", map[string]any{"file": "lib/a.rb"})
	if res.IsError || text(res) != "# annotated lib/a.rb\n" || res.StructuredContent != nil {
		t.Errorf("annotate: want plain text, got %+v", res)
	}

	// Exit 1 is findings, a normal result; exit 64 is isError with stderr.
	res = callTool(t, c, "rigor_check", map[string]any{"paths": []string{"findings.rb"}})
	if sc := ok(t, res); sc["program"] != "rigor" || !strings.Contains(text(res), "findings.rb") {
		t.Errorf("exit 1: %v", text(res))
	}
	res = callTool(t, c, "rigor_check", map[string]any{"paths": []string{"exit64.rb"}})
	isError(t, res, "rigor exited with status 64")
	isError(t, res, "rigor: usage error")
	isError(t, res, "partial stdout")

	// Schema violations come back as isError results, before anything runs.
	isError(t, callTool(t, c, "rigor_type_of", map[string]any{"file": "a.rb", "line": "three", "column": 1}), "arguments.line: expected integer, got string")
	isError(t, callTool(t, c, "rigor_type_of", map[string]any{"file": "a.rb", "line": 1.5, "column": 1}), "arguments.line: expected integer")
	isError(t, callTool(t, c, "rigor_coverage", nil), `missing required property "paths"`)
	isError(t, callTool(t, c, "rigor_coverage", map[string]any{"paths": []string{}}), "fewer than 1 items")
	isError(t, callTool(t, c, "rigor_check", map[string]any{"paths": []string{"a"}, "env": map[string]string{"PATH": "/x"}}), `unknown property "env"`)
}

func TestHostileValuesStayLiteral(t *testing.T) {
	c := serve(t, "--manifest", rigorManifest, "--manifest", standinManifest)
	hostile := []string{"a; rm -rf /", "$(id)", "`id`", "two\nlines", "x && echo pwned", "'\"\\", "*", "", "a b"}
	wantArgv(t, callTool(t, c, "rigor_check", map[string]any{"paths": hostile}),
		append([]string{"check", "--format", "json", "--no-stats"}, hostile...)...)
	wantArgv(t, callTool(t, c, "rigor_type_of", map[string]any{"file": "$(id); a\nb", "line": 1, "column": 2}),
		"type-of", "--format", "json", "$(id); a\nb:1:2")
	// A flag input's value goes in the same element as the flag.
	wantArgv(t, callTool(t, c, "rigor_check", map[string]any{"config": "--x", "paths": []string{"a"}}),
		"check", "--config=--x", "--format", "json", "--no-stats", "a")

	// Without "--" in the command, a positional value starting with '-' is
	// refused: it would be read as an option.
	for _, bad := range []any{
		map[string]any{"paths": []string{"ok.rb", "--x"}},
		map[string]any{"paths": []string{"-"}},
	} {
		isError(t, callTool(t, c, "rigor_check", bad), "starts with '-'")
	}
	isError(t, callTool(t, c, "rigor_type_of", map[string]any{"file": "--version", "line": 1, "column": 1}), "starts with '-'")
	isError(t, callTool(t, c, "rigor_explain", map[string]any{"rule": "-h"}), "starts with '-'")

	// After a literal "--" the same values are passed, each as one element.
	words := []string{"--x", "-rf", "--format=evil", "a; rm -rf /", "$(id)", "x\ny"}
	wantArgv(t, callTool(t, c, "after_separator", map[string]any{"words": words}), append([]string{"--"}, words...)...)
}

func TestSessionDefaults(t *testing.T) {
	c := serve(t, "--manifest", rigorManifest, "--set", "config=/etc/rigor.yml", "--set", "rigor_explain.rule=R042")
	wantArgv(t, callTool(t, c, "rigor_check", nil), "check", "--config=/etc/rigor.yml", "--format", "json", "--no-stats")
	wantArgv(t, callTool(t, c, "rigor_check", map[string]any{"config": "mine.yml"}), "check", "--config=mine.yml", "--format", "json", "--no-stats")
	wantArgv(t, callTool(t, c, "rigor_explain", nil), "explain", "--format", "json", "R042")
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tools[0].InputSchema), `"default":"/etc/rigor.yml"`) {
		t.Errorf("the session default is not in the schema: %s", tools[0].InputSchema)
	}
}

func TestCommitbriefExample(t *testing.T) {
	c := serve(t, "--manifest", filepath.Join("..", "examples", "commitbrief", "mcpship.json"))
	res := callTool(t, c, "review", nil)
	sc := ok(t, res)
	if got := argv(t, sc); !reflect.DeepEqual(got, []string{"--json"}) {
		t.Errorf("argv = %q", got)
	}
	findings, _ := sc["findings"].([]any)
	if len(findings) != 2 || sc["schema_version"] != 1.0 {
		t.Errorf("structuredContent = %v", sc)
	}
	if len(res.Content) != 2 {
		t.Fatalf("want a summary and the JSON, got %d blocks", len(res.Content))
	}
	if want := "2 findings; warning main.go:12 error ignored; note README.md:3 typo"; res.Content[0].Text != want {
		t.Errorf("summary = %q, want %q", res.Content[0].Text, want)
	}
	var again map[string]any
	if err := json.Unmarshal([]byte(res.Content[1].Text), &again); err != nil || len(again["findings"].([]any)) != 2 {
		t.Errorf("second block is not the JSON: %v %q", err, res.Content[1].Text)
	}
}

func TestOutputCap(t *testing.T) {
	c := serve(t, "--manifest", standinManifest)
	res := callTool(t, c, "capped_text", map[string]any{"words": []string{"big"}})
	if res.IsError || len(text(res)) > 4096+200 || !strings.Contains(text(res), "[stdout truncated: 4096 of ") {
		t.Errorf("text cap: isError=%v, %d bytes, tail %q", res.IsError, len(text(res)), tail(text(res)))
	}
	isError(t, callTool(t, c, "capped_json", map[string]any{"words": []string{"big"}}), "more than the 4096 this tool keeps")
	isError(t, callTool(t, c, "slow", map[string]any{"words": []string{"notjson"}}), "was expected to print JSON")
}

func tail(s string) string { return s[max(0, len(s)-120):] }

func TestEnvironmentAndStdin(t *testing.T) {
	c := serve(t, "--manifest", standinManifest)
	sc := ok(t, callTool(t, c, "env", map[string]any{"level": "high"}))
	env, _ := sc["env"].(map[string]any)
	for k, want := range map[string]any{"FIXED": "fixed value", "MCPSHIP_TEST_PASSED": "passed", "STANDIN_LEVEL": "high", "MCPSHIP_TEST_SECRET": nil} {
		if env[k] != want {
			t.Errorf("env %s = %v, want %v", k, env[k], want)
		}
	}
	if env["PATH"] == nil {
		t.Error("PATH was not passed through")
	}
	manifestDir, _ := filepath.Abs(filepath.Join("testdata", "manifests"))
	if sc["cwd"] != manifestDir {
		t.Errorf("cwd = %v, want the manifest's directory %s", sc["cwd"], manifestDir)
	}
	isError(t, callTool(t, c, "env", map[string]any{"level": "max"}), `is not one of "low", "high"`)

	sc = ok(t, callTool(t, c, "slow", map[string]any{"words": []string{"stdin"}}))
	if sc["stdin"] != "" || sc["stdinErr"] != "<nil>" {
		t.Errorf("stdin: read %q, err %v; want an immediate end of input", sc["stdin"], sc["stdinErr"])
	}
}

func TestServeRefusesBadStart(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"tools": [{"name": "x", "description": "d", "command": ["x", "{y}"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--manifest", bad}, `bad.json:1:63: tools[0].command[1]: {y} names no input`},
		{[]string{"--manifest", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"--manifest", rigorManifest, "--set", "nosuch=1"}, `no tool has an input named "nosuch"`},
		{[]string{"--manifest", rigorManifest, "--set", "rigor_type_of.line=x"}, "expected an integer"},
		{[]string{"--manifest", rigorManifest, "--manifest", rigorManifest}, `tool "rigor_check" registered twice`},
		{[]string{"--set", "a=b"}, "--set needs --manifest"},
	} {
		cmd := exec.Command(binPath, append([]string{"serve"}, tc.args...)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != 64 || !strings.Contains(stderr.String(), tc.want) || stdout.Len() > 0 {
			t.Errorf("serve %q: exit %d, stdout %q, stderr:\n%s\nwant exit 64 and %q", tc.args, code, stdout.String(), stderr.String(), tc.want)
		}
	}
}

func TestSelfToolsThroughAdapter(t *testing.T) {
	c := serve(t)
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name != "mcpship_version" {
		t.Fatalf("tools = %+v", tools)
	}
	sc := ok(t, callTool(t, c, "mcpship_version", map[string]any{"json": true}))
	if sc["version"] == nil || sc["platform"] == nil {
		t.Errorf("structuredContent = %v", sc)
	}
	res := callTool(t, c, "mcpship_version", nil)
	if res.IsError || !strings.HasPrefix(text(res), "mcpship ") {
		t.Errorf("plain version: %+v", res)
	}
}

func TestGoappExample(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("alpha beta\nTODO gamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, goappPath, "mcp")
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "goapp_count" || tools[1].Name != "goapp_find" {
		t.Fatalf("tools = %v (touch must need --allow-write)", tools)
	}
	sc := ok(t, callTool(t, c, "goapp_count", map[string]any{"by": "words", "files": []string{file}}))
	if fmt.Sprint(sc["counts"]) != fmt.Sprintf("map[%s:4]", file) {
		t.Errorf("count: %v", sc)
	}
	res := callTool(t, c, "goapp_find", map[string]any{"pattern": "todo", "ignore-case": true, "files": []string{file}})
	if res.IsError || text(res) != file+":2:TODO gamma\n" {
		t.Errorf("find: %+v", res)
	}
	res = callTool(t, c, "goapp_find", map[string]any{"pattern": "zzz", "files": []string{file}})
	if res.IsError || !strings.Contains(text(res), "exit status 1") {
		t.Errorf("find with no match is a normal result (exit 1): %+v", res)
	}
	isError(t, callTool(t, c, "goapp_count", map[string]any{"files": []string{"--by=bytes", file}}), "open --by=bytes")
	isError(t, callTool(t, c, "goapp_count", map[string]any{"by": "chars"}), `"chars"`)

	w := startServer(t, goappPath, "mcp", "--allow-write")
	created := filepath.Join(dir, "new.txt")
	if res := callTool(t, w, "goapp_touch", map[string]any{"files": []string{created}}); res.IsError {
		t.Fatalf("touch: %s", text(res))
	}
	if _, err := os.Stat(created); err != nil {
		t.Errorf("touch did not create the file: %v", err)
	}
}

func TestManifestListAndConcurrentCalls(t *testing.T) {
	c := serve(t, "--manifest", rigorManifest, "--manifest", standinManifest)
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 13 {
		t.Fatalf("got %d tools from two manifests, want 7+6", len(tools))
	}
	// Calls run concurrently, each in its own process with its own argv.
	errs := make(chan error, 20)
	for i := range 20 {
		go func() {
			word := fmt.Sprint("w", i)
			res, err := c.CallTool(context.Background(), "slow", map[string]any{"words": []string{word}})
			if err == nil {
				if sc, _ := res.StructuredContent.(map[string]any); fmt.Sprint(sc["argv"]) != "["+word+"]" {
					err = fmt.Errorf("call %d got %v", i, sc["argv"])
				}
			}
			errs <- err
		}()
	}
	for range 20 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
