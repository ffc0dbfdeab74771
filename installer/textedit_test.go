package installer

import (
	"strings"
	"testing"
)

var tomlInputs = []string{
	"",
	"model = \"o3\"\n",
	"model = \"o3\"",
	"# Codex config\r\nmodel = \"o3\"\r\n\r\n[mcp_servers.alpha]\r\ncommand = \"npx\"\r\nfuture_unknown_key = 1\r\n\r\n[mcp_servers.alpha.tools.search]\r\nenabled = false\r\n\r\n# profiles\r\n[profiles.x]\r\nmodel = \"y\"\r\n",
	"[mcp_servers]\n\n[mcp_servers.\"my.server\"]\ncommand = 'x'\n",
}

func TestTOMLRoundTrip(t *testing.T) {
	for _, in := range tomlInputs {
		for _, name := range []string{"mcpship", "my.server2", "a b", `q"uote`} {
			out := roundTrip(t, tomlFormat{}, in, []string{"mcp_servers"}, name)
			if strings.Contains(in, "\r\n") && strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\n") {
				t.Errorf("LF written into a CRLF file:\n%q", out)
			}
		}
	}
}

func TestTOMLRemoveMiddle(t *testing.T) {
	in := tomlInputs[3]
	d, err := tomlFormat{}.parse("c.toml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.remove([]string{"mcp_servers"}, "alpha", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Codex config\r\nmodel = \"o3\"\r\n\r\n# profiles\r\n[profiles.x]\r\nmodel = \"y\"\r\n"
	if string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func TestTOMLRefuses(t *testing.T) {
	for in, line := range map[string]int{
		"[mcp_servers.a]\ncommand = \"x\n": 2,
		"mcp_servers = 3\n":                0,
		"a = 1\n[a]\n":                     2,
	} {
		d, err := tomlFormat{}.parse("c.toml", []byte(in))
		if err == nil {
			_, _, err = d.set([]string{"mcp_servers"}, "x", testEntry)
		}
		fe, ok := err.(*FileError)
		if !ok || fe.Line != line || fe.File != "c.toml" {
			t.Errorf("%q: err = %v, want a FileError at line %d", in, err, line)
		}
	}
	// An entry written inline cannot be replaced by a table edit.
	d, err := tomlFormat{}.parse("c.toml", []byte("mcp_servers = { x = { command = \"y\" } }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.set([]string{"mcp_servers"}, "x", testEntry); err == nil {
		t.Error("replaced an inline table entry")
	}
}

var gooseInputs = []string{
	"",
	"GOOSE_PROVIDER: openai\n",
	"GOOSE_PROVIDER: openai\nextensions:\n  developer:\n    enabled: true # keep\n    name: developer\n    type: builtin\n\n# trailing comment\nGOOSE_MODEL: gpt\n",
	"extensions:\n    developer:\n        enabled: true\n        type: builtin\n",
	"extensions:\nx: 1\n",
	"\r\nextensions:\r\n  a:\r\n    cmd: x\r\n",
}

var continueInputs = []string{
	"",
	"name: My Assistant\nversion: 0.0.1\n",
	"name: A\nmcpServers:\n  - name: SQLite\n    command: npx # comment\n    args:\n      - -y\n      - x\nmodels: []\n",
	"mcpServers:\n- name: a\n  command: x\n",
}

func TestYAMLRoundTrip(t *testing.T) {
	for _, in := range gooseInputs {
		for _, name := range []string{"mcpship", "my.server", "yes", "a: b"} {
			roundTrip(t, yamlFormat{}, in, []string{"extensions"}, name)
		}
	}
	for _, in := range continueInputs {
		e := append([]field{{"name", "mcpship"}}, testEntry[1:]...)
		d, err := yamlFormat{seq: true}.parse("c.yaml", []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		before := modelOf(t, d)
		out, created, err := d.set([]string{"mcpServers"}, "mcpship", e)
		if err != nil {
			t.Fatal(err)
		}
		d2, err := yamlFormat{seq: true}.parse("c.yaml", out)
		if err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		got := modelOf(t, d2)
		want, _ := applySet(before, []string{"mcpServers"}, "mcpship", plain(e), 0, true)
		if !sameModel(got, want) {
			t.Errorf("after set: %v, want %v\n%s", got, want, out)
		}
		back, err := d2.remove([]string{"mcpServers"}, "mcpship", created)
		if err != nil {
			t.Fatal(err)
		}
		if string(back) != in {
			t.Errorf("remove(set(x)) = %q, want %q (set: %q)", back, in, out)
		}
	}
}

func TestYAMLRefuses(t *testing.T) {
	for in, line := range map[string]int{
		"extensions:\n  a: 1\n    b: 2\n": 3,
		"extensions: {a: {cmd: x}}\n":     1,
		"extensions: 3\n":                 1,
		"- a\n- b\n":                      1,
		"extensions:\n\t- a\n":            2,
	} {
		d, err := yamlFormat{}.parse("g.yaml", []byte(in))
		if err == nil {
			_, _, err = d.set([]string{"extensions"}, "x", testEntry)
		}
		fe, ok := err.(*FileError)
		if !ok || fe.Line != line {
			t.Errorf("%q: err = %v, want a FileError at line %d", in, err, line)
		}
	}
}
