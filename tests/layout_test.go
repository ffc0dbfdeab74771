package tests

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcpship/mcpship"

// public are the packages a Go author imports. Each is a promise to keep;
// a new one is added here and to docs/design.md, or goes under internal/.
var public = []string{"mcp", "installer", "release", "registercmd", "cliadapter", "cobraadapter", "cliv3adapter", "warm"}

// engines are the internal packages each public package may import: the
// engine it is a thin face of, or a small helper. mcp imports only its
// seam for a proxy, internal/mcpproxy, and internal/signed (both standard
// library only), and release none.
var engines = map[string][]string{
	"mcp":          {"internal/mcpproxy", "internal/signed"},
	"installer":    {"internal/filelock", "internal/atomicfile", "internal/loopback"},
	"registercmd":  {"internal/register", "internal/probe"},
	"cliadapter":   {"internal/clitool"},
	"cobraadapter": {"internal/clitool"},
	"cliv3adapter": {"internal/clitool"},
	"warm":         {"internal/resultcache"},
}

// faces are the public packages that sit on top of an engine: nothing
// under internal/ imports them, so arrows never point back up.
var faces = []string{"registercmd", "cliadapter", "cobraadapter", "cliv3adapter"}

// appOnly are the modules for the apps of cobraadapter and cliv3adapter,
// which the mcpship binary must not link.
var appOnly = []string{"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/urfave/cli/v3"}

type listed struct {
	ImportPath string
	Imports    []string
}

// list returns go list's view of the module's packages, by path relative
// to the module ("mcp", "internal/register", "cmd/mcpship").
func list(t *testing.T) map[string]listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]listed{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[rel(p.ImportPath)] = p
	}
	return pkgs
}

// rel is path relative to the module, or path itself outside it.
func rel(path string) string {
	if path == module {
		return "."
	}
	if r, ok := strings.CutPrefix(path, module+"/"); ok {
		return r
	}
	return path
}

func inModule(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }

func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// TestArrows pins the layout of docs/design.md: the public packages are
// exactly the eight a Go author imports; mcp imports only the standard
// library, internal/mcpproxy and internal/signed; a public package imports no other package of the module but
// public ones and its own engine under internal/; nothing under internal/
// imports a public face; nothing imports cmd, examples or tests; and
// Cobra and urfave/cli v3 stay out of cmd/mcpship, imported only by their
// adapters (TestMcpshipLinksNeitherCobraNorCliV3 checks the built binary).
func TestArrows(t *testing.T) {
	pkgs := list(t)
	for path := range pkgs {
		top := strings.Split(path, "/")[0]
		if !slices.Contains(public, path) && !slices.Contains([]string{"internal", "cmd", "examples", "tests"}, top) {
			t.Errorf("%s is a public package that is not one of %v: move it under internal/, or make it public here and in docs/design.md", path, public)
		}
	}
	for _, p := range public {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("no package %s", p)
		}
	}

	nonstd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./mcp")
	nonstd.Dir = ".."
	out, err := nonstd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./mcp: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != module+"/mcp" && dep != module+"/internal/mcpproxy" && dep != module+"/internal/signed" {
			t.Errorf("mcp depends on %s; it imports only the standard library, internal/mcpproxy and internal/signed", dep)
		}
	}

	for path, p := range pkgs {
		for _, imp := range p.Imports {
			if !inModule(imp) {
				if slices.Contains(appOnly, imp) || slices.ContainsFunc(appOnly, func(m string) bool { return under(imp, m) }) {
					if !under(path, "cobraadapter") && !under(path, "cliv3adapter") && !under(path, "examples") {
						t.Errorf("%s imports %s, which only cobraadapter and cliv3adapter (and their apps) may", path, imp)
					}
				}
				continue
			}
			imp = rel(imp)
			for _, top := range []string{"cmd", "examples", "tests"} {
				if under(imp, top) && !under(path, top) {
					t.Errorf("%s imports %s: nothing imports %s/", path, imp, top)
				}
			}
			switch {
			case slices.Contains(public, path):
				if under(imp, "internal") && !slices.Contains(engines[path], imp) {
					t.Errorf("%s imports %s; a public package imports only public ones and its own engine %v", path, imp, engines[path])
				}
			case under(path, "internal"):
				if slices.Contains(faces, imp) {
					t.Errorf("%s imports %s: the public face sits on the engine, not under it", path, imp)
				}
			}
		}
	}

	cmd := exec.Command("go", "list", "-deps", "./cmd/mcpship")
	cmd.Dir = ".."
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/urfave/cli/v2") {
		t.Fatalf("cmd/mcpship does not depend on urfave/cli/v2, which it uses; the check cannot work:\n%s", out)
	}
	for _, dep := range deps {
		for _, m := range appOnly {
			if under(dep, m) {
				t.Errorf("cmd/mcpship depends on %s", dep)
			}
		}
		if dep == module+"/cobraadapter" || dep == module+"/cliv3adapter" {
			t.Errorf("cmd/mcpship depends on %s", dep)
		}
	}
}

// surface is the most exported identifiers each public package may have:
// types, functions, methods, struct fields, constants and variables, as
// exported counts them. Every one is a promise to keep (docs/design.md):
// what only mcpship uses goes under internal/. Lower a figure when a
// package sheds names.
var surface = map[string]int{
	"mcp":          174,
	"installer":    86,
	"release":      10,
	"registercmd":  18,
	"cliadapter":   25,
	"cobraadapter": 25,
	"cliv3adapter": 25,
	"warm":         5,
}

// TestPublicSurface holds each public package to its surface of exported
// identifiers, each top-level one with a doc comment.
func TestPublicSurface(t *testing.T) {
	for _, p := range public {
		files, err := filepath.Glob(filepath.Join("..", p, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		var names []string
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				names = append(names, exported(d)...)
				for _, name := range undocumented(d) {
					t.Errorf("%s.%s has no doc comment", p, name)
				}
			}
		}
		if n, most := len(names), surface[p]; n > most {
			slices.Sort(names)
			t.Errorf("%s exports %d identifiers, more than %d: move what only mcpship uses under internal/, or raise its figure in surface if the package must promise more:\n%s",
				p, n, most, strings.Join(names, "\n"))
		}
	}
}

// exported returns the exported identifiers d declares: types with their
// exported fields and interface methods, functions, methods of exported
// types, constants and variables.
func exported(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if !s.Name.IsExported() {
					continue
				}
				names = append(names, s.Name.Name)
				var members *ast.FieldList
				switch t := s.Type.(type) {
				case *ast.StructType:
					members = t.Fields
				case *ast.InterfaceType:
					members = t.Methods
				}
				if members == nil {
					continue
				}
				for _, m := range members.List {
					for _, n := range m.Names {
						if n.IsExported() {
							names = append(names, s.Name.Name+"."+n.Name)
						}
					}
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// undocumented returns the exported names d declares without a doc
// comment (a name in a documented group counts as documented).
func undocumented(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Name.IsExported() && d.Doc == nil && (d.Recv == nil || exportedRecv(d.Recv)) {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() && d.Doc == nil && s.Doc == nil {
					names = append(names, s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() && d.Doc == nil && s.Doc == nil && s.Comment == nil {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

func exportedRecv(fl *ast.FieldList) bool {
	t := fl.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch i := t.(type) {
	case *ast.IndexExpr:
		t = i.X
	case *ast.IndexListExpr:
		t = i.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
