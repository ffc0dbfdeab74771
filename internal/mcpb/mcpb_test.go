package mcpb

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

func valid() *Manifest {
	return &Manifest{
		ManifestVersion: ManifestVersion,
		Name:            "rigor",
		Version:         "1.2.3-rc.1+build.5",
		Description:     "Type-check Ruby",
		Author:          Author{Name: "A", Email: "a@example.com", URL: "https://example.com"},
		Repository:      &Repository{Type: "git", URL: "https://github.com/example/rigor"},
		Icon:            "icon.png",
		Server: Server{Type: "binary", EntryPoint: "server/mcpship", MCPConfig: &MCPConfig{
			Command: "${__dirname}/server/mcpship",
			Args:    []string{"serve", "--set", "config=${user_config.config}"},
			Env:     map[string]string{"TOKEN": "${user_config.token}", "HOME_DIR": "${HOME}"},
			PlatformOverrides: map[string]Override{
				"win32": {Command: "${__dirname}/server/mcpship.exe"},
			},
		}},
		Tools:         []Tool{{Name: "rigor_check"}},
		Compatibility: &Compatibility{Platforms: []string{"darwin", "win32"}},
		UserConfig: map[string]UserConfig{
			"config": {Type: "file", Title: "Config", Description: "d", Default: "${HOME}/.rigor.yml"},
			"token":  {Type: "string", Title: "Token", Description: "d", Sensitive: true, Default: ""},
			"limit":  {Type: "number", Title: "Limit", Description: "d", Default: 10.0, Min: ptr(1.0), Max: ptr(100.0)},
			"dirs":   {Type: "directory", Title: "Dirs", Description: "d", Multiple: true, Default: []any{"a", "b"}},
		},
	}
}

func ptr[T any](v T) *T { return &v }

func files() []File {
	return []File{
		{Name: "server/mcpship.json", Data: []byte(`{"tools":[]}`)},
		{Name: "server/mcpship", Data: []byte("binary"), Mode: 0o755},
		{Name: "icon.png", Data: []byte("\x89PNG\r\n\x1a\nrest")},
	}
}

func TestCheck(t *testing.T) {
	if err := valid().Check(); err != nil {
		t.Fatalf("valid manifest: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(m *Manifest)
		want   string
	}{
		{"version", func(m *Manifest) { m.ManifestVersion = "1" }, `manifest_version: is "1"; use "0.3"`},
		{"name", func(m *Manifest) { m.Name = "" }, "name: required"},
		{"semver", func(m *Manifest) { m.Version = "v1.2" }, `version: "v1.2" is not a semantic version`},
		{"author", func(m *Manifest) { m.Author = Author{} }, "author.name: required"},
		{"email", func(m *Manifest) { m.Author.Email = "nope" }, `author.email: "nope" is not an email address`},
		{"url", func(m *Manifest) { m.Homepage = "example.com" }, `homepage: "example.com" is not an absolute URL`},
		{"icon png", func(m *Manifest) { m.Icon = "icon.svg" }, `icon: "icon.svg" is not a .png file`},
		{"icon path", func(m *Manifest) { m.Icon = "../icon.png" }, `icon: path "../icon.png" is not a clean path inside the bundle`},
		{"server type", func(m *Manifest) { m.Server.Type = "exe" }, `server.type: "exe" is not a server type`},
		{"entry point", func(m *Manifest) { m.Server.EntryPoint = "/abs" }, `server.entry_point: path "/abs" is absolute`},
		{"mcp_config", func(m *Manifest) { m.Server.MCPConfig = nil }, "server.mcp_config: required"},
		{"command", func(m *Manifest) { m.Server.MCPConfig.Command = "" }, "server.mcp_config.command: required"},
		{"ref", func(m *Manifest) { m.Server.MCPConfig.Args = []string{"${user_config.nope}"} }, "server.mcp_config.args: ${user_config.nope} names no user_config key"},
		{"override key", func(m *Manifest) {
			m.Server.MCPConfig.PlatformOverrides = map[string]Override{"macos": {}}
		}, `server.mcp_config.platform_overrides.macos: "macos" is not a platform`},
		{"override ref", func(m *Manifest) {
			m.Server.MCPConfig.PlatformOverrides = map[string]Override{"linux": {Env: map[string]string{"X": "${user_config.x}"}}}
		}, "server.mcp_config.platform_overrides.linux.env.X: ${user_config.x} names no user_config key"},
		{"tool", func(m *Manifest) { m.Tools = []Tool{{}} }, "tools[0].name: required"},
		{"platform", func(m *Manifest) { m.Compatibility.Platforms = []string{"windows"} }, `compatibility.platforms[0]: "windows" is not a platform`},
		{"config type", func(m *Manifest) { m.UserConfig["x"] = UserConfig{Type: "int", Title: "t", Description: "d"} }, `user_config.x.type: "int" is not a setting type`},
		{"config title", func(m *Manifest) { m.UserConfig["x"] = UserConfig{Type: "string", Description: "d"} }, "user_config.x.title: required"},
		{"default type", func(m *Manifest) {
			m.UserConfig["x"] = UserConfig{Type: "number", Title: "t", Description: "d", Default: "ten"}
		}, "user_config.x.default: ten does not fit a number setting"},
		{"sensitive", func(m *Manifest) {
			m.UserConfig["x"] = UserConfig{Type: "boolean", Title: "t", Description: "d", Sensitive: true}
		}, "user_config.x.sensitive: only string settings are sensitive"},
		{"multiple", func(m *Manifest) {
			m.UserConfig["x"] = UserConfig{Type: "string", Title: "t", Description: "d", Multiple: true}
		}, "user_config.x.multiple: only directory and file settings"},
		{"min max", func(m *Manifest) {
			m.UserConfig["x"] = UserConfig{Type: "number", Title: "t", Description: "d", Min: ptr(2.0), Max: ptr(1.0)}
		}, "user_config.x: min 2 is above max 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := valid()
			c.change(m)
			err := m.Check()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check() = %v, want an error containing %q", err, c.want)
			}
			if n := strings.Count(err.Error(), "\n\t"); n != 1 {
				t.Errorf("Check() reports %d problems, want 1:\n%v", n, err)
			}
		})
	}
}

