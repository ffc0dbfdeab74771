package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/internal/testutil"
	"github.com/mcpship/mcpship/mcp"
)

// The tests of "mcpship wrap" run it on real programs, installed by
// scripts/install-wrapfixtures.sh from Debian and the Go module proxy, and
// from scripts/install-tools.sh. A missing program skips its test, unless
// MCPSHIP_WRAP_PROGRAMS=require (scripts/test.sh sets it under CI=true).

// wrapProgram returns the path of a program the wrap tests use: an
// absolute path (Debian's), or a name in $MCPSHIP_CACHE/wrapfixtures or
// $MCPSHIP_CACHE/tools.
func wrapProgram(t *testing.T, name string) string {
	t.Helper()
	paths := []string{name}
	if !filepath.IsAbs(name) {
		cache := os.Getenv("MCPSHIP_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "mcpship")
		}
		paths = []string{filepath.Join(cache, "wrapfixtures", name), filepath.Join(cache, "tools", name)}
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	msg := name + " is not installed; run sh scripts/install-wrapfixtures.sh (as root for Debian's programs) and sh scripts/install-tools.sh"
	if os.Getenv("MCPSHIP_WRAP_PROGRAMS") == "require" {
		t.Fatal(msg + " (MCPSHIP_WRAP_PROGRAMS=require)")
	}
	t.Skip("SKIPPED: " + msg)
	return ""
}

// drafted is a manifest that wrap wrote.
type drafted struct {
	file  string
	Tools []struct {
		Name     string
		Command  []string
		Inputs   map[string]map[string]any
		Output   string
		ReadOnly *bool
	}
	stderr string
}

// wrapDraft runs mcpship wrap ARGS in a new directory, requires it to
// succeed and mcpship manifest check to accept the draft, and reads it.
func wrapDraft(t *testing.T, args ...string) *drafted {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "mcpship.json")
	// A long timeout per help run: Python programs start slowly on a
	// loaded machine, and a timed-out run would fail the draft.
	stdout, stderr, err := runMcpship(dir, append([]string{"wrap", "--timeout", "60s", "--total-time", "300s"}, args...)...)
	if err != nil {
		t.Fatalf("mcpship wrap %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout, stderr)
	}
	if _, checkErr, err := runMcpship(dir, "manifest", "check", file); err != nil {
		t.Fatalf("manifest check: %v\n%s", err, checkErr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d := &drafted{file: file, stderr: stderr}
	if err := json.Unmarshal(data, d); err != nil {
		t.Fatal(err)
	}
	return d
}

func runMcpship(dir string, args ...string) (string, string, error) {
	cmd := exec.Command(binPath, args...)
	cmd.Dir = dir
	if coverDir != "" {
		cmd.Env = append(os.Environ(), "GOCOVERDIR="+coverDir)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// output returns the "output" of the drafted tool of that name.
func (d *drafted) output(t *testing.T, name string) string {
	t.Helper()
	for _, tl := range d.Tools {
		if tl.Name == name {
			return tl.Output
		}
	}
	t.Fatalf("no tool %s in the draft", name)
	return ""
}

// tool returns the drafted tool of that name.
func (d *drafted) tool(t *testing.T, name string) (command []string, inputs map[string]map[string]any, readOnly *bool) {
	t.Helper()
	var names []string
	for _, tl := range d.Tools {
		if tl.Name == name {
			return tl.Command, tl.Inputs, tl.ReadOnly
		}
		names = append(names, tl.Name)
	}
	t.Fatalf("no tool %s in the draft; tools: %s\nwrap said:\n%s", name, strings.Join(names, ", "), d.stderr)
	return nil, nil, nil
}

// wantInputs checks some fields of some inputs of a tool: a nil value
// means the input must not be there.
func wantInputs(t *testing.T, tool string, inputs map[string]map[string]any, want map[string]map[string]any) {
	t.Helper()
	for name, fields := range want {
		in, ok := inputs[name]
		if fields == nil {
			if ok {
				t.Errorf("%s: input %s is offered, want it left out", tool, name)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: no input %s", tool, name)
			continue
		}
		for k, v := range fields {
			if got := in[k]; !reflect.DeepEqual(got, v) {
				t.Errorf("%s: input %s: %s is %#v, want %#v", tool, name, k, got, v)
			}
		}
	}
}

// callResult serves the draft with the built mcpship and calls one tool.
func (d *drafted) callResult(t *testing.T, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return callTool(t, serve(t, "--manifest", d.file), tool, args)
}

// serveDraft serves the draft with the built mcpship and calls one tool.
func (d *drafted) call(t *testing.T, tool string, args map[string]any) (string, bool) {
	t.Helper()
	c := serve(t, "--manifest", d.file)
	res := callTool(t, c, tool, args)
	return text(res), res.IsError
}

func TestWrapCobra(t *testing.T) {
	gdu := wrapProgram(t, "/usr/bin/gdu")
	yq := wrapProgram(t, "yq")

	d := wrapDraft(t, "--", gdu)
	_, in, _ := d.tool(t, "gdu")
	wantInputs(t, "gdu", in, map[string]map[string]any{
		"max-cores":         {"type": "integer", "flag": "--max-cores="},
		"ignore-dirs":       {"type": "array", "flag": "--ignore-dirs="},
		"non-interactive":   {"type": "boolean", "flag": "--non-interactive="},
		"summarize":         {"type": "boolean"},
		"log-file":          nil, // writes a log file: left out of a read-only tool
		"write-config":      nil, // writes a file
		"output-file":       nil, // "Export all info into file"
		"directory_to_scan": {"description": nil},
	})
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "big/needle.bin", strings.Repeat("x", 50000))
	out, isErr := d.call(t, "gdu", map[string]any{"non-interactive": true, "no-progress": true, "directory_to_scan": dir})
	if isErr || !strings.Contains(out, "big") {
		t.Errorf("gdu: isError=%v, want the directory listed:\n%s", isErr, out)
	}

	// The bounds: what was not read is said, and what was read is drafted
	// (yq itself, which runs eval when given no command, and yq eval).
	d = wrapDraft(t, "--max-runs", "2", "--", yq)
	if len(d.Tools) != 2 || !strings.Contains(d.stderr, "yq eval-all: not read: the limit of 2 help runs was reached") {
		t.Errorf("wrap --max-runs 2: %d tools; stderr:\n%s", len(d.Tools), d.stderr)
	}

	d = wrapDraft(t, "--", yq)
	cmd, in, readOnly := d.tool(t, "yq_eval")
	if cmd[1] != "eval" || !reflect.DeepEqual(cmd[len(cmd)-3:], []string{"--", "{expression_arg}", "{yaml_file1}"}) {
		t.Errorf("yq_eval: command %q", cmd)
	}
	// "Apply the expression to each document": nothing says it only
	// reads, so it is drafted as not read-only, with --inplace; and its
	// --output-format takes json, which the draft sets.
	wantInputs(t, "yq_eval", in, map[string]map[string]any{
		"indent":        {"type": "integer"},
		"output-format": nil,
		"front-matter":  {"enum": []any{"extract", "process"}},
		"inplace":       {"type": "boolean"},
	})
	if readOnly == nil || *readOnly || !strings.Contains(d.stderr, "\n  yq eval (tool yq_eval): its help says \"apply\"") {
		t.Errorf("yq_eval: readOnly %v, want false and listed for review:\n%s", readOnly, d.stderr)
	}
	if !slices.Contains(cmd, "--output-format=json") || d.output(t, "yq_eval") != "json" {
		t.Errorf("yq_eval: command %q, output %q: want --output-format=json and output json", cmd, d.output(t, "yq_eval"))
	}
	file := testutil.WriteFile(t, dir, "a.yaml", "a:\n  b: 42\n")
	res := d.callResult(t, "yq_eval", map[string]any{"expression_arg": ".a", "yaml_file1": []string{file}})
	if got, _ := json.Marshal(res.StructuredContent); res.IsError || string(got) != `{"b":42}` {
		t.Errorf("yq_eval: isError=%v, structuredContent %s, want {\"b\":42}", res.IsError, got)
	}
}

func TestWrapURFaveCLI(t *testing.T) {
	builder := wrapProgram(t, "builder") // urfave/cli v3
	swag := wrapProgram(t, "swag")       // urfave/cli v2

	d := wrapDraft(t, "--", builder)
	cmd, in, _ := d.tool(t, "builder_vet")
	if want := []string{builder, "vet", "{tags}", "{top-dir}", "{packages}"}; !reflect.DeepEqual(cmd, want) {
		t.Errorf("builder_vet: command %q, want %q", cmd, want)
	}
	wantInputs(t, "builder_vet", in, map[string]map[string]any{
		"packages": {"type": "array", "flag": "--packages="},
		"top-dir":  {"flag": "--top-dir="},
	})
	for _, want := range []string{"builder generate (tool builder_generate): its name says generate", "builder deploy-mkdocs: its name says deploy"} {
		if !strings.Contains(d.stderr, want) {
			t.Errorf("wrap does not report %q:\n%s", want, d.stderr)
		}
	}
	mod := t.TempDir()
	testutil.WriteFile(t, mod, "go.mod", "module example.com/m\n\ngo 1.25\n")
	testutil.WriteFile(t, mod, "m.go", "package m\n\nimport \"fmt\"\n\nfunc F() { fmt.Printf(\"%d\\n\", \"x\") }\n")
	out, isErr := d.call(t, "builder_vet", map[string]any{"top-dir": mod})
	if !isErr || !strings.Contains(out, `fmt.Printf format %d has arg "x" of wrong type string`) {
		t.Errorf("builder_vet: isError=%v, want go vet's finding:\n%s", isErr, out)
	}

	// mcpship itself is a urfave/cli v2 app.
	d = wrapDraft(t, "--", binPath)
	// Its --json is set: the tool's output is JSON.
	if !strings.Contains(d.stderr, "mcpship version: urfave/cli v2 help; tool mcpship_version (read-only, output json: --json): 0 inputs") {
		t.Errorf("wrap mcpship:\n%s", d.stderr)
	}
	res := d.callResult(t, "mcpship_version", nil)
	if v, _ := res.StructuredContent.(map[string]any)["version"].(string); res.IsError || v == "" {
		t.Errorf("mcpship_version: isError=%v, structuredContent %v, want a version", res.IsError, res.StructuredContent)
	}

	// Both of swag's commands write files: drafted as not read-only.
	d = wrapDraft(t, "--", swag)
	_, in, readOnly := d.tool(t, "swag_init")
	if readOnly == nil || *readOnly || !strings.Contains(d.stderr, "swag init (tool swag_init): its name says init") {
		t.Errorf("swag_init: readOnly %v, want false and listed for review:\n%s", readOnly, d.stderr)
	}
	wantInputs(t, "swag_init", in, map[string]map[string]any{
		"parseDepth":           {"type": "integer"},
		"parseDependencyLevel": {"type": "integer"},
		"quiet":                {"type": "boolean", "flag": "--quiet="},
		"output":               {"flag": "--output="},
		"packageName":          {"flag": "--packageName="},
	})
	src := t.TempDir()
	testutil.WriteFile(t, src, "main.go", "package main\n\n// @title Wrapped API\n// @version 1.0\nfunc main() {}\n")
	out, isErr = d.call(t, "swag_init", map[string]any{"dir": src, "output": filepath.Join(src, "docs"), "parseGoList": false})
	doc, _ := os.ReadFile(filepath.Join(src, "docs", "swagger.json"))
	if isErr || !strings.Contains(string(doc), `"title": "Wrapped API"`) {
		t.Errorf("swag_init: isError=%v, swagger.json %q\n%s", isErr, doc, out)
	}
}

func TestWrapGoFlag(t *testing.T) {
	actionlint := wrapProgram(t, "actionlint")
	staticcheck := wrapProgram(t, "staticcheck")
	duf := wrapProgram(t, "/usr/bin/duf")

	d := wrapDraft(t, "--", staticcheck)
	_, in, _ := d.tool(t, "staticcheck")
	// -f takes json: the draft sets it (staticcheck then prints a JSON
	// object per problem, which "output": "json" refuses for two or more).
	if cmd, _, _ := d.tool(t, "staticcheck"); !slices.Contains(cmd, "-f=json") || d.output(t, "staticcheck") != "json" {
		t.Errorf("staticcheck: command %q, output %q: want -f=json set", cmd, d.output(t, "staticcheck"))
	}
	wantInputs(t, "staticcheck", in, map[string]map[string]any{
		"f":     nil,
		"tests": {"type": "boolean", "flag": "-tests="},
		"tags":  {"flag": "-tags="},
	})
	d = wrapDraft(t, "--", duf)
	_, in, _ = d.tool(t, "duf")
	wantInputs(t, "duf", in, map[string]map[string]any{
		"width": {"type": "integer", "flag": "-width="},
		"json":  nil, // set: "output": "json"
		"args":  {"type": "array"},
	})

	d = wrapDraft(t, "--", actionlint)
	_, in, _ = d.tool(t, "actionlint")
	wantInputs(t, "actionlint", in, map[string]map[string]any{
		"ignore":      {"type": "array", "flag": "-ignore="},
		"oneline":     {"type": "boolean", "flag": "-oneline="},
		"files":       {"type": "array"},
		"init-config": nil, // writes a config file
	})
	dir := t.TempDir()
	wf := testutil.WriteFile(t, dir, ".github/workflows/ci.yml", "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n")
	out, isErr := d.call(t, "actionlint", map[string]any{"oneline": true, "files": []string{wf}})
	if !isErr || !strings.Contains(out, "nope") {
		t.Errorf("actionlint: isError=%v, want the finding about github.nope:\n%s", isErr, out)
	}
}

func TestWrapArgparse(t *testing.T) {
	yamllint := wrapProgram(t, "/usr/bin/yamllint")
	reuse := wrapProgram(t, "/usr/bin/reuse")

	d := wrapDraft(t, "--", reuse)
	cmd, in, _ := d.tool(t, "reuse_lint")
	if i := strings.Index(strings.Join(cmd, " "), " lint"); i < 0 || !strings.Contains(strings.Join(cmd, " ")[:i], "{root}") {
		t.Errorf("reuse_lint: command %q: want the parser's own --root before lint", cmd)
	}
	wantInputs(t, "reuse_lint", in, map[string]map[string]any{
		"root":  {"flag": "--root="},
		"quiet": {"type": "boolean", "flag": "--quiet"},
	})
	for _, review := range []string{"reuse annotate (tool reuse_annotate): its name says annotate", "reuse download (tool reuse_download): its name says download", "reuse init (tool reuse_init): its name says init"} {
		if !strings.Contains(d.stderr, review) {
			t.Errorf("wrap does not list %q for review:\n%s", review, d.stderr)
		}
	}

	d = wrapDraft(t, "--", yamllint)
	cmd, in, _ = d.tool(t, "yamllint")
	wantInputs(t, "yamllint", in, map[string]map[string]any{
		"format":      {"enum": []any{"parsable", "standard", "colored", "github", "auto"}, "flag": "--format="},
		"strict":      {"type": "boolean", "flag": "--strict"},
		"config-data": {"flag": "--config-data="},
		"file_or_dir": {"type": "array"},
	})
	if got := cmd[len(cmd)-2:]; !reflect.DeepEqual(got, []string{"--", "{file_or_dir}"}) {
		t.Errorf("yamllint: command ends %q", got)
	}
	file := testutil.WriteFile(t, t.TempDir(), "bad.yaml", "a: 1\na: 2\n")
	out, isErr := d.call(t, "yamllint", map[string]any{"format": "parsable", "file_or_dir": []string{file}})
	if !isErr || !strings.Contains(out, `duplication of key "a"`) {
		t.Errorf("yamllint: isError=%v, want the duplicate key:\n%s", isErr, out)
	}
}

func TestWrapClick(t *testing.T) {
	flask := wrapProgram(t, "/usr/bin/flask")
	black := wrapProgram(t, "/usr/bin/black")

	d := wrapDraft(t, "--allow", "black", "--", black)
	_, in, readOnly := d.tool(t, "black")
	if readOnly == nil || *readOnly {
		t.Errorf("black, allowed: readOnly %v, want false", readOnly)
	}
	wantInputs(t, "black", in, map[string]map[string]any{
		"line-length":    {"type": "integer", "flag": "--line-length="},
		"target-version": {"flag": "--target-version="},
		"check":          {"type": "boolean", "flag": "--check"},
		"src":            {"type": "array", "required": true},
	})
	if tv, _ := in["target-version"]["enum"].([]any); len(tv) < 5 || tv[0] != "py33" {
		t.Errorf("black --target-version: enum %v", tv)
	}

	// --app imports the module it names, so it runs code: left out unless
	// --allow names the command.
	d = wrapDraft(t, "--", flask)
	cmd, in, _ := d.tool(t, "flask_routes")
	if want := []string{flask, "{env-file}", "{debug}", "routes", "{sort}", "{all-methods}"}; !reflect.DeepEqual(cmd, want) {
		t.Errorf("flask_routes: command %q, want %q", cmd, want)
	}
	wantInputs(t, "flask_routes", in, map[string]map[string]any{
		"sort": {"enum": []any{"endpoint", "methods", "rule", "match"}},
	})
	for _, left := range []string{"flask run: its name says run", "flask shell: its name says shell", "flask routes -A/--app: runs code or commands"} {
		if !strings.Contains(d.stderr, left) {
			t.Errorf("wrap does not report %q as left out:\n%s", left, d.stderr)
		}
	}
	d = wrapDraft(t, "--allow", "flask routes", "--", flask)
	cmd, _, _ = d.tool(t, "flask_routes")
	// The group's own options come before the subcommand, as Click wants them.
	if want := []string{flask, "{env-file}", "{app}", "{debug}", "routes", "{sort}", "{all-methods}"}; !reflect.DeepEqual(cmd, want) {
		t.Errorf("flask_routes, allowed: command %q, want %q", cmd, want)
	}
	app := testutil.WriteFile(t, t.TempDir(), "hello.py", "from flask import Flask\napp = Flask(__name__)\n\n@app.route('/wrapped')\ndef wrapped():\n    return 'hi'\n")
	out, isErr := d.call(t, "flask_routes", map[string]any{"app": app, "sort": "rule"})
	if isErr || !strings.Contains(out, "/wrapped") {
		t.Errorf("flask_routes: isError=%v, want the route listed:\n%s", isErr, out)
	}
}

func TestWrapClap(t *testing.T) {
	fd := wrapProgram(t, "/usr/bin/fdfind")
	hyperfine := wrapProgram(t, "/usr/bin/hyperfine")
	hexyl := wrapProgram(t, "/usr/bin/hexyl")

	d := wrapDraft(t, "--", hexyl)
	_, in, _ := d.tool(t, "hexyl")
	wantInputs(t, "hexyl", in, map[string]map[string]any{
		"border": {"enum": []any{"unicode", "ascii", "none"}},
		"file":   {"required": nil}, // [FILE]: stdin without it
	})
	// hyperfine runs the commands it is given: drafted only when allowed.
	_, stderr, err := runMcpship(t.TempDir(), "wrap", "--", hyperfine)
	if err == nil || !strings.Contains(stderr, `hyperfine: it runs the command it is given (its argument COMMAND); to draft it, add --allow "hyperfine"`) {
		t.Errorf("wrap hyperfine: %v, want it left out:\n%s", err, stderr)
	}
	d = wrapDraft(t, "--allow", "hyperfine", "--", hyperfine)
	_, in, readOnly := d.tool(t, "hyperfine")
	if readOnly == nil || *readOnly {
		t.Errorf("hyperfine, allowed: readOnly %v, want false", readOnly)
	}
	// --allow offers what runs commands too; the tool is not read-only,
	// so it offers what writes.
	wantInputs(t, "hyperfine", in, map[string]map[string]any{
		"min-runs":    {"type": "integer"},
		"time-unit":   {"enum": []any{"millisecond", "second"}},
		"command":     {"type": "array", "required": true},
		"prepare":     {"flag": "--prepare="},
		"export-json": {"flag": "--export-json="},
	})
	if !strings.Contains(d.stderr, "hyperfine -P/--parameter-scan: not offered: it takes 3 values") {
		t.Errorf("wrap does not report --parameter-scan:\n%s", d.stderr)
	}

	d = wrapDraft(t, "--", fd)
	cmd, in, _ := d.tool(t, "fdfind")
	wantInputs(t, "fdfind", in, map[string]map[string]any{
		"max-depth": {"type": "integer", "flag": "--max-depth="},
		"color":     {"enum": []any{"auto", "always", "never"}},
		"exclude":   {"type": "array"},
		"hidden":    {"type": "boolean", "flag": "--hidden"},
		"pattern":   {"required": nil},
		"path":      {"type": "array"},
		"exec":      nil,
	})
	if got := cmd[len(cmd)-3:]; !reflect.DeepEqual(got, []string{"--", "{pattern}", "{path}"}) {
		t.Errorf("fdfind: command ends %q", got)
	}
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "a/b/needle.txt", "")
	testutil.WriteFile(t, dir, "needle-shallow.txt", "")
	out, isErr := d.call(t, "fdfind", map[string]any{"pattern": "needle", "path": []string{dir}, "max-depth": 1, "color": "never"})
	if isErr || !strings.Contains(out, "needle-shallow.txt") || strings.Contains(out, "b/needle.txt") {
		t.Errorf("fdfind: isError=%v, want only the shallow file:\n%s", isErr, out)
	}
}

func TestWrapPlainHelp(t *testing.T) {
	// GNU grep: options as getopt_long prints them, types from placeholders.
	grep, err := exec.LookPath("grep")
	if err != nil {
		t.Fatal(err)
	}
	d := wrapDraft(t, "--", grep)
	cmd, in, _ := d.tool(t, "grep")
	wantInputs(t, "grep", in, map[string]map[string]any{
		"max-count":   {"type": "integer", "flag": "--max-count="},
		"ignore-case": {"type": "boolean", "flag": "--ignore-case"},
		"no-filename": {"type": "boolean"}, // -h is not help here
		"patterns":    {"required": true},
		"file_arg":    {"type": "array"},
		"NUM":         nil, // -NUM stands for -1, -2, ...
	})
	if got := cmd[len(cmd)-2:]; !reflect.DeepEqual(got, []string{"{patterns}", "{file_arg}"}) {
		t.Errorf("grep: command ends %q: want no \"--\" (the plain layout does not know it ends options)", got)
	}
	file := testutil.WriteFile(t, t.TempDir(), "hay.txt", "hay\nNeedle\nhay\nneedle\n")
	out, isErr := d.call(t, "grep", map[string]any{"patterns": "needle", "ignore-case": true, "count": true, "file_arg": []string{file}})
	if isErr || strings.TrimSpace(out) != "2" {
		t.Errorf("grep: isError=%v, output %q, want 2", isErr, out)
	}

	goreleaser := wrapProgram(t, "goreleaser")
	d = wrapDraft(t, "--", goreleaser)
	for _, name := range []string{"goreleaser_check", "goreleaser_healthcheck", "goreleaser_jsonschema"} {
		d.tool(t, name)
	}
	for _, want := range []string{"goreleaser build (tool goreleaser_build): its name says build", "goreleaser release: its name says release", "goreleaser init (tool goreleaser_init): its name says init"} {
		if !strings.Contains(d.stderr, want) {
			t.Errorf("wrap does not report %q:\n%s", want, d.stderr)
		}
	}
	if !strings.Contains(d.stderr, "goreleaser healthcheck --config: a switch, as the help shows no value after it") {
		t.Errorf("the fallback's guess is not reported:\n%s", d.stderr)
	}
	cmd, _, _ = d.tool(t, "goreleaser_check")
	if want := []string{goreleaser, "{verbose}", "check", "{quiet}", "{configuration_files}"}; !reflect.DeepEqual(cmd, want) {
		t.Errorf("goreleaser_check: command %q, want %q (no \"--\" in the plain layout)", cmd, want)
	}
	bad := testutil.WriteFile(t, t.TempDir(), "bad.yaml", "version: 2\nbogus_field: 1\n")
	out, isErr = d.call(t, "goreleaser_check", map[string]any{"configuration_files": bad})
	if !isErr || !strings.Contains(out, "field bogus_field not found") {
		t.Errorf("goreleaser_check: isError=%v, want the unknown field:\n%s", isErr, out)
	}
}

// TestWrapMorePrograms runs wrap on programs its helper did not write it
// against: a Cobra program whose long help has headings and lists of its
// own (restic) and a usage of several forms (ripgrep). git, whose commands
// wrap reads from its groups and their manual pages, is TestWrapManPage's.
func TestWrapMorePrograms(t *testing.T) {
	rg := wrapProgram(t, "/usr/bin/rg")
	restic := wrapProgram(t, "/usr/bin/restic")

	d := wrapDraft(t, "--", rg)
	cmd, in, _ := d.tool(t, "rg")
	wantInputs(t, "rg", in, map[string]map[string]any{
		"pattern":            {"required": true},
		"path":               {"type": "array", "required": nil},
		"max-count":          {"type": "integer"},
		"pre":                nil, // runs a command on each file
		"ignore-case":        {"type": "boolean", "flag": "--ignore-case"},
		"command":            nil,
		"files-with-matches": {"type": "boolean"},
	})
	if got := cmd[len(cmd)-2:]; !reflect.DeepEqual(got, []string{"{pattern}", "{path}"}) {
		t.Errorf("rg: command ends %q", got)
	}
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "a.txt", "hay\nneedle\n")
	testutil.WriteFile(t, dir, "b.txt", "hay\n")
	out, isErr := d.call(t, "rg", map[string]any{"pattern": "needle", "path": []string{dir}, "files-with-matches": true})
	if isErr || !strings.Contains(out, "a.txt") || strings.Contains(out, "b.txt") {
		t.Errorf("rg: isError=%v, want a.txt alone:\n%s", isErr, out)
	}

	d = wrapDraft(t, "--", restic)
	d.tool(t, "restic_snapshots")
	_, in, _ = d.tool(t, "restic_stats")
	wantInputs(t, "restic_stats", in, map[string]map[string]any{"mode": {"flag": "--mode="}, "json": {"type": "boolean"}})
	for _, bad := range []string{"restic stats Refer", "restic diff M", "Exit"} {
		if strings.Contains(d.stderr, bad) {
			t.Errorf("wrap read %q, a word of a description, as a command:\n%s", bad, d.stderr)
		}
	}
	for _, review := range []string{`restic key (tool restic_key): a form of its usage may change something ("restic key [flags] [list|add|remove|passwd] [ID]")`, "restic recover (tool restic_recover): its name says recover"} {
		if !strings.Contains(d.stderr, review) {
			t.Errorf("wrap does not list %q for review:\n%s", review, d.stderr)
		}
	}
	out, isErr = d.call(t, "restic_version", nil)
	if isErr || !strings.Contains(out, "restic ") {
		t.Errorf("restic_version: isError=%v:\n%s", isErr, out)
	}
}

// TestWrapKeepsSubcommand drafts "wrap -- PROGRAM SUBCOMMAND..." in each
// layout that has subcommands: the drafted command runs the subcommand
// given, not the program alone, and the checks for servers and shells
// judge the subcommand.
func TestWrapKeepsSubcommand(t *testing.T) {
	python3, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		layout string
		prog   string
		args   []string
		tool   string
	}{
		{"argparse", "/usr/bin/reuse", []string{"lint"}, "reuse_lint"},
		{"argparse, a module", python3, []string{"-m", "json.tool"}, "python3_m_json_tool"},
		{"argparse, a module", python3, []string{"-m", "zipfile"}, "python3_m_zipfile"},
		{"Cobra", "yq", []string{"eval"}, "yq_eval"},
		{"Cobra", "/usr/bin/restic", []string{"snapshots"}, "restic_snapshots"},
		{"Click", "/usr/bin/flask", []string{"routes"}, "flask_routes"},
		{"urfave/cli v2", "swag", []string{"init"}, "swag_init"},
		{"urfave/cli v3", "builder", []string{"vet"}, "builder_vet"},
		{"plain", "/usr/bin/git", []string{"log"}, "git_log"},
		{"plain (Charm's fang)", "goreleaser", []string{"check"}, "goreleaser_check"},
	} {
		t.Run(c.layout+" "+strings.Join(c.args, " "), func(t *testing.T) {
			prog := c.prog
			if prog != python3 {
				prog = wrapProgram(t, c.prog)
			}
			d := wrapDraft(t, append([]string{"--", prog}, c.args...)...)
			cmd, _, _ := d.tool(t, c.tool)
			if want := append([]string{prog}, c.args...); !reflect.DeepEqual(cmd[:len(want)], want) {
				t.Errorf("%s: command %q, want it to start %q", c.tool, cmd, want)
			}
		})
	}

	// python3 -m http.server is a server: left out, as the help of the
	// module, not of python3, says.
	dir := t.TempDir()
	_, stderr, err := runMcpship(dir, "wrap", "--", python3, "-m", "http.server")
	if err == nil || !strings.Contains(stderr, `python3 -m http.server: its name says server; to draft it, add --allow "python3 -m http.server"`) {
		t.Errorf("wrap python3 -m http.server: %v, want it left out:\n%s", err, stderr)
	}

	// python3 -m json.tool, served, runs the module: it pretty-prints, and
	// its positional outfile, which writes, is left out of the read-only tool.
	d := wrapDraft(t, "--", python3, "-m", "json.tool")
	_, in, readOnly := d.tool(t, "python3_m_json_tool")
	wantInputs(t, "python3_m_json_tool", in, map[string]map[string]any{"infile": {}, "outfile": nil, "sort-keys": {"type": "boolean"}})
	if readOnly == nil || !*readOnly || !strings.Contains(d.stderr, "python3 -m json.tool OUTFILE: may write (its name says outfile)") {
		t.Errorf("python3_m_json_tool: readOnly %v, want true, and OUTFILE left out:\n%s", readOnly, d.stderr)
	}
	file := testutil.WriteFile(t, t.TempDir(), "a.json", `{"b":1,"a":2}`)
	out, isErr := d.call(t, "python3_m_json_tool", map[string]any{"infile": file, "sort-keys": true})
	if isErr || out != "{\n    \"a\": 2,\n    \"b\": 1\n}\n" {
		t.Errorf("python3_m_json_tool: isError=%v, output %q", isErr, out)
	}
}
