package installer

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// An editCase is one file of testdata/edits: a config file before an
// edit, and what the editors must make of it. The archive's comment holds
// "key: value" lines:
//
//	format: json, strict, jsonc, toml, yaml or yaml-list (Continue)
//	container: the container path, as a JSON array
//	names: the server names to add and remove again, as a JSON array
//	crlf: true if every line ends in CRLF (written LF in the archive)
//	nonl: true if the files do not end with a line ending
//
// and its files:
//
//	in: the config file (the only one required)
//	add: in, after adding testEntry as the first name
//	undo: add, after removing that entry again (by default, in)
//	remove NAME: in, after removing the existing entry NAME
//	error: "LINE: TEXT": adding is refused with a FileError at LINE saying TEXT
//
// Format "json" runs each case as strict JSON and as JSONC; "strict"
// as strict JSON only.
type editCase struct {
	file      string
	formats   []format
	container []string
	names     []string
	in        string
	want      map[string]string // the other files, line endings as in
}

func loadEditCases(t testing.TB) []editCase {
	t.Helper()
	files, err := filepath.Glob("testdata/edits/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	var cases []editCase
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := editCase{file: filepath.Base(f), want: map[string]string{}}
		hdr := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(a.Comment)), "\n") {
			k, v, _ := strings.Cut(line, ":")
			hdr[k] = strings.TrimSpace(v)
		}
		switch hdr["format"] {
		case "json":
			c.formats = []format{jsonFormat{}, jsonFormat{jsonc: true}}
		case "strict":
			c.formats = []format{jsonFormat{}}
		case "jsonc":
			c.formats = []format{jsonFormat{jsonc: true}}
		case "toml":
			c.formats = []format{tomlFormat{}}
		case "yaml":
			c.formats = []format{yamlFormat{}}
		case "yaml-list":
			c.formats = []format{yamlFormat{seq: true}}
		default:
			t.Fatalf("%s: format %q", f, hdr["format"])
		}
		if err := json.Unmarshal([]byte(hdr["container"]), &c.container); err != nil {
			t.Fatalf("%s: container: %v", f, err)
		}
		if err := json.Unmarshal([]byte(hdr["names"]), &c.names); err != nil {
			t.Fatalf("%s: names: %v", f, err)
		}
		text := func(s string) string {
			if hdr["crlf"] == "true" {
				s = strings.ReplaceAll(s, "\n", "\r\n")
			}
			return s
		}
		for _, af := range a.Files {
			s := text(string(af.Data))
			if hdr["nonl"] == "true" {
				s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
			}
			if af.Name == "in" {
				c.in = s
				continue
			}
			if af.Name == "error" {
				s = strings.TrimSpace(string(af.Data))
			}
			c.want[af.Name] = s
		}
		cases = append(cases, c)
	}
	return cases
}

// isList says whether f's containers hold a list of entries with a "name"
// (Continue) rather than an object keyed by name.
func isList(f format) bool {
	y, ok := f.(yamlFormat)
	return ok && y.seq
}

// entryFor is testEntry as a server named name, for the format f.
func entryFor(f format, name string) []field {
	if isList(f) {
		return append([]field{{"name", name}}, testEntry[1:]...)
	}
	return testEntry
}

func TestEditCases(t *testing.T) {
	for _, c := range loadEditCases(t) {
		t.Run(c.file, func(t *testing.T) {
			for _, f := range c.formats {
				if want, ok := c.want["error"]; ok {
					checkRefused(t, f, c, want)
					continue
				}
				for i, name := range c.names {
					out, back := roundTrip(t, f, c.in, c.container, name)
					if i > 0 {
						continue
					}
					if want, ok := c.want["add"]; ok && out != want {
						t.Errorf("%s: after adding %q:\n%s\nwant:\n%s", f.name(), name, out, want)
					}
					if want, ok := c.want["undo"]; ok && back != want {
						t.Errorf("%s: after adding and removing %q:\n%q\nwant:\n%q", f.name(), name, back, want)
					}
				}
				for k, want := range c.want {
					name, ok := strings.CutPrefix(k, "remove ")
					if !ok {
						continue
					}
					d, err := f.parse("cfg", []byte(c.in))
					if err != nil {
						t.Fatal(err)
					}
					out, err := d.remove(c.container, name, undo{})
					if err != nil {
						t.Fatal(err)
					}
					if string(out) != want {
						t.Errorf("%s: after removing %q:\n%q\nwant:\n%q", f.name(), name, out, want)
					}
					checkVerify(t, f, d, out, c.container, name, nil)
				}
			}
		})
	}
}

