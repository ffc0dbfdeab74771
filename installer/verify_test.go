package installer

import (
	"fmt"
	"strings"
	"testing"
)

// A verifyCase is an edit handed to verify: the old body, a change of it
// (the planned edit, or a wrong one), and what verify must say.
type verifyCase struct {
	what      string
	f         format
	in        string
	container []string
	name      string
	// out is the new body: edit(set or remove, as planned), the output of
	// the planned edit, changed by the replacements.
	remove bool
	repl   []string // old, new, old, new, ...: replaced once each in the output
	err    string   // what verify's error says, or "" for accepted
}

const verifyJSON = `{
  "numStartups": 3,
  "mcpServers": {
    "a": {"command": "x"},
    "b": {"command": "y", "args": ["1", "2"]}
  },
  "projects": {"/p": {"mcpServers": {}, "history": [{"display": "hi \u00e9", "n": 1.5}]}},
  "userID": "u"
}
`

const verifyTOML = `model = "o3"

[mcp_servers.a]
command = "x"

[mcp_servers.a.env]
K = "v"

[mcp_servers.b]
command = "y"
args = ["1", "2"]

[profiles.p]
model = "gpt-5"
`

// manyTOML is tables enough for mcp_servers to be a large table, one
// with an index.
var manyTOML = func() string {
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "[mcp_servers.s%d]\ncommand = \"s%d\"\n", i, i)
	}
	return b.String()
}()

