package installer

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzJSONEdit checks, for any file the JSON and JSONC editors accept,
// that adding a server gives a file that parses and holds exactly the old
// data plus the server, and that removing it gives the original bytes.
func FuzzJSONEdit(f *testing.F) {
	for _, c := range loadEditCases(f) {
		if _, ok := c.formats[0].(jsonFormat); ok {
			f.Add(c.in, "mcpship", false)
			f.Add(c.in, "my.server", true)
		}
	}
	f.Add("{\"mcpServers\": {\"a\": {}, \"b\": {}}}", "a", false)
	f.Add("{\"mcpServers\": {\"a\": {}, /*c*/ \"b\": {\"x\": 1}, // d\n \"c\": {},}}", "z", true)
	f.Add("{\n  \"mcpServers\": {\n    \"a\": {},\n    // about b\n    \"b\": {} // b\n    ,\"c\": {}\n  }\n}", "z", true)
	f.Fuzz(func(t *testing.T, in, name string, comments bool) {
		if (Entry{Name: name, Command: "c"}).check() != nil {
			return // Add refuses such names
		}
		fm := jsonFormat{jsonc: comments}
		d, err := fm.parse("f", []byte(in))
		if err != nil {
			return
		}
		container := []string{"mcpServers"}
		es, err := d.entries(container)
		if err != nil {
			return // wrong shape: refused
		}
		before := modelOf(t, d)
		if err != nil {
			t.Fatalf("accepted file has no model: %v", err)
		}
		existed := false
		for _, e := range es {
			existed = existed || e.name == name
		}
		// Removing any existing entry keeps the file parseable and
		// everything else in it.
		for _, e := range es {
			out, err := d.remove(container, e.name, undo{})
			if err != nil {
				t.Fatalf("remove %q: %v", e.name, err)
			}
			d2, err := fm.parse("f", out)
			if err != nil {
				t.Fatalf("remove produced an unparseable file: %v\n%q\n%q", err, in, out)
			}
			got := modelOf(t, d2)
			want, _ := applySet(before, container, e.name, nil, 0, false)
			if !sameModel(got, want) {
				t.Fatalf("remove %q changed other data:\n%q\n%q", e.name, in, out)
			}
		}
		out, u, err := d.set(container, name, testEntry)
		if err != nil {
			t.Fatalf("set: %v", err)
		}
		d2, err := fm.parse("f", out)
		if err != nil {
			t.Fatalf("set produced an unparseable file: %v\n%q", err, out)
		}
		got := modelOf(t, d2)
		want, err := applySet(before, container, name, plain(testEntry), 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if !sameModel(got, want) {
			t.Fatalf("set changed other data:\n%q\n%q", in, out)
		}
		checkVerify(t, fm, d, out, container, name, plain(testEntry))
		if existed {
			return // a replaced entry cannot be restored by remove
		}
		back, err := d2.remove(container, name, u)
		if err != nil {
			t.Fatalf("remove: %v", err)
		}
		// A file with no value yet (white space, comments) reads as one
		// with {}, and comes back so.
		if jd, ok := d.(*jsonDoc); ok && string(jd.body) != in {
			in = string(jd.body)
		}
		if string(back) != in {
			t.Fatalf("remove(set(x)) != x\nx:      %q\nset:    %q\nremove: %q", in, out, back)
		}
	})
}

// FuzzTOMLEdit checks, for any file the TOML editor accepts and
// BurntSushi/toml decodes, that removing an entry or adding a server
// either is refused or gives a file that holds exactly the old data with
// that change, as BurntSushi/toml decodes it, and that verify accepts;
// and that removing an added server gives the original bytes.
func FuzzTOMLEdit(f *testing.F) {
	for _, c := range loadEditCases(f) {
		if _, ok := c.formats[0].(tomlFormat); ok {
			f.Add(c.in, "mcpship")
			f.Add(c.in, "alpha")
		}
	}
	f.Add("[mcp_servers.a]\ncommand = 'x'\n[mcp_servers.a.env]\nA = 1\n[[mcp_servers.a.tools]]\n[b]\n", "a")
	f.Fuzz(func(t *testing.T, in, name string) {
		if (Entry{Name: name, Command: "c"}).check() != nil {
			return // Add refuses such names
		}
		var m any
		if _, err := toml.Decode(in, &m); err != nil {
			return // no model to compare with
		}
		fm := tomlFormat{}
		d, err := fm.parse("f", []byte(in))
		if err != nil {
			return
		}
		container := []string{"mcp_servers"}
		es, err := d.entries(container)
		if err != nil {
			return // wrong shape: refused
		}
		before := modelOf(t, d)
		// holds reports whether out holds want, with or without the
		// container that the edit emptied.
		holds := func(out []byte, name string, e any) bool {
			d2, err := fm.parse("f", out)
			if err != nil {
				t.Fatalf("edit produced an unparseable file: %v\n%q\n%q", err, in, out)
			}
			got := modelOf(t, d2)
			want, _ := applySet(before, container, name, e, 0, false)
			emptied, _ := applySet(before, container, name, e, 1, false)
			return sameModel(got, want) || sameModel(got, emptied)
		}
		existed := false
		for _, e := range es {
			existed = existed || e.name == name
			out, err := d.remove(container, e.name, undo{})
			if err != nil {
				continue // not written as one [table]: refused
			}
			if !holds(out, e.name, nil) {
				t.Fatalf("remove %q changed other data:\n%q\n%q", e.name, in, out)
			}
			checkVerify(t, fm, d, out, container, e.name, nil)
		}
		out, u, err := d.set(container, name, testEntry)
		if err != nil {
			return // refused
		}
		if !holds(out, name, plain(testEntry)) {
			t.Fatalf("set changed other data:\n%q\n%q", in, out)
		}
		checkVerify(t, fm, d, out, container, name, plain(testEntry))
		if existed {
			return // a replaced entry cannot be restored by remove
		}
		d2, _ := fm.parse("f", out)
		back, err := d2.remove(container, name, u)
		if err != nil {
			t.Fatalf("remove: %v", err)
		}
		want := in
		if in != "" && !strings.HasSuffix(in, "\n") {
			want += eolOf([]byte(in))
		}
		if string(back) != want && strings.TrimSpace(in) != "" {
			t.Fatalf("remove(set(x)) != x\nx:      %q\nset:    %q\nremove: %q", in, out, back)
		}
	})
}
