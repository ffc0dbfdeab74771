package realclients

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The checks of the rigor entry in servers: tests/standin, built by
// TestMain as rigor, reports what it received as JSON.

// standinReport is what tests/standin prints: the name it ran as, its
// arguments and its environment.
type standinReport struct {
	Program string            `json:"program"`
	Argv    []string          `json:"argv"`
	Env     map[string]string `json:"env"`
}

// checkReport checks a stand-in report: it ran as rigor, the stand-in
// found first on PATH, with exactly argv.
func checkReport(t *testing.T, what string, rep standinReport, argv []string) {
	t.Helper()
	if rep.Program != "rigor" || !slices.Equal(rep.Argv, argv) {
		t.Errorf("%s: the stand-in ran as %q with argv %q, want rigor with %q", what, rep.Program, rep.Argv, argv)
	}
	// Codex puts a directory of its own first on the server's PATH; what
	// matters is that no directory before ours holds a rigor.
	for _, dir := range filepath.SplitList(rep.Env["PATH"]) {
		if dir == standinDir {
			return
		}
		if _, err := os.Stat(filepath.Join(dir, "rigor")); err == nil {
			t.Errorf("%s: the server's PATH %q finds %s before the stand-in in %s", what, rep.Env["PATH"], filepath.Join(dir, "rigor"), standinDir)
			return
		}
	}
	t.Errorf("%s: the server's PATH %q lacks the stand-in directory %s", what, rep.Env["PATH"], standinDir)
}

// checkRigorArgv wants a normal result whose structuredContent is the
// stand-in's report for argv, and a text block with the same JSON.
func checkRigorArgv(argv ...string) func(*testing.T, outcome) {
	return func(t *testing.T, o outcome) {
		t.Helper()
		if o.RPCErr != nil || o.IsError {
			t.Fatalf("want a normal result (isError false), got %v", o)
		}
		var rep standinReport
		if err := json.Unmarshal(o.Structured, &rep); err != nil {
			t.Fatalf("structuredContent is not the stand-in's report: %v in %s", err, o.Structured)
		}
		checkReport(t, "structuredContent", rep, argv)
		var text standinReport
		if len(o.Texts) != 1 || json.Unmarshal([]byte(o.Texts[0]), &text) != nil {
			t.Fatalf("want one text block with the structuredContent's JSON, got %q", o.Texts)
		}
		checkReport(t, "text", text, argv)
	}
}

// checkRigorText checks what an assistant passed on to its model from a
// call of the stand-in: the JSON it printed, as the text block or as
// structuredContent (the same but for key order and spacing).
func checkRigorText(argv ...string) func(*testing.T, outcome) {
	return func(t *testing.T, o outcome) {
		t.Helper()
		if o.RPCErr != nil || o.IsError {
			t.Fatalf("want a normal result, got %v", o)
		}
		text := strings.TrimSpace(strings.Join(o.Texts, "\n"))
		var rep standinReport
		if err := json.Unmarshal([]byte(text), &rep); err != nil {
			t.Fatalf("the model got %q, not the stand-in's JSON: %v", text, err)
		}
		checkReport(t, "the model's text", rep, argv)
	}
}

// checkToolError wants an isError result whose text has every one of
// wants.
func checkToolError(wants ...string) func(*testing.T, outcome) {
	return func(t *testing.T, o outcome) {
		t.Helper()
		if o.RPCErr != nil || !o.IsError && !o.IsErrorUnknown {
			t.Fatalf("want a result with isError, got %v", o)
		}
		text := strings.Join(o.Texts, "\n")
		for _, w := range wants {
			if !strings.Contains(text, w) {
				t.Errorf("want the text to contain %q, got %q", w, text)
			}
		}
		if len(o.Structured) > 0 && string(o.Structured) != "null" {
			t.Errorf("want no structuredContent with isError, got %s", o.Structured)
		}
	}
}

// checkAnnotate wants rigor_annotate's plain text output: one text block,
// no structuredContent.
func checkAnnotate(t *testing.T, o outcome) {
	t.Helper()
	if o.RPCErr != nil || o.IsError {
		t.Fatalf("want a normal result, got %v", o)
	}
	if want := "# annotated lib/a.rb\n"; len(o.Texts) != 1 || o.Texts[0] != want {
		t.Errorf("want one text block %q, got %q", want, o.Texts)
	}
	if len(o.Structured) > 0 && string(o.Structured) != "null" {
		t.Errorf("want no structuredContent from a text tool, got %s", o.Structured)
	}
}