var verifyCases = []verifyCase{
	// JSON: the edit as planned, then wrong plans.
	{what: "add", f: jsonFormat{}, in: verifyJSON, name: "new"},
	{what: "remove", f: jsonFormat{}, in: verifyJSON, name: "a", remove: true},
	{what: "replace", f: jsonFormat{}, in: verifyJSON, name: "b"},
	{what: "same data written otherwise", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`hi \u00e9`, "hi é", `"numStartups": 3`, `"numStartups":3`}},
	{what: "broken structure", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"args": ["1", "2"]}`, `"args": ["1", "2"]`}, err: "invalid JSON"},
	{what: "a value before the entry", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"numStartups": 3`, `"numStartups": 4`}, err: "data outside"},
	{what: "a number written otherwise", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"numStartups": 3`, `"numStartups": 3.0`}, err: "data outside"},
	{what: "a value after the entry", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"userID": "u"`, `"userID": "v"`}, err: "data outside"},
	{what: "a key after the entry", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"userID"`, `"userId"`}, err: "data outside"},
	{what: "a value between two changes", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"n": 1.5`, `"n": 2.5`, `"userID": "u"`, `"userID": "u" `}, err: "data outside"},
	{what: "a string between two changes", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`hi \u00e9`, `hi \u00e8`, `"userID": "u"`, `"userID": "u" `}, err: "data outside"},
	{what: "another container of the same key", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"mcpServers": {},`, `"mcpServers": {"new": {}},`}, err: "data outside"},
	{what: "a sibling entry", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`["1", "2"]`, `["1", "3"]`}, err: "data outside"},
	{what: "a sibling entry removed", f: jsonFormat{}, in: verifyJSON, name: "a", remove: true,
		repl: []string{`"b": {"command": "y", "args": ["1", "2"]}`, ``}, err: "data outside"},
	{what: "members reordered", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"numStartups": 3,`, ``, `"userID": "u"`, `"userID": "u", "numStartups": 3`}, err: "data outside"},
	{what: "a container emptied that held another entry", f: jsonFormat{}, in: verifyJSON, name: "a", remove: true,
		repl: []string{`"mcpServers": {` + "\n" + `    "b": {"command": "y", "args": ["1", "2"]}` + "\n  },", ``}, err: "data outside"},
	{what: "another entry", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"a": {"command": "x"},`, `"a": {"command": "x"}, "c": {},`}, err: "data outside"},
	{what: "a string that takes in what follows it", f: jsonFormat{}, in: `{"mcpServers": {}, "a": "q", "b": "q"}`, name: "new",
		repl: []string{`"a": "q"`, `"a": "q\", \"b\": \"q"`}, err: "data outside"},
	{what: "a string that takes in what precedes it", f: jsonFormat{}, in: `{"a": "q", "b": "q", "mcpServers": {}}`, name: "new",
		repl: []string{`"b": "q"`, `"b": "q\", \"b\": \"q"`}, err: "data outside"},
	{what: "the container twice", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"userID": "u"`, `"userID": "u", "mcpServers": {}`}, err: "appears twice"},
	{what: "the entry other than planned", f: jsonFormat{}, in: verifyJSON, name: "new",
		repl: []string{`"/usr/bin/mcpship"`, `"/usr/bin/other"`}, err: "other data than planned"},
	{what: "the entry left in", f: jsonFormat{}, in: verifyJSON, name: "a", remove: true,
		repl: []string{`"b": {`, `"a": {}, "b": {`}, err: "still there"},

	// The containers init creates, and remove deletes when it leaves
	// them empty, are not data outside the entry.
	{what: "add, creating the container", f: jsonFormat{}, in: `{"x": 1}`, name: "new"},
	{what: "add, creating the path", f: jsonFormat{}, in: `{"x": 1, "projects": {}}`, container: []string{"projects", "/p", "mcpServers"}, name: "new"},
	{what: "add into an empty container", f: jsonFormat{}, in: `{"x": 1, "mcpServers": {}}`, name: "new"},
	{what: "remove, deleting the container", f: jsonFormat{}, in: `{"x": 1, "mcpServers": {"new": {}}}`, name: "new", remove: true},
	{what: "remove, keeping the container", f: jsonFormat{}, in: `{"x": 1, "mcpServers": {"new": {}}}`, name: "new", remove: true,
		repl: []string{`{"x": 1}`, `{"x": 1, "mcpServers": {}}`}},
	{what: "remove, deleting the path", f: jsonFormat{}, in: `{"x": 1, "projects": {"/p": {"mcpServers": {"new": {}}}}}`, container: []string{"projects", "/p", "mcpServers"}, name: "new", remove: true},
	{what: "remove, deleting a path that held more", f: jsonFormat{}, in: `{"x": 1, "projects": {"/p": {"h": 1, "mcpServers": {"new": {}}}}}`, container: []string{"projects", "/p", "mcpServers"}, name: "new", remove: true,
		repl: []string{`, "projects": {"/p": {"h": 1}}`, ``}, err: "data outside"},
	{what: "add, emptying a container on the path", f: jsonFormat{}, in: `{"x": 1, "projects": {"/q": {}}}`, container: []string{"projects", "/p", "mcpServers"}, name: "new",
		repl: []string{`"/q": {}`, `"/r": {}`}, err: "data outside"},

	// JSONC: comments are not data.
	{what: "add, with comments", f: jsonFormat{jsonc: true}, in: "// c\n{\"a\": 1, /* b */ \"mcpServers\": {\"m\": {},},}", name: "new"},
	{what: "a comment elsewhere", f: jsonFormat{jsonc: true}, in: "// c\n{\"a\": 1, /* b */ \"mcpServers\": {\"m\": {},},}", name: "new",
		repl: []string{"/* b */", "/* d */"}},
	{what: "a value behind a comment", f: jsonFormat{jsonc: true}, in: "// c\n{\"a\": 1, /* b */ \"mcpServers\": {\"m\": {},},}", name: "new",
		repl: []string{`"a": 1`, `"a": 2`}, err: "data outside"},

	// TOML.
	{what: "add", f: tomlFormat{}, in: verifyTOML, name: "new"},
	{what: "remove", f: tomlFormat{}, in: verifyTOML, name: "a", remove: true},
	{what: "replace", f: tomlFormat{}, in: verifyTOML, name: "b"},
	{what: "keys in another order", f: tomlFormat{}, in: verifyTOML, name: "new",
		repl: []string{"command = \"y\"\nargs = [\"1\", \"2\"]", "args = [\"1\", \"2\"]\ncommand = \"y\""}},
	{what: "a table defined twice", f: tomlFormat{}, in: verifyTOML, name: "new",
		repl: []string{"[profiles.p]", "[mcp_servers.b]\n[profiles.p]"}, err: "already defined"},
	{what: "a value before the entry", f: tomlFormat{}, in: verifyTOML, name: "new",
		repl: []string{`model = "o3"`, `model = "o4"`}, err: "data outside"},
	{what: "a value after the entry", f: tomlFormat{}, in: verifyTOML, name: "a", remove: true,
		repl: []string{`model = "gpt-5"`, `model = "gpt-6"`}, err: "data outside"},
	{what: "a sibling entry", f: tomlFormat{}, in: verifyTOML, name: "new",
		repl: []string{`["1", "2"]`, `["1", "3"]`}, err: "data outside"},
	{what: "a key moved to another table", f: tomlFormat{}, in: verifyTOML, name: "new",
		repl: []string{"[profiles.p]\nmodel = \"gpt-5\"", "model = \"gpt-5\"\n[profiles.p]"}, err: "data outside"},
	{what: "a sub-table moved", f: tomlFormat{}, in: verifyTOML, name: "new",
		repl: []string{"[mcp_servers.a.env]", "[mcp_servers.b.env]"}, err: "data outside"},
	{what: "another entry", f: tomlFormat{}, in: verifyTOML, name: "new",
		repl: []string{"[profiles.p]", "[mcp_servers.c]\n[profiles.p]"}, err: "data outside"},
	{what: "another key", f: tomlFormat{}, in: verifyTOML, name: "new",
		repl: []string{"[profiles.p]", "x = 1\n[profiles.p]"}, err: "data outside"},
	{what: "a container emptied that held another entry", f: tomlFormat{}, in: verifyTOML, name: "a", remove: true,
		repl: []string{"[mcp_servers.b]\ncommand = \"y\"\nargs = [\"1\", \"2\"]\n", ""}, err: "data outside"},
	{what: "a value in a large table", f: tomlFormat{}, in: verifyTOML + manyTOML, name: "new",
		repl: []string{`command = "s11"`, `command = "t11"`}, err: "data outside"},
	{what: "keys in another order in a large table", f: tomlFormat{}, in: verifyTOML + manyTOML, name: "new",
		repl: []string{"[mcp_servers.s11]\ncommand = \"s11\"\n", "", "[profiles.p]", "[mcp_servers.s11]\ncommand = \"s11\"\n[profiles.p]"}},
	{what: "the entry other than planned", f: tomlFormat{}, in: verifyTOML, name: "new",
		repl: []string{`"/usr/bin/mcpship"`, `"/usr/bin/other"`}, err: "other data than planned"},
	{what: "add, creating the container", f: tomlFormat{}, in: "model = \"o3\"\n", name: "new"},
	{what: "add into an empty container", f: tomlFormat{}, in: "model = \"o3\"\n[mcp_servers]\n", name: "new"},
	{what: "remove, leaving the container empty", f: tomlFormat{}, in: "model = \"o3\"\n[mcp_servers.new]\ncommand = \"c\"\n", name: "new", remove: true},
	{what: "remove, deleting a table that held more", f: tomlFormat{}, in: "model = \"o3\"\n[mcp_servers]\nx = 1\n[mcp_servers.new]\ncommand = \"c\"\n", name: "new", remove: true,
		repl: []string{"[mcp_servers]\nx = 1\n", ""}, err: "data outside"},
	{what: "an inline table elsewhere", f: tomlFormat{}, in: "t = { a = 1, b = [2] }\n" + verifyTOML, name: "new",
		repl: []string{"b = [2]", "b = [3]"}, err: "data outside"},
}

