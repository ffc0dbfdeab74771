package manifest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/mcp"
)

const argvManifest = `{"tools": [
  {"name": "pos", "description": "d", "command": ["prog", "--fixed", "{file}:{line}:{col}", "{paths}", "{rule}"],
   "inputs": {"file": {"required": true}, "line": {"type": "integer", "required": true}, "col": {"type": "integer", "required": true},
              "paths": {"type": "array"}, "rule": {}}},
  {"name": "flags", "description": "d", "command": ["prog", "{n}", "{tags}", "{v}", "{color}", "--", "{args}"],
   "inputs": {"n": {"type": "integer", "flag": "--max"}, "tags": {"type": "array", "flag": "--tag="},
              "v": {"type": "boolean", "flag": "--verbose"}, "color": {"type": "boolean", "flag": "--color="},
              "args": {"type": "array"}}},
  {"name": "nums", "description": "d", "command": ["prog", "{count}", "{ratio}", "{ids}", "--at={count}"],
   "inputs": {"count": {"type": "integer"}, "ratio": {"type": "number"}, "ids": {"type": "array", "items": "integer", "minimum": 0}}}
]}`

func TestArgv(t *testing.T) {
	m, err := Parse("m.json", []byte(argvManifest))
	if err != nil {
		t.Fatal(err)
	}
	pos, flags, nums := m.tools[0], m.tools[1], m.tools[2]
	for _, tc := range []struct {
		t    *tool
		args string
		want []string
		err  string
	}{
		{pos, `{"file": "a.rb", "line": 3, "col": 7.0}`, []string{"prog", "--fixed", "a.rb:3:7"}, ""},
		{pos, `{"file": "a b; rm -rf /", "line": 1, "col": 1, "paths": ["$(id)", "x\ny", ""], "rule": "r1"}`,
			[]string{"prog", "--fixed", "a b; rm -rf /:1:1", "$(id)", "x\ny", "", "r1"}, ""},
		{pos, `{"file": "--x", "line": 1, "col": 1}`, nil, `input "file": the value "--x:1:1" starts with '-'`},
		{pos, `{"file": "a", "line": 1, "col": 1, "paths": ["ok", "-rf"]}`, nil, `input "paths": the value "-rf" starts with '-'`},
		{pos, `{"file": "a", "line": 1, "col": 1, "rule": "nul\u0000"}`, nil, "NUL byte"},
		{flags, `{}`, []string{"prog", "--"}, ""},
		{flags, `{"n": 5, "tags": ["a,b", "-c"], "v": true, "color": false, "args": ["--x", "-"]}`,
			[]string{"prog", "--max", "5", "--tag=a,b", "--tag=-c", "--verbose", "--color=false", "--", "--x", "-"}, ""},
		{flags, `{"v": false, "tags": []}`, []string{"prog", "--"}, ""},
		// Whole numbers are written exactly, whatever their spelling;
		// other numbers as they were written.
		{nums, `{"count": 1e15, "ratio": 2.50, "ids": [100000000000000000000, 1.5e3, 12345678901234567890123]}`,
			[]string{"prog", "1000000000000000", "2.50", "100000000000000000000", "1500", "12345678901234567890123", "--at=1000000000000000"}, ""},
		{nums, `{"count": -0.0, "ratio": 1E-7}`, []string{"prog", "0", "1E-7", "--at=0"}, ""},
		{nums, `{"ratio": 1e401}`, []string{"prog", "1e401"}, ""}, // too long to expand
		// A negative number in a positional slot: the fix is the manifest's.
		{nums, `{"count": -1}`, nil, `input "count": the value -1 is negative, and prog would read it as an option here, so this tool cannot pass it; ` +
			`use a value of 0 or more. (The manifest can fix this: give the input a "flag", put "--" before it in "command", or declare "minimum": 0`},
		{nums, `{"ratio": -2.5}`, nil, `input "ratio": the value -2.5 is negative`},
	} {
		var vals map[string]any
		dec := json.NewDecoder(strings.NewReader(tc.args))
		dec.UseNumber()
		if err := dec.Decode(&vals); err != nil {
			t.Fatal(err)
		}
		got, err := tc.t.argv(vals)
		if tc.err != "" {
			var ae *argError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: error %v, want %q", tc.t.spec.Name, tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s:\n got %q, %v\nwant %q", tc.t.spec.Name, tc.args, got, err, tc.want)
		}
	}
}

func TestSetDefault(t *testing.T) {
	m, err := Parse("m.json", []byte(argvManifest))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := m.SetDefault("paths", `["x", "y"]`); n != 1 || err != nil {
		t.Fatalf("SetDefault paths: %d, %v", n, err)
	}
	if n, err := m.SetDefault("flags.n", "7"); n != 1 || err != nil {
		t.Fatalf("SetDefault flags.n: %d, %v", n, err)
	}
	if n, _ := m.SetDefault("pos.n", "7"); n != 0 {
		t.Errorf("SetDefault pos.n set %d inputs, want 0", n)
	}
	for value, want := range map[string]string{
		"abc": `expected an integer, got "abc"`, "1.5": "expected an integer, got 1.5", "": `expected an integer, got ""`,
		"inf": `expected an integer, got "inf"`, " 1": `expected an integer, got " 1"`, "0x10": `expected an integer, got "0x10"`,
	} {
		if _, err := m.SetDefault("line", value); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("SetDefault line=%s: %v, want it to end %q", value, err, want)
		}
	}
	if _, err := m.SetDefault("ids", "-1"); err == nil || !strings.HasSuffix(err.Error(), "item 0: -1 is less than the minimum 0") {
		t.Errorf("SetDefault ids=-1: %v", err)
	}
	if _, err := m.SetDefault("count", "1e20"); err != nil {
		t.Errorf("SetDefault count=1e20: %v", err)
	}
	var s map[string]any
	if err := json.Unmarshal(m.tools[1].inputSchema(), &s); err != nil {
		t.Fatal(err)
	}
	n := s["properties"].(map[string]any)["n"].(map[string]any)
	if n["default"] != 7.0 || n["type"] != "integer" {
		t.Errorf("schema of n = %v, want type integer, default 7", n)
	}
	if s["additionalProperties"] != false {
		t.Errorf("schema allows additional properties: %v", s)
	}
	var p map[string]any
	if err := json.Unmarshal(m.tools[0].inputSchema(), &p); err != nil {
		t.Fatal(err)
	}
	if req := p["required"].([]any); len(req) != 3 {
		t.Errorf("pos requires %v, want col, file, line", req)
	}
}

func TestNoRunAfterWait(t *testing.T) {
	m, err := Parse("m.json", []byte(`{"tools": [{"name": "t", "description": "d", "command": ["true"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m.Wait() // nothing runs: returns at once, and closes
	_, err = m.tools[0].handle(context.Background(), &mcp.CallRequest{Arguments: json.RawMessage("{}")})
	if err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("a call after Wait: %v", err)
	}
}