func TestCheckUV(t *testing.T) {
	m := valid()
	m.Server = Server{Type: "uv", EntryPoint: "src/server.py"}
	if err := m.Check(); err != nil {
		t.Errorf("a uv server needs no mcp_config: %v", err)
	}
}

func write(t *testing.T, m *Manifest, fs []File) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, m, fs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteReproducible(t *testing.T) {
	a := write(t, valid(), files())
	fs := files()
	fs[0], fs[2] = fs[2], fs[0]
	b := write(t, valid(), fs)
	if !bytes.Equal(a, b) {
		t.Fatal("the same manifest and files in another order gave different bytes")
	}
	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !f.Modified.Equal(modTime) {
			t.Errorf("%s: modified %v, want %v", f.Name, f.Modified, modTime)
		}
	}
	want := []string{"manifest.json", "icon.png", "server/mcpship", "server/mcpship.json"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("entries %q, want %q", names, want)
	}
	if mode := zr.File[2].Mode(); mode.Perm() != 0o755 {
		t.Errorf("server/mcpship mode %v, want 0755", mode)
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(rc)
	var got Manifest
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	wantM := valid()
	// JSON gives back numbers as float64 and lists as []any.
	if !reflect.DeepEqual(&got, wantM) {
		t.Errorf("manifest.json reads back as\n%+v\nwant\n%+v", got, *wantM)
	}
	if !bytes.HasSuffix(data, []byte("}\n")) || !bytes.Contains(data, []byte("\n  \"name\": \"rigor\",")) {
		t.Errorf("manifest.json is not indented JSON ending in a newline:\n%s", data)
	}
}

func TestWriteRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(m *Manifest, fs []File) []File
		want   string
	}{
		{"invalid manifest", func(m *Manifest, fs []File) []File { m.Name = ""; return fs }, "name: required"},
		{"no entry point", func(m *Manifest, fs []File) []File { return fs[:1] }, `server.entry_point "server/mcpship" is not among`},
		{"not executable", func(m *Manifest, fs []File) []File { fs[1].Mode = 0o644; return fs }, "not executable"},
		{"no icon", func(m *Manifest, fs []File) []File { return fs[:2] }, `icon "icon.png" is not among`},
		{"not png", func(m *Manifest, fs []File) []File { fs[2].Data = []byte("GIF89a"); return fs }, `icon "icon.png" is not a PNG image`},
		{"duplicate", func(m *Manifest, fs []File) []File { return append(fs, fs[0]) }, "given twice"},
		{"file and dir", func(m *Manifest, fs []File) []File { return append(fs, File{Name: "server"}) }, `"server"`},
		{"manifest.json", func(m *Manifest, fs []File) []File { return append(fs, File{Name: "manifest.json"}) }, "writes manifest.json"},
		{"escape", func(m *Manifest, fs []File) []File { return append(fs, File{Name: "../x"}) }, "not a clean path"},
		{"backslash", func(m *Manifest, fs []File) []File { return append(fs, File{Name: `a\b`}) }, "backslash"},
		{"drive", func(m *Manifest, fs []File) []File { return append(fs, File{Name: "C:/x"}) }, "absolute"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := valid()
			fs := c.change(m, files())
			var buf bytes.Buffer
			err := Write(&buf, m, fs)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Write() = %v, want an error containing %q", err, c.want)
			}
			if buf.Len() != 0 {
				t.Errorf("Write wrote %d bytes before failing", buf.Len())
			}
		})
	}
}

func TestParseManifest(t *testing.T) {
	data, _ := json.Marshal(valid())
	// A field this package does not model, as other tools write.
	data = append(data[:len(data)-1], `,"prompts":[{"name":"p","text":"t"}]}`...)
	m, err := ParseManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, valid()) {
		t.Errorf("ParseManifest = %+v, want %+v", m, valid())
	}
	if _, err := ParseManifest([]byte(`{"name": 1}`)); err == nil || !strings.Contains(err.Error(), "not a bundle manifest") {
		t.Errorf("ParseManifest(bad JSON) = %v", err)
	}
	if _, err := ParseManifest([]byte(`{}`)); err == nil || !strings.Contains(err.Error(), "name: required") {
		t.Errorf("ParseManifest({}) = %v", err)
	}
}
