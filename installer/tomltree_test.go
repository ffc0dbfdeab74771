package installer

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestParseTOML checks the rules of TOML 1.0 that parseTOML applies on
// top of go-toml's parser, and where it says a file breaks them.
func TestParseTOML(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // "LINE:COL: TEXT" of the error, or "" if the file is valid
	}{
		// Keys and tables defined once.
		{"a = 1\na = 2\n", `2:1: a is already defined at line 1, as a value`},
		{"[t]\na = 'x'\n\"a\" = 'y'\n", `3:1: t.a is already defined at line 2, as a string`},
		{"[a]\nx = 1\n[a]\n", `3:2: a is already defined at line 1, as a table`},
		{"a = 1\n[a]\n", `2:2: a is already defined at line 1, as a value`},
		{"[a.b]\n[a]\nb = 1\n", `3:1: a.b is already defined at line 1, as a table`},
		{"[a.b]\n[a]\n[a]\n", `3:2: a is already defined at line 2, as a table`},
		{"[a.b]\n[a]\n", ""},            // a super-table after its sub-table
		{"[a.b.c]\n[a]\nb.d = 1\n", ""}, // dotted keys into a table only implied
		{"a.b = 1\na.b.c = 2\n", `2:3: a.b is already defined at line 1, as a value`},
		{"a = {b = 1, b = 2}\n", `1:13: b is already defined at line 1, as a value`},
		{"x = [{a = 1, a = 2}]\n", `1:14: a is already defined at line 1, as a value`},
		// A table that dotted keys defined is not named by a header again;
		// its sub-tables may be.
		{"[fruit]\napple.color = 'red'\n[fruit.apple]\n", `3:8: fruit.apple is already defined at line 2, as a table by dotted keys`},
		{"[fruit]\napple.color = 'red'\n[fruit.apple.texture]\nsmooth = true\n", ""},
		{"[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", `4:3: a.b.c is already defined at line 1, as a table`},
		// Inline tables are whole.
		{"a = {b = 1}\n[a.c]\n", `2:2: a is already defined at line 1, as an inline table, which cannot be extended`},
		{"a = {b = 1}\n[a]\n", `2:2: a is already defined at line 1, as an inline table, which cannot be extended`},
		{"a = {b = 1}\na.c = 2\n", `2:1: a is already defined at line 1, as an inline table, which cannot be extended`},
		{"a = {b.c = 1, b.d = 2}\n", ""},
		// Arrays of tables.
		{"a = [1]\n[[a]]\n", `2:3: a is already defined at line 1, as an array, to which [[ ]] cannot add tables`},
		{"[[a]]\n[a]\n", `2:2: a is already defined at line 1, as an array of tables`},
		{"[a]\n[[a]]\n", `2:3: a is already defined at line 1, as a table`},
		{"[[a]]\nx = 1\n[[a]]\nx = 2\n[a.b]\ny = 3\n[[a.c]]\n", ""},
		// What go-toml's parser leaves to its caller.
		{"x = 99999999999999999999\n", `1:5: 99999999999999999999 is out of range for a 64-bit integer`},
		{"x = [1, 99999999999999999999]\n", `1:9: 99999999999999999999 is out of range`},
		{"x = 1979-13-45\n", `1:5: 1979-13-45 is not a valid date or time (impossible date)`},
		{"x = 1979-05-27T07:32:00Z\ny = 07:32:00\n", ""},
		// Syntax errors, as go-toml's parser reports them.
		{"[mcp_servers.a]\ncommand = \"x\n", `2:13: basic strings cannot have new lines`},
		{"x = 1 2\n", `1:7: expected newline but got U+0032 '2'`},
		{"[a\n", `1:3: expected ']' to close table name`},
		{"x = 01\n", `1:5: integers cannot have leading zeroes`},
		{"x = \"a", `1:6: unterminated basic string`},
		// Characters outside ASCII are named whole, not by their first byte.
		{"ключ = 1\n", `1:1: invalid character at start of key: U+043A 'к'`},
		{"x = 1 é\n", `1:7: expected newline but got U+00E9 'é'`},
		{"x = \"\\é\"\n", `1:6: invalid escape character U+00E9 'é'`},
		{"x = 1 \xff\n", `1:7: expected newline but got byte 0xff (not UTF-8)`},
	} {
		_, err := parseTOML("cfg", []byte(c.in))
		var fe *FileError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v, want no error", c.in, err)
		case c.want == "":
		case !errors.As(err, &fe):
			t.Errorf("%q: err = %v, want a FileError saying %q", c.in, err, c.want)
		case fe.File != "cfg" || !strings.HasPrefix(fmt.Sprintf("%d:%d: %s", fe.Line, fe.Col, strings.TrimPrefix(fe.Msg, "invalid TOML: ")), c.want):
			t.Errorf("%q: err at %d:%d: %s, want %s", c.in, fe.Line, fe.Col, fe.Msg, c.want)
		}
	}
}

// TestTOMLTree checks the data parseTOML finds against BurntSushi/toml's
// decoder, and that verify's tree does not depend on the order of keys.
func TestTOMLTree(t *testing.T) {
	in := `top = "t"
a.b.c = 1
[fruit]
apple.color = 'red'
apple.taste.sweet = true
[fruit.apple.texture]
smooth = true
[[products]]
name = "Hammer"
sku = 738594937
[[products]]
[[products]]
name = "Nail"
color = "gray"
dims = { w = 1.5, h = 2e3, tags = ["x", 'y'] }
[x.y.z]
when = 1979-05-27T07:32:00Z
[x]
"quoted key" = """multi
line"""
`
	d, err := tomlFormat{}.parse("cfg", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.(*tomlDoc).root.plain(), modelOf(t, d); !sameModel(got, want) {
		t.Errorf("data = %v, want %v", got, want)
	}
	other, err := tomlFormat{}.parse("cfg", []byte("[x]\n\"quoted key\" = \"multi\\nline\"\n[x.y.z]\nwhen = 1979-05-27T07:32:00Z\n"))
	if err != nil {
		t.Fatal(err)
	}
	n1, _ := d.tree()
	n2, _ := other.tree()
	for _, k := range []string{"top", "a", "fruit", "products"} {
		i, _ := n1.get(k)
		n1.del(i)
	}
	if !n1.equal(n2) {
		t.Errorf("trees of the same data differ:\n%v\n%v", n1, n2)
	}
}
