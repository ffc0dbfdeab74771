package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/internal/testutil"
)

// The layouts of issue 19, each drafted from the real program and, where a
// call is cheap and harmless, called through mcpship serve.

func TestWrapArgp(t *testing.T) {
	tar := wrapProgram(t, "/usr/bin/tar")
	d := wrapDraft(t, "--", tar)
	_, in, _ := d.tool(t, "tar")
	wantInputs(t, "tar", in, map[string]map[string]any{
		"list":                 {"type": "boolean", "flag": "--list"},
		"file":                 {"flag": "--file="},
		"exclude-caches-under": {"type": "boolean"}, // one space before its description
		"strip-components":     {"type": "integer"},
		"sort":                 {"enum": []any{"none", "name", "inode"}},
		"usage":                nil, // argp's --usage is help
	})
	if len(in) < 120 {
		t.Errorf("tar: %d inputs, want the 150 or so options of its groups", len(in))
	}
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "a.txt", "a\n")
	archive := filepath.Join(dir, "a.tar")
	if out, err := exec.Command(tar, "-cf", archive, "-C", dir, "a.txt").CombinedOutput(); err != nil {
		t.Fatalf("tar -cf: %v\n%s", err, out)
	}
	out, isErr := d.call(t, "tar", map[string]any{"list": true, "file": archive})
	if isErr || strings.TrimSpace(out) != "a.txt" {
		t.Errorf("tar --list: isError=%v, output %q, want a.txt", isErr, out)
	}
}

func TestWrapGetOpt(t *testing.T) {
	shellcheck := wrapProgram(t, "/usr/bin/shellcheck")
	d := wrapDraft(t, "--", shellcheck)
	_, in, _ := d.tool(t, "shellcheck")
	wantInputs(t, "shellcheck", in, map[string]map[string]any{
		"color":           {"flag": "--color=", "enum": []any{"auto", "always", "never"}},
		"shell":           {"enum": []any{"sh", "bash", "dash", "ksh"}},
		"norc":            {"type": "boolean", "flag": "--norc"}, // long only, in the second column
		"check-sourced":   {"type": "boolean"},
		"wiki-link-count": {"type": "integer"},
		"files":           {"type": "array", "required": true},
		"C":               nil, // the short spelling is not the input
	})
	script := testutil.WriteFile(t, t.TempDir(), "s.sh", "#!/bin/sh\necho $1\n")
	out, _ := d.call(t, "shellcheck", map[string]any{"shell": "sh", "files": []string{script}})
	if !strings.Contains(out, "2086") || !strings.Contains(out, "s.sh") {
		t.Errorf("shellcheck --shell=sh: want SC2086 on s.sh:\n%s", out)
	}
}

func TestWrapSingleDash(t *testing.T) {
	sqlite3 := wrapProgram(t, "/usr/bin/sqlite3")
	d := wrapDraft(t, "--allow", "sqlite3", "--", sqlite3)
	_, in, _ := d.tool(t, "sqlite3")
	wantInputs(t, "sqlite3", in, map[string]map[string]any{
		"separator":   {"flag": "-separator"}, // its value is the next argument: -separator=X is refused
		"header":      {"type": "boolean", "flag": "-header"},
		"lookaside":   nil, // two values
		"filename":    {"required": true},
		"csv":         {"type": "boolean"},
		"nullvalue":   {"flag": "-nullvalue"},
		"no-header":   nil,
		"noheader":    nil,
		"-[no]header": nil,
	})
	if !strings.Contains(d.stderr, "sqlite3 -lookaside: not offered: it takes 2 values (SIZE N)") {
		t.Errorf("the two-value option is not reported:\n%s", d.stderr)
	}
	db := filepath.Join(t.TempDir(), "t.db")
	// sqlite3 refuses "-separator=;": the value must be the next argument.
	// (With -json set for a JSON result, the separator is not used.)
	out, isErr := d.call(t, "sqlite3", map[string]any{"filename": db, "sql": "select 1, 2", "separator": ";"})
	if isErr || strings.TrimSpace(out) != "1;2" && !strings.Contains(out, `"2":2`) {
		t.Errorf("sqlite3 -separator ';': isError=%v, output %q, want 1;2", isErr, out)
	}

	// jq's --arg NAME VALUE is a map: each entry passed as --arg NAME VALUE.
	// (Its usage of three forms gives one list of positionals, args_arg.)
	jq := wrapProgram(t, "/usr/bin/jq")
	d = wrapDraft(t, "--", jq)
	_, in, _ = d.tool(t, "jq")
	wantInputs(t, "jq", in, map[string]map[string]any{
		"arg":     {"type": "object", "flag": "--arg"},
		"argjson": {"type": "object", "flag": "--argjson"},
		"tab":     {"type": "boolean"},
	})
	// The report names the positional input as the draft does.
	if !strings.Contains(d.stderr, "jq args_arg: a list of positional arguments, for the 3 forms of its usage") {
		t.Errorf("the report does not name the input args_arg:\n%s", d.stderr)
	}
	out, isErr = d.call(t, "jq", map[string]any{"n": true, "arg": map[string]any{"who": "world", "greeting": "hello"},
		"argjson": map[string]any{"n": "3"}, "args_arg": []string{`"\($greeting), \($who) \($n + 1)"`}})
	if isErr || strings.TrimSpace(out) != `"hello, world 4"` {
		t.Errorf("jq --arg: isError=%v, output %q", isErr, out)
	}
}

