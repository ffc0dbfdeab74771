package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// registrySchema compiles the registry's server.json schema vendored in
// internal/publish/testdata.
func registrySchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "internal", "publish", "testdata", "server.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// pack runs "mcpship pack" in dir and returns its stdout, or fails.
func pack(t *testing.T, dir string, wantOK bool, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"pack"}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if (err == nil) != wantOK {
		t.Fatalf("mcpship pack %q: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.String(), stderr.String()
}

type serverJSON struct {
	Name     string
	Version  string
	Title    string
	Packages []struct {
		RegistryType, Identifier, Version, FileSha256 string
		PackageArguments                              []struct{ Type, Value string }
	}
}

func readServerJSON(t *testing.T, sch *jsonschema.Schema, file string) serverJSON {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s is not valid against the registry's schema: %v\n%s", file, err, data)
	}
	var s serverJSON
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPackWritesServerJSON packs the rigor example and checks server.json:
// valid against the registry's schema, one mcpb package per bundle with
// its URL and hash; then packs a new version over a server.json the
// author edited, which keeps the edit; and refuses to touch a
// server.json of another server, writing no bundle.
func TestPackWritesServerJSON(t *testing.T) {
	sch := registrySchema(t)
	dir := t.TempDir()
	manifest, _ := filepath.Abs("../examples/rigor/mcpship.json")
	common := []string{"--manifest", manifest, "--description", "Type-check Ruby with Rigor", "--author", "Rigor authors",
		"--repository", "https://github.com/rigor-lang/rigor", "--binary", "linux/amd64=" + binPath, "--binary", "windows/arm64=" + binPath}
	out, _ := pack(t, dir, true, append(common, "--out", "dist", "--version", "1.2.0")...)
	file := filepath.Join(dir, "dist", "server.json")
	if !strings.Contains(out, file+"\tserver.json of io.github.rigor-lang/rigor 1.2.0\n") && !strings.Contains(out, "dist/server.json\tserver.json of io.github.rigor-lang/rigor 1.2.0\n") {
		t.Errorf("pack does not report server.json:\n%s", out)
	}
	s := readServerJSON(t, sch, file)
	if s.Name != "io.github.rigor-lang/rigor" || s.Version != "1.2.0" || len(s.Packages) != 2 {
		t.Fatalf("server.json: %+v", s)
	}
	for _, p := range s.Packages {
		base := strings.TrimPrefix(p.Identifier, "https://github.com/rigor-lang/rigor/releases/download/v1.2.0/")
		data, err := os.ReadFile(filepath.Join(dir, "dist", base))
		if err != nil || p.RegistryType != "mcpb" || base == p.Identifier {
			t.Fatalf("package %+v: not a bundle of dist/ (%v)", p, err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != p.FileSha256 {
			t.Errorf("%s: fileSha256 %s is not the bundle's", base, p.FileSha256)
		}
	}

	// The author adds a title; the next release keeps it.
	data, _ := os.ReadFile(file)
	edited := strings.Replace(string(data), `"name"`, `"title": "Rigor",`+"\n  "+`"name"`, 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	pack(t, dir, true, append(common, "--out", "dist2", "--version", "1.3.0", "--server-json", file)...)
	s = readServerJSON(t, sch, file)
	if s.Title != "Rigor" || s.Version != "1.3.0" || len(s.Packages) != 2 || !strings.Contains(s.Packages[0].Identifier, "/v1.3.0/rigor_1.3.0_") {
		t.Errorf("updated server.json: %+v", s)
	}

	// Another server's server.json: refused, and no bundle is written.
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"name": "io.github.someone/else", "description": "x", "version": "1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr := pack(t, dir, false, append(common, "--out", "dist3", "--version", "1.4.0", "--server-json", other)...)
	if !strings.Contains(stderr, "is for the server io.github.someone/else, not io.github.rigor-lang/rigor") {
		t.Errorf("pack's refusal does not say why:\n%s", stderr)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "dist3")); len(ents) != 0 {
		t.Errorf("pack wrote %d files although server.json was refused", len(ents))
	}
}

// TestPackGoAppServerJSON packs the cliadapter example app: server.json
// lists its bundles and, as the registry's go package, the module path
// recorded in its binary with the app's mcp argument.
func TestPackGoAppServerJSON(t *testing.T) {
	sch := registrySchema(t)
	dir := t.TempDir()
	pack(t, dir, true, "--app", "goapp", "--binary", "linux/amd64="+goappPath, "--out", "dist", "--version", "0.4.0",
		"--description", "An example app", "--author", "mcpship", "--repository", "https://github.com/mcpship/mcpship")
	s := readServerJSON(t, sch, filepath.Join(dir, "dist", "server.json"))
	if s.Name != "io.github.mcpship/goapp" || len(s.Packages) != 2 {
		t.Fatalf("server.json: %+v", s)
	}
	g := s.Packages[1]
	if g.RegistryType != "go" || g.Identifier != "github.com/mcpship/mcpship/examples/goapp" || g.Version != "v0.4.0" ||
		len(g.PackageArguments) != 1 || g.PackageArguments[0].Value != "mcp" {
		t.Errorf("go package: %+v", g)
	}
}

// TestPackImageServerJSON lists a container image with --image: an "oci"
// entry tagged with the version, valid against the registry's schema,
// after the bundles; the next version retags it. A reference the registry
// would refuse is a usage error, and nothing is written.
func TestPackImageServerJSON(t *testing.T) {
	sch := registrySchema(t)
	dir := t.TempDir()
	manifest, _ := filepath.Abs("../examples/rigor/mcpship.json")
	common := []string{"--manifest", manifest, "--description", "Type-check Ruby with Rigor", "--author", "Rigor authors",
		"--repository", "https://github.com/rigor-lang/rigor", "--binary", "linux/amd64=" + binPath, "--image", "ghcr.io/rigor-lang/rigor"}
	pack(t, dir, true, append(common, "--out", "dist", "--version", "1.2.0", "--server-json", "server.json")...)
	s := readServerJSON(t, sch, filepath.Join(dir, "server.json"))
	if len(s.Packages) != 2 || s.Packages[0].RegistryType != "mcpb" {
		t.Fatalf("server.json: %+v", s)
	}
	img := s.Packages[1]
	if img.RegistryType != "oci" || img.Identifier != "ghcr.io/rigor-lang/rigor:1.2.0" || img.Version != "" || img.FileSha256 != "" {
		t.Errorf("image package: %+v, want oci ghcr.io/rigor-lang/rigor:1.2.0 without version or fileSha256", img)
	}
	pack(t, dir, true, append(common, "--out", "dist2", "--version", "1.3.0", "--server-json", "server.json")...)
	s = readServerJSON(t, sch, filepath.Join(dir, "server.json"))
	if len(s.Packages) != 2 || s.Packages[1].Identifier != "ghcr.io/rigor-lang/rigor:1.3.0" {
		t.Errorf("after 1.3.0, server.json: %+v", s)
	}

	before, _ := os.ReadFile(filepath.Join(dir, "server.json"))
	cmd := exec.Command(binPath, append([]string{"pack"}, append(common[:len(common)-1], "registry.example.com/rigor:1.4.0",
		"--out", "dist3", "--version", "1.4.0", "--server-json", "server.json")...)...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 64 || !strings.Contains(string(out), "--image: the MCP Registry takes images only from") {
		t.Errorf("a registry the MCP Registry refuses: exit %d, want 64 and why\n%s", code, out)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "server.json")); !bytes.Equal(after, before) {
		t.Error("server.json changed although --image was refused")
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "dist3")); len(ents) != 0 {
		t.Errorf("pack wrote %d files although --image was refused", len(ents))
	}
}