// checkRefused checks that adding to c.in is refused with a FileError at
// the line and with the text want ("LINE: TEXT") gives.
func checkRefused(t *testing.T, f format, c editCase, want string) {
	t.Helper()
	var line int
	var text string
	if _, err := fmt.Sscanf(want, "%d:", &line); err != nil {
		t.Fatalf("error %q: %v", want, err)
	}
	_, text, _ = strings.Cut(want, ": ")
	d, err := f.parse("cfg", []byte(c.in))
	if err == nil {
		_, _, err = d.set(c.container, c.names[0], entryFor(f, c.names[0]))
	}
	var fe *FileError
	if !errors.As(err, &fe) || fe.File != "cfg" || fe.Line != line || !strings.Contains(fe.Msg, text) {
		t.Errorf("%s: err = %v (line %d), want a FileError for cfg at line %d saying %q", f.name(), err, lineOf(fe), line, text)
	}
}

func lineOf(fe *FileError) int {
	if fe == nil {
		return -1
	}
	return fe.Line
}

// roundTrip adds the test entry as name under container and removes it
// again, checking the file parses after each step, holds what it should
// (by the format library's own decoding), passes verify, and comes back
// byte for byte, as the docs promise.
func roundTrip(t *testing.T, f format, in string, container []string, name string) (out, back string) {
	t.Helper()
	d, err := f.parse("cfg", []byte(in))
	if err != nil {
		t.Fatalf("%s: parse input: %v", f.name(), err)
	}
	before := modelOf(t, d)
	e := entryFor(f, name)
	o, u, err := d.set(container, name, e)
	if err != nil {
		t.Fatalf("%s: set: %v", f.name(), err)
	}
	d2, err := f.parse("cfg", o)
	if err != nil {
		t.Fatalf("%s: output does not parse: %v\n%s", f.name(), err, o)
	}
	want, err := applySet(before, container, name, plain(e), 0, isList(f))
	if err != nil {
		t.Fatal(err)
	}
	if got := modelOf(t, d2); !sameModel(got, want) {
		t.Fatalf("%s: after set, model = %v, want %v\n%s", f.name(), got, want, o)
	}
	checkVerify(t, f, d, o, container, name, plain(e))
	es, err := d2.entries(container)
	if err != nil {
		t.Fatal(err)
	}
	if es[len(es)-1].name != name {
		t.Errorf("%s: new entry is not last: %v", f.name(), es)
	}
	b, err := d2.remove(container, name, u)
	if err != nil {
		t.Fatalf("%s: remove: %v", f.name(), err)
	}
	checkVerify(t, f, d2, b, container, name, nil)
	wantBack := in
	if _, ok := f.(jsonFormat); !ok && in != "" && !strings.HasSuffix(in, "\n") {
		wantBack += eolOf([]byte(in)) // the text editors end the last line
	}
	// A JSON file with no value yet (white space, comments) reads as one
	// with {}, and comes back so.
	if jd, ok := d.(*jsonDoc); ok && string(jd.body) != in {
		wantBack = string(jd.body)
	}
	if string(b) != wantBack {
		t.Errorf("%s: remove(set(x)) != x\n--- x\n%s\n--- set(x)\n%s\n--- remove(set(x))\n%s", f.name(), in, o, b)
	}
	return string(o), string(b)
}

// checkVerify checks that Target.verify accepts out as d with the entry
// name set to entry (nil: removed).
func checkVerify(t *testing.T, f format, d document, out []byte, container []string, name string, entry any) {
	t.Helper()
	tg := &Target{Assistant: &Assistant{format: f}, File: "cfg", Container: container}
	if err := tg.verify(d, plan{out: out, entry: entry}, name); err != nil {
		t.Errorf("%s: verify refused the edit: %v\n%s", f.name(), err, out)
	}
}