// TestWrapManPage drafts git's subcommands, whose help is their manual
// page, and reads git's own list of commands in groups under titles.
func TestWrapManPage(t *testing.T) {
	git := wrapProgram(t, "/usr/bin/git")
	if _, err := exec.LookPath("man"); err != nil {
		if os.Getenv("MCPSHIP_WRAP_PROGRAMS") == "require" {
			t.Fatal("man is not installed; run sh scripts/install-wrapfixtures.sh")
		}
		t.Skip("SKIPPED: man is not installed; run sh scripts/install-wrapfixtures.sh")
	}
	d := wrapDraft(t, "--", git, "log")
	var m struct {
		Tools []struct{ Name, Description string }
	}
	data, err := os.ReadFile(d.file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	desc := m.Tools[0].Description
	if desc != "Show commit logs" {
		t.Errorf("git log: description %q, want the manual page's NAME line", desc)
	}
	_, in, _ := d.tool(t, "git_log")
	wantInputs(t, "git_log", in, map[string]map[string]any{
		"S":              {"flag": "-S"},
		"max-count":      {"type": "integer", "flag": "--max-count="},
		"decorate":       {"enum": []any{"short", "full", "auto", "no"}},
		"oneline":        {"type": "boolean"},
		"revision-range": {"required": nil},
		"path":           {"type": "array"},
		"raw.":           nil,
	})
	for name := range in {
		if strings.HasSuffix(name, ".") || strings.ContainsAny(name, "<>:") {
			t.Errorf("git log: input %q is not a clean option name", name)
		}
	}

	d = wrapDraft(t, "--", git)
	for _, name := range []string{"git_log", "git_status", "git_show", "git_grep"} {
		d.tool(t, name)
	}
	for _, left := range []string{"git push: its name says push"} {
		if !strings.Contains(d.stderr, left) {
			t.Errorf("wrap does not report %q as left out:\n%s", left, d.stderr)
		}
	}
}

// TestWrapCommandsThatRunThemselves drafts a command with subcommands that
// also runs by itself (bat prints files; hugo builds a site) as a tool
// beside its subcommands'.
func TestWrapCommandsThatRunThemselves(t *testing.T) {
	bat := wrapProgram(t, "/usr/bin/batcat")
	d := wrapDraft(t, "--allow", "batcat cache", "--", bat)
	var names []string
	for _, tl := range d.Tools {
		names = append(names, tl.Name)
	}
	if !reflect.DeepEqual(names, []string{"batcat", "batcat_cache"}) {
		t.Errorf("batcat: tools %q, want batcat and batcat_cache", names)
	}
	cmd, in, _ := d.tool(t, "batcat")
	wantInputs(t, "batcat", in, map[string]map[string]any{
		"file":        {"type": "array"},
		"subcommand":  nil,
		"italic-text": {"enum": []any{"always", "never"}},
		"color":       {"enum": []any{"auto", "never", "always"}},
	})
	if slices.Contains(cmd, "cache") {
		t.Errorf("batcat: command %q runs its subcommand", cmd)
	}
	file := testutil.WriteFile(t, t.TempDir(), "f.txt", "hello bat\n")
	out, isErr := d.call(t, "batcat", map[string]any{"file": []string{file}, "plain": true})
	if isErr || strings.TrimSpace(out) != "hello bat" {
		t.Errorf("batcat --plain: isError=%v, output %q", isErr, out)
	}

	hugo := wrapProgram(t, "/usr/bin/hugo")
	d = wrapDraft(t, "--", hugo)
	d.tool(t, "hugo")
	out, isErr = d.call(t, "hugo_version", nil)
	if isErr || !strings.Contains(out, "hugo v") {
		t.Errorf("hugo_version: isError=%v:\n%s", isErr, out)
	}
	if !strings.Contains(d.stderr, "hugo: cobra help; 11 subcommands; not drafted: completion, help") {
		t.Errorf("hugo's help and completion commands are not reported:\n%s", d.stderr)
	}
}

// TestWrapNodePrograms drafts two npm programs: prettier's own help, with
// enums as <a|b|c> and repeatable options, and ESLint's optionator help.
func TestWrapNodePrograms(t *testing.T) {
	prettier := wrapProgram(t, "prettier")
	d := wrapDraft(t, "--", prettier)
	_, in, _ := d.tool(t, "prettier")
	wantInputs(t, "prettier", in, map[string]map[string]any{
		"arrow-parens":   {"enum": []any{"always", "avoid"}},
		"end-of-line":    {"enum": []any{"lf", "crlf", "cr", "auto"}},
		"cache-strategy": {"enum": []any{"metadata", "content"}},
		"ignore-path":    {"type": "array"},
		"tab-width":      {"type": "integer"},
		"check":          {"type": "boolean", "flag": "--check"},
	})
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "ok.js", "const a = 1;\n")
	bad := testutil.WriteFile(t, dir, "bad.js", "const   a=1\n")
	out, isErr := d.call(t, "prettier", map[string]any{"check": true, "file_dir_glob": []string{bad}})
	if !isErr || !strings.Contains(out, "bad.js") {
		t.Errorf("prettier --check on an unformatted file: isError=%v:\n%s", isErr, out)
	}

	eslint := wrapProgram(t, "eslint")
	d = wrapDraft(t, "--", eslint)
	_, in, _ = d.tool(t, "eslint")
	wantInputs(t, "eslint", in, map[string]map[string]any{
		"ext":          {"type": "array"},
		"max-warnings": {"type": "integer"},
	})
	// Its configuration and plugins are code it loads: left out of the
	// read-only tool, and listed.
	for name, why := range map[string]string{"config": "-c/--config: may load code", "plugin": "--plugin: runs code or commands"} {
		if in[name] != nil || !strings.Contains(d.stderr, why) {
			t.Errorf("eslint: %s offered (%v), or %q not reported:\n%s", name, in[name], why, d.stderr)
		}
	}
}