// TestVerify hands verify planned edits and wrong ones, and checks that
// it accepts the first and refuses the others, saying why; and that
// where the documents compare themselves, they say what comparing their
// trees says.
func TestVerify(t *testing.T) {
	for _, c := range verifyCases {
		t.Run(c.f.name()+"/"+c.what, func(t *testing.T) {
			container := c.container
			if container == nil {
				container = []string{map[bool]string{true: "mcp_servers", false: "mcpServers"}[c.f.name() == "TOML"]}
			}
			d, err := c.f.parse("cfg", []byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			var out []byte
			var entry any
			if c.remove {
				out, err = d.remove(container, c.name, undo{created: len(container)})
			} else {
				e := entryFor(c.f, c.name)
				entry = plain(e)
				out, _, err = d.set(container, c.name, e)
			}
			if err != nil {
				t.Fatal(err)
			}
			s := string(out)
			for i := 0; i < len(c.repl); i += 2 {
				if !strings.Contains(s, c.repl[i]) {
					t.Fatalf("%q is not in the output:\n%s", c.repl[i], s)
				}
				s = strings.Replace(s, c.repl[i], c.repl[i+1], 1)
			}
			tg := &Target{Assistant: &Assistant{format: c.f}, File: "cfg", Container: container}
			err = tg.verify(d, plan{out: []byte(s), entry: entry}, c.name)
			switch {
			case c.err == "" && err != nil:
				t.Errorf("verify refused the edit: %v\n%s", err, s)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("verify said %v, want an error saying %q\n%s", err, c.err, s)
			}
			nd, err := c.f.parse("cfg", []byte(s))
			if err != nil {
				return
			}
			checkSameRest(t, d, nd, container, c.name)
		})
	}
}

// checkSameRest checks that d's own comparison with nd, where d has one
// and it can tell, agrees with comparing the trees, and that it can
// tell for JSON and TOML documents whose container path holds objects.
func checkSameRest(t *testing.T, d, nd document, container []string, name string) {
	t.Helper()
	fast, isFast := d.(restComparer)
	if !isFast {
		return
	}
	same, ok := fast.sameRest(nd, container, name)
	if !ok {
		t.Errorf("sameRest cannot tell")
		return
	}
	before, err1 := restTree(d, container, name)
	after, err2 := restTree(nd, container, name)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if want := before.equal(after); same != want {
		t.Errorf("sameRest = %v, the trees compare %v", same, want)
	}
}

// FuzzSameRest checks that where a document compares itself with
// another (an edit of it, or any other text), it says what comparing
// their trees says.
func FuzzSameRest(f *testing.F) {
	formats := []format{jsonFormat{}, jsonFormat{jsonc: true}, tomlFormat{}}
	for _, c := range verifyCases {
		k := 2
		if c.f.name() != "TOML" {
			k = 1
		}
		d, err := c.f.parse("cfg", []byte(c.in))
		if err != nil {
			f.Fatal(err)
		}
		container := []string{"mcpServers"}
		if k == 2 {
			container = []string{"mcp_servers"}
		}
		out, _, err := d.set(container, c.name, entryFor(c.f, c.name))
		if err != nil {
			continue
		}
		f.Add(c.in, string(out), c.name, uint8(k))
		f.Add(string(out), c.in, c.name, uint8(k))
	}
	f.Fuzz(func(t *testing.T, in, out, name string, k uint8) {
		fm := formats[int(k)%len(formats)]
		container := []string{"mcpServers"}
		if fm.name() == "TOML" {
			container = []string{"mcp_servers"}
		}
		d, err := fm.parse("a", []byte(in))
		if err != nil {
			return
		}
		nd, err := fm.parse("b", []byte(out))
		if err != nil {
			return
		}
		same, ok := d.(restComparer).sameRest(nd, container, name)
		if !ok {
			return
		}
		before, err1 := restTree(d, container, name)
		after, err2 := restTree(nd, container, name)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if want := before.equal(after); same != want {
			t.Fatalf("sameRest = %v, the trees compare %v\n%q\n%q", same, want, in, out)
		}
	})
}
