package manifest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestCacheInputs fills a tool's cache inputs with a call's values: an
// array input gives one path per item, inside a longer pattern too, and
// a value is a path, never a glob.
func TestCacheInputs(t *testing.T) {
	m, err := Parse("m.json", []byte(`{"tools": [{"name": "lint", "description": "d", "readOnly": true,
  "command": ["prog", "{files}", "{dirs}", "{n}"],
  "inputs": {"files": {"type": "array"}, "dirs": {"type": "array"}, "n": {"type": "integer"}},
  "cache": {"inputs": ["{files}", "src/{files}.bak", "{dirs}/{files}", "out/{n}.txt", "Gemfile.lock"]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tool := m.tools[0]
	for _, tc := range []struct {
		args string
		want []string
	}{
		{`{"files": ["a.rb", "*.rb"], "dirs": ["lib", "sig"], "n": 3}`, []string{
			"a.rb", `\*.rb`, "src/a.rb.bak", `src/\*.rb.bak`,
			"lib/a.rb", `lib/\*.rb`, "sig/a.rb", `sig/\*.rb`, "out/3.txt", "Gemfile.lock"}},
		{`{"files": ["a.rb", ""]}`, []string{"a.rb", "src/a.rb.bak", "Gemfile.lock"}},
		{`{}`, []string{"Gemfile.lock"}},
	} {
		var vals map[string]any
		dec := json.NewDecoder(strings.NewReader(tc.args))
		dec.UseNumber()
		if err := dec.Decode(&vals); err != nil {
			t.Fatal(err)
		}
		if got := tool.cacheInputs(vals); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
}

// TestCacheInputProblems lists what manifest check reports about cache
// inputs.
func TestCacheInputProblems(t *testing.T) {
	_, err := Parse("m.json", []byte(`{"tools": [{"name": "lint", "description": "d", "readOnly": true,
  "command": ["prog", "{files}", "{opts}", "{v}"],
  "inputs": {"files": {"type": "array"}, "opts": {"type": "object"}, "v": {"type": "boolean", "flag": "-v"}},
  "cache": {"inputs": ["{nope}", "{opts}", "x/{v}", "{files", "sig/[a", "{}"]}}]}`))
	if err == nil {
		t.Fatal("no problems reported")
	}
	for _, want := range []string{
		`inputs[0]: {nope} names no input`,
		`inputs[1]: {opts} is a object input`,
		`inputs[2]: {v} is a boolean input`,
		`inputs[3]: "{files" has a '{' with no closing '}'`,
		`inputs[4]: "sig/[a" is not a valid glob`,
		`inputs[5]: "{}": {} is not a placeholder`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("problems lack %q:\n%v", want, err)
		}
	}
}
