package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStderrInResult: a tool with "stderr": "always" gets what the
// program wrote to stderr in a normal result too, after stdout, and in a
// block before the JSON of a structured one; by default, and under
// "errors", only an isError result carries it.
func TestStderrInResult(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.json")
	m := `{"tools": [
  {"name": "quiet", "description": "d", "command": ["standin", "steps", "2", "0"]},
  {"name": "errors", "description": "d", "command": ["standin", "steps", "2", "0"], "stderr": "errors"},
  {"name": "loud", "description": "d", "command": ["standin", "steps", "2", "0"], "stderr": "always"},
  {"name": "loud_json", "description": "d", "command": ["standin", "{words}"], "inputs": {"words": {"type": "array"}},
   "output": "json", "stderr": "always"},
  {"name": "loud_fail", "description": "d", "command": ["standin", "exit64"], "stderr": "always"}
]}`
	if err := os.WriteFile(file, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	c := serve(t, "--manifest", file)
	for _, name := range []string{"quiet", "errors"} {
		if res := callTool(t, c, name, map[string]any{}); res.IsError || text(res) != "done\n" {
			t.Errorf("%s: isError %v, %q; want stdout alone", name, res.IsError, text(res))
		}
	}
	res := callTool(t, c, "loud", map[string]any{})
	if want := "done\nstderr:\nstep 1 of 2 \nstep 2 of 2 "; res.IsError || text(res) != want {
		t.Errorf("loud: isError %v, %q; want %q", res.IsError, text(res), want)
	}
	// A program that writes nothing to stderr gets no stderr block.
	res = callTool(t, c, "loud_json", map[string]any{"words": []string{"a"}})
	if sc := ok(t, res); sc["program"] != "standin" || len(res.Content) != 1 {
		t.Errorf("loud_json without stderr: %d blocks: %s", len(res.Content), text(res))
	}
	res = callTool(t, c, "loud_json", map[string]any{"words": []string{"steps", "1", "0"}})
	if !res.IsError { // "done" is not JSON: an isError result, with stderr once
		t.Errorf("loud_json of text: not an error: %s", text(res))
	}
	res = callTool(t, c, "loud_fail", map[string]any{})
	isError(t, res, "stderr:\nstandin: usage error")
	if n := strings.Count(text(res), "usage error: bad arguments"); n != 1 {
		t.Errorf("loud_fail: stderr %d times in\n%s", n, text(res))
	}
}

// TestStderrModeErrors: an unknown "stderr" mode is refused by manifest
// check and serve, with its place and the closest mode.
func TestStderrModeErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.json")
	m := "{\"defaults\": {\"stderr\": \"alway\"},\n \"tools\": [{\"name\": \"t\", \"description\": \"d\", \"command\": [\"true\"], \"stderr\": \"yes\"}]}"
	if err := os.WriteFile(file, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		file + `:1:25: defaults.stderr: "alway" is not a stderr mode (did you mean "always"?); use "errors" or "always"`,
		file + `:2:77: tools[0].stderr: "yes" is not a stderr mode; use "errors" or "always"`,
	} {
		for _, args := range [][]string{{"manifest", "check", file}, {"serve", "--manifest", file}} {
			out, err := exec.Command(binPath, args...).CombinedOutput()
			code := -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if wantCode := map[string]int{"manifest": 1, "serve": 64}[args[0]]; code != wantCode || !strings.Contains(string(out), want) {
				t.Errorf("%s: exit %d, want %d and %q:\n%s", args[0], code, wantCode, want, out)
			}
		}
	}
}
