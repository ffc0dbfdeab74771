package publish

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpship/mcpship/internal/testutil"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var registrySchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	f, err := os.Open(filepath.Join("testdata", "server.schema.json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SchemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(SchemaURL)
})

// validate checks a server.json against the registry's vendored schema.
func validate(t *testing.T, data []byte) {
	t.Helper()
	sch, err := registrySchema()
	if err != nil {
		t.Fatalf("compiling testdata/server.schema.json: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("server.json is not JSON: %v\n%s", err, data)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("server.json is not valid against the registry's schema: %v\n%s", err, data)
	}
}

func rigorServer(version string) Server {
	url := "https://github.com/rigor-lang/rigor/releases/download/v" + version + "/rigor-" + version + "-"
	return Server{
		Name:        "io.github.rigor-lang/rigor",
		Title:       "Rigor",
		Description: "Type-check Ruby with Rigor from an AI assistant",
		Version:     version,
		Repository:  "https://github.com/rigor-lang/rigor",
		Packages: []Package{
			{RegistryType: "mcpb", Identifier: url + "darwin.mcpb", FileSHA256: strings.Repeat("a", 64), Transport: Transport{Type: "stdio"}},
			{RegistryType: "mcpb", Identifier: url + "linux-amd64.mcpb", FileSHA256: strings.Repeat("b", 64), Transport: Transport{Type: "stdio"}},
			{RegistryType: "mcpb", Identifier: url + "windows-amd64.mcpb", FileSHA256: strings.Repeat("c", 64), Transport: Transport{Type: "stdio"}},
		},
	}
}

func TestNewServerJSON(t *testing.T) {
	s := rigorServer("1.0.0")
	goPkg, err := GoPackage(s.Name, "github.com/rigor-lang/rigor/cmd/rigor-mcp", "v1.0.0", []string{"mcp"})
	if err != nil {
		t.Fatal(err)
	}
	s.Packages = append(s.Packages, goPkg)
	out, err := ServerJSON(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, out)
	testutil.Golden(t, filepath.Join("testdata", "new.golden.json"), out)
}

// TestUpdateServerJSON updates authors' server.json files to a new
// version. In testdata/update.before.json, the version and the bundles'
// URLs and hashes change; the author's fields, their order and their
// layout stay; the npm package stays where it was; the freebsd bundle, no
// longer built, goes; the windows bundle, new, comes after the last
// bundle. The others: a file without packages, one on one line, one with
// tabs and CRLF line endings; what is added follows each one's layout.
func TestUpdateServerJSON(t *testing.T) {
	for _, name := range []string{"update", "update-nopackages", "update-compact", "update-crlf"} {
		t.Run(name, func(t *testing.T) {
			before, err := os.ReadFile(filepath.Join("testdata", name+".before.json"))
			if err != nil {
				t.Fatal(err)
			}
			validate(t, before)
			out, err := ServerJSON(before, rigorServer("1.1.0"))
			if err != nil {
				t.Fatal(err)
			}
			validate(t, out)
			testutil.Golden(t, filepath.Join("testdata", name+".after.json"), out)

			again, err := ServerJSON(out, rigorServer("1.1.0"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, out) {
				t.Errorf("updating to the same version again changed the file:\n%s", again)
			}
		})
	}
}

func TestWriteServerJSONRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, old, want string
	}{
		{"not JSON", `{"name": "io.github.rigor-lang/rigor",}`, "is not valid JSON"},
		{"another server", `{"name": "io.github.someone/else", "description": "x", "version": "1"}`, "is for the server io.github.someone/else, not io.github.rigor-lang/rigor"},
		{"no name", `{"description": "x", "version": "1"}`, "names no server"},
		{"not an object", `["io.github.rigor-lang/rigor"]`, "not a JSON object"},
		{"packages not an array", `{"name": "io.github.rigor-lang/rigor", "description": "x", "version": "1", "packages": {}}`, `"packages" that is not an array`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "server.json")
			if err := os.WriteFile(file, []byte(tc.old), 0o644); err != nil {
				t.Fatal(err)
			}
			err := WriteServerJSON(file, rigorServer("1.1.0"))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), file) {
				t.Fatalf("got error %v, want one naming %s and saying %q", err, file, tc.want)
			}
			if got, _ := os.ReadFile(file); string(got) != tc.old {
				t.Errorf("the file changed although the update was refused:\n%s", got)
			}
			if ents, _ := os.ReadDir(filepath.Dir(file)); len(ents) != 1 {
				t.Errorf("the directory holds %d files, want only server.json", len(ents))
			}
		})
	}
}

func TestServerJSONRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Server)
		want string
	}{
		{"name without namespace", func(s *Server) { s.Name = "rigor" }, "not a registry name"},
		{"version range", func(s *Server) { s.Version = "^1.0.0" }, "is a range"},
		{"long description", func(s *Server) { s.Description = strings.Repeat("x", 101) }, "at most 100"},
		{"http bundle", func(s *Server) { s.Packages[0].Identifier = "http://example.com/rigor.mcpb" }, "not an https:// URL"},
		{"bundle URL without mcp", func(s *Server) { s.Packages[0].Identifier = "https://example.com/rigor.zip" }, `does not contain "mcp"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := rigorServer("1.0.0")
			tc.edit(&s)
			if _, err := ServerJSON(nil, s); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestGoPackage(t *testing.T) {
	p, err := GoPackage("io.github.Alice/app", "github.com/alice/app/cmd/app", "v1.2.0", []string{"mcp"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	want := `{"registryType":"go","registryBaseUrl":"https://proxy.golang.org","identifier":"github.com/alice/app/cmd/app","version":"v1.2.0","transport":{"type":"stdio"},"packageArguments":[{"type":"positional","value":"mcp"}]}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
	for _, tc := range []struct{ server, module, version, want string }{
		{"com.example/app", "github.com/alice/app", "v1.0.0", "only for servers named io.github.OWNER"},
		{"io.github.alice/app", "github.com/bob/app", "v1.0.0", "only from github.com/alice/"},
		{"io.github.alice/app", "gitlab.com/alice/app", "v1.0.0", "only from github.com/alice/"},
		{"io.github.alice/app", "github.com/alice/app", "1.0.0", "must be a module version"},
	} {
		if _, err := GoPackage(tc.server, tc.module, tc.version, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("GoPackage(%q, %q, %q): got %v, want an error saying %q", tc.server, tc.module, tc.version, err, tc.want)
		}
	}
}

func TestBundlePackage(t *testing.T) {
	p := BundlePackage("https://example.com/x.mcpb", strings.Repeat("AB", 32))
	b, _ := json.Marshal(p)
	if want := `{"registryType":"mcpb","identifier":"https://example.com/x.mcpb","fileSha256":"` + strings.Repeat("ab", 32) + `","transport":{"type":"stdio"}}`; string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

// TestOCIPackage checks the image entry: what the registry's schema and
// its rules for "oci" packages take (no version, registryBaseUrl or
// fileSha256; a tag in the reference), and what it refuses.
func TestOCIPackage(t *testing.T) {
	p, err := OCIPackage("ghcr.io/rigor-lang/rigor", "v1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	want := `{"registryType":"oci","identifier":"ghcr.io/rigor-lang/rigor:1.0.0","runtimeHint":"docker",` +
		`"runtimeArguments":[{"type":"named","name":"--publish","value":"127.0.0.1:8080:8080"}],` +
		`"transport":{"type":"streamable-http","url":"http://127.0.0.1:8080/mcp","headers":[{"name":"Authorization","description":"The bearer token the server requires","value":"Bearer {MCPSHIP_AUTH_TOKEN}","isRequired":true,"isSecret":true}]},` +
		`"environmentVariables":[{"name":"MCPSHIP_AUTH_TOKEN","description":"A bearer token the server requires of its clients; choose a long random one","isRequired":true,"isSecret":true}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	s := rigorServer("1.0.0")
	s.Packages = append(s.Packages, p)
	out, err := ServerJSON(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, out)

	// The next release: the image's tag follows the version, and the
	// author's edit of the entry stays.
	edited := strings.Replace(string(out), `"runtimeHint": "docker",`, `"runtimeHint": "docker", "_note": "kept",`, 1)
	s = rigorServer("1.1.0")
	p, _ = OCIPackage("ghcr.io/rigor-lang/rigor", "1.1.0")
	s.Packages = append(s.Packages, p)
	again, err := ServerJSON([]byte(edited), s)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, again)
	if n := strings.Count(string(again), `"registryType": "oci"`); n != 1 || !strings.Contains(string(again), `"identifier": "ghcr.io/rigor-lang/rigor:1.1.0"`) || !strings.Contains(string(again), `"_note": "kept"`) {
		t.Errorf("updated server.json has %d image entries, want one for :1.1.0 with the author's field:\n%s", n, again)
	}

	for _, tc := range []struct{ ref, want string }{
		{"rigor-lang/rigor", "must name its registry"},
		{"registry.example.com/rigor-lang/rigor:1.0.0", "not registry.example.com"},
		{"ghcr.io/rigor-lang/rigor:latest", "needs a version tag"},
		{"ghcr.io/rigor-lang/rigor@sha256:abc", "digest that is not"},
		{"ghcr.io/", "must name its registry"},
	} {
		if _, err := OCIPackage(tc.ref, "1.0.0"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("OCIPackage(%q): got %v, want an error saying %q", tc.ref, err, tc.want)
		}
	}
	for _, ref := range []string{"docker.io/alice/app:2.0.0", "europe-docker.pkg.dev/p/r/app:1.0.0", "ghcr.io/a/b@sha256:" + strings.Repeat("0", 64)} {
		if p, err := OCIPackage(ref, "1.0.0"); err != nil || p.Identifier != ref {
			t.Errorf("OCIPackage(%q) = %q, %v; want it as it is", ref, p.Identifier, err)
		}
	}
}
