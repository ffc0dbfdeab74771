package manifest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// An object input passes each entry as the flag, its name and its value,
// as jq's --arg NAME VALUE takes them, in the order of the names.
func TestObjectInput(t *testing.T) {
	m, err := Parse("m.json", []byte(`{"tools": [{"name": "jq", "description": "d",
	  "command": ["jq", "{arg}", "{n}", "--", "{filter}"],
	  "inputs": {"arg": {"type": "object", "flag": "--arg"}, "n": {"type": "object", "items": "integer", "flag": "--num"},
	             "filter": {"required": true}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tl := m.tools[0]
	var vals map[string]any
	dec := json.NewDecoder(strings.NewReader(`{"arg": {"who": "world", "a b": "-x; $(id)"}, "n": {"k": 3}, "filter": "$who"}`))
	dec.UseNumber()
	if err := dec.Decode(&vals); err != nil {
		t.Fatal(err)
	}
	got, err := tl.argv(vals)
	want := []string{"jq", "--arg", "a b", "-x; $(id)", "--arg", "who", "world", "--num", "k", "3", "--", "$who"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("argv %q, %v; want %q", got, err, want)
	}
	var s struct {
		Properties map[string]struct {
			Type   string
			Values struct{ Type string } `json:"additionalProperties"`
		}
	}
	if err := json.Unmarshal(tl.inputSchema(), &s); err != nil {
		t.Fatal(err)
	}
	if p := s.Properties["n"]; p.Type != "object" || p.Values.Type != "integer" {
		t.Errorf("schema of n: %+v, want an object of integers", p)
	}
	if msg := tl.inputs["n"].check(map[string]any{"k": "three"}); !strings.Contains(msg, `entry "k": expected an integer`) {
		t.Errorf("check: %q", msg)
	}
	if msg := tl.inputs["arg"].check([]any{"a"}); !strings.Contains(msg, "expected an object of names to string values") {
		t.Errorf("check: %q", msg)
	}
	if v, err := tl.inputs["arg"].parse(`{"x": "1"}`); err != nil || !reflect.DeepEqual(v, map[string]any{"x": "1"}) {
		t.Errorf("parse: %v, %v", v, err)
	}
}

func TestObjectInputProblems(t *testing.T) {
	for _, c := range []struct{ inputs, command, want string }{
		{`{"a": {"type": "object"}}`, `["p", "{a}"]`, `an object input needs a "flag" such as "--arg"`},
		{`{"a": {"type": "object", "flag": "--a="}}`, `["p", "{a}"]`, `an object input needs a "flag"`},
		{`{"a": {"type": "object", "flag": "--a"}}`, `["p", "x{a}"]`, `object input "a" must be a whole argument`},
		{`{"a": {"type": "object", "flag": "--a", "env": "A"}}`, `["p", "{a}"]`, `an object cannot go into one environment variable`},
		{`{"a": {"type": "object", "flag": "--a", "items": "boolean"}}`, `["p", "{a}"]`, `"boolean" is not an item type`},
	} {
		_, err := Parse("m.json", []byte(`{"tools": [{"name": "t", "description": "d", "command": `+c.command+`, "inputs": `+c.inputs+`}]}`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.inputs, err, c.want)
		}
	}
}
