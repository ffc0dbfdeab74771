package pack

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/internal/mcpb"
)

const testManifest = `{
  "defaults": {"passEnv": ["API_TOKEN"]},
  "tools": [
    {"name": "greet", "description": "Greet someone.", "command": ["greeter", "{loud}", "{name}"],
     "inputs": {"name": {"description": "Who to greet."}, "loud": {"type": "boolean", "flag": "--loud"}},
     "passEnv": ["REGION"]},
    {"name": "local", "description": "Run the helper.", "command": ["./bin/helper", "--count", "{n}"],
     "inputs": {"n": {"type": "integer"}}}
  ]
}
`

// project writes the test manifest and the helper's builds into a
// directory and returns the manifest's path.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("mcpship.json", testManifest)
	write("bin/helper_linux_amd64", "helper for linux")
	write("bin/helper_windows_arm64.exe", "helper for windows")
	return filepath.Join(dir, "mcpship.json")
}

func options(t *testing.T) Options {
	return Options{
		Manifest:    project(t),
		Binaries:    Binaries{{"linux", "amd64"}: []byte("mcpship for linux"), {"windows", "arm64"}: []byte("mcpship for windows")},
		Name:        "greeter",
		Version:     "v1.0.0",
		Description: "Greets people",
		Author:      "Greeter team <team@example.com>",
		Repository:  "https://github.com/example/greeter",
		Programs:    map[string]string{"./bin/helper": "bin/helper_{os}_{arch}{exe}"},
		Settings:    []string{"name=World", "loud", "local.n=3"},
		Secrets:     []string{"REGION"},
	}
}

// unzip returns a bundle's files and their modes.
func unzip(t *testing.T, file string) (map[string][]byte, map[string]os.FileMode) {
	t.Helper()
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files, modes := map[string][]byte{}, map[string]os.FileMode{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], _ = io.ReadAll(rc)
		rc.Close()
		modes[f.Name] = f.Mode()
	}
	return files, modes
}

func TestWrite(t *testing.T) {
	out := t.TempDir()
	bundles, err := Write(out, options(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bundles {
		names = append(names, filepath.Base(b.File))
		data, err := os.ReadFile(b.File)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if b.SHA256 != hex.EncodeToString(sum[:]) || b.Size != int64(len(data)) {
			t.Errorf("%s: Bundle says sha256 %s, %d bytes; the file has %x, %d", b.File, b.SHA256, b.Size, sum, len(data))
		}
	}
	want := []string{"greeter_1.0.0_linux_amd64.mcpb", "greeter_1.0.0_windows_arm64.mcpb"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("bundles %q, want %q", names, want)
	}

	files, modes := unzip(t, bundles[1].File)
	var m mcpb.Manifest
	if err := json.Unmarshal(files["manifest.json"], &m); err != nil {
		t.Fatal(err)
	}
	if m.Description != "Greets people. Needs greeter on PATH." {
		t.Errorf("description %q does not say which program must be on PATH", m.Description)
	}
	wantServer := mcpb.Server{Type: "binary", EntryPoint: "server/mcpship.exe", MCPConfig: &mcpb.MCPConfig{
		Command: "${__dirname}/server/mcpship.exe",
		Args: []string{"serve", "--manifest", "${__dirname}/server/mcpship.json",
			"--set", "name=${user_config.name}", "--set", "loud=${user_config.loud}", "--set", "local.n=${user_config.local_n}"},
		Env: map[string]string{"API_TOKEN": "${user_config.api_token}", "REGION": "${user_config.region}"},
	}}
	if !reflect.DeepEqual(m.Server, wantServer) {
		t.Errorf("server\n%+v\nwant\n%+v", *m.Server.MCPConfig, *wantServer.MCPConfig)
	}
	wantConfig := map[string]mcpb.UserConfig{
		"name":      {Type: "string", Title: "name", Description: "Who to greet.", Default: "World"},
		"loud":      {Type: "boolean", Title: "loud", Description: "Default of the input loud of the tools.", Required: true},
		"local_n":   {Type: "number", Title: "local.n", Description: "Default of the input local.n of the tools.", Default: 3.0},
		"api_token": {Type: "string", Title: "API_TOKEN", Description: "The environment variable API_TOKEN, given to the server.", Default: "", Sensitive: true},
		"region":    {Type: "string", Title: "REGION", Description: "The environment variable REGION, given to the server.", Default: "", Sensitive: true},
	}
	if !reflect.DeepEqual(m.UserConfig, wantConfig) {
		t.Errorf("user_config\n%+v\nwant\n%+v", m.UserConfig, wantConfig)
	}
	if want := []mcpb.Tool{{Name: "greet", Description: "Greet someone."}, {Name: "local", Description: "Run the helper."}}; !reflect.DeepEqual(m.Tools, want) {
		t.Errorf("tools %+v, want %+v", m.Tools, want)
	}
	if m.Compatibility == nil || !reflect.DeepEqual(m.Compatibility.Platforms, []string{"win32"}) {
		t.Errorf("compatibility %+v, want platforms [win32]", m.Compatibility)
	}
	if string(files["server/mcpship.exe"]) != "mcpship for windows" || modes["server/mcpship.exe"].Perm() != 0o755 {
		t.Errorf("server/mcpship.exe: %q, mode %v", files["server/mcpship.exe"], modes["server/mcpship.exe"])
	}
	if string(files["server/bin/helper.exe"]) != "helper for windows" || modes["server/bin/helper.exe"].Perm() != 0o755 {
		t.Errorf("server/bin/helper.exe: %q, mode %v", files["server/bin/helper.exe"], modes["server/bin/helper.exe"])
	}
	// The bundled manifest runs the bundled helper, and is otherwise the
	// author's file byte for byte.
	wantManifest := strings.Replace(testManifest, `"command": ["./bin/helper",`, `"command": ["./bin/helper.exe",`, 1)
	if got := string(files["server/mcpship.json"]); got != wantManifest {
		t.Errorf("bundled manifest:\n%s\nwant:\n%s", got, wantManifest)
	}
	linux, _ := unzip(t, bundles[0].File)
	if !bytes.Contains(linux["server/mcpship.json"], []byte(`["./bin/helper", "--count"`)) || string(linux["server/bin/helper"]) != "helper for linux" {
		t.Errorf("the linux bundle lacks its helper:\n%s", linux["server/mcpship.json"])
	}
}

func TestWriteReproducible(t *testing.T) {
	o := options(t)
	a, b := t.TempDir(), t.TempDir()
	ba, err := Write(a, o)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := Write(b, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ba {
		da, _ := os.ReadFile(ba[i].File)
		db, _ := os.ReadFile(bb[i].File)
		if !bytes.Equal(da, db) {
			t.Errorf("%s differs between two runs", filepath.Base(ba[i].File))
		}
	}
}

// TestWriteNothing: bad input is an error and writes nothing.
func TestWriteNothing(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(o *Options)
		want   string
	}{
		{"invalid manifest", func(o *Options) {
			os.WriteFile(o.Manifest, []byte(`{"tools": [{"name": "x"}]}`), 0o644)
		}, "invalid manifest"},
		{"missing platform binary", func(o *Options) {
			o.Binaries[Platform{"linux", "arm64"}] = []byte("x")
		}, "missing the linux_arm64 binary"},
		{"unbundled relative program", func(o *Options) { o.Programs = nil }, "bundle it for each platform with --program './bin/helper=PATTERN'"},
		{"unused program", func(o *Options) { o.Programs["other"] = "x" }, `no tool of`},
		{"unknown setting", func(o *Options) { o.Settings = []string{"nope=1"} }, `no tool has an input "nope"`},
		{"bad setting value", func(o *Options) { o.Settings = []string{"local.n=many"} }, "--set local.n=many"},
		{"secret number", func(o *Options) { o.Settings = []string{"local.n=3"}; o.Secrets = []string{"local.n"} }, "only a string setting can be kept secret"},
		{"unknown secret", func(o *Options) { o.Secrets = []string{"NOPE"} }, "--secret NOPE"},
		{"env not passed", func(o *Options) { o.Env = []string{"HOME_DIR"} }, "does not pass HOME_DIR"},
		{"version", func(o *Options) { o.Version = "1.0" }, `version: "1.0" is not a semantic version`},
		{"name", func(o *Options) { o.Name = "../x" }, `name "../x"`},
		{"author", func(o *Options) { o.Author = "" }, "an author is required"},
		{"icon", func(o *Options) { o.Icon = o.Manifest }, "is not a PNG image"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := options(t)
			c.change(&o)
			out := filepath.Join(t.TempDir(), "out")
			_, err := Write(out, o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Write() = %v, want an error containing %q", err, c.want)
			}
			if strings.Count(err.Error(), c.want) > 1 {
				t.Errorf("Write() = %v, which says %q twice", err, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was created", out)
			}
		})
	}
}

func TestDist(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"app_linux_amd64_v1/app":         "linux",
		"app_windows_arm64_v8.0/app.exe": "windows",
		"app_darwin_all/app":             "darwin",
		"other_linux_arm64_v8.0/other":   "other",
		"app_freebsd_amd64_v1/app":       "freebsd",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "metadata.json"), []byte(`{"project_name":"app","version":"0.2.0-SNAPSHOT-abc"}`), 0o644)
	bins, err := Dist(dir, "app")
	if err != nil {
		t.Fatal(err)
	}
	want := Binaries{{"linux", "amd64"}: []byte("linux"), {"windows", "arm64"}: []byte("windows"), {"darwin", "all"}: []byte("darwin")}
	if !reflect.DeepEqual(bins, want) {
		t.Errorf("Dist = %q, want %q", bins, want)
	}
	if v, err := DistVersion(dir); v != "0.2.0-SNAPSHOT-abc" || err != nil {
		t.Errorf("DistVersion = %q, %v", v, err)
	}
	if _, err := Dist(dir, "nothing"); err == nil || !strings.Contains(err.Error(), `no build of "nothing"`) {
		t.Errorf("Dist of a missing program: %v", err)
	}
}

// archive makes a release archive holding the file name.
func archive(t *testing.T, kind, name, data string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if kind == "zip" {
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("app_1.0.0/" + name)
		w.Write([]byte(data))
		zw.Close()
		return buf.Bytes()
	}
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "README.md", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg})
	tw.Write([]byte("hi"))
	tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), Typeflag: tar.TypeReg})
	tw.Write([]byte(data))
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func TestRelease(t *testing.T) {
	release := func(t *testing.T, tamper func(dir string, sums *string)) (Binaries, error) {
		dir := t.TempDir()
		sums := ""
		for name, data := range map[string][]byte{
			"app_1.0.0_linux_amd64.tar.gz": archive(t, "tar", "app", "linux"),
			"app_1.0.0_windows_amd64.zip":  archive(t, "zip", "app.exe", "windows"),
		} {
			os.WriteFile(filepath.Join(dir, name), data, 0o644)
			sum := sha256.Sum256(data)
			sums += fmt.Sprintf("%x  %s\n", sum, name)
		}
		if tamper != nil {
			tamper(dir, &sums)
		}
		os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(sums), 0o644)
		return Release(dir, "app")
	}
	bins, err := release(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Binaries{{"linux", "amd64"}: []byte("linux"), {"windows", "amd64"}: []byte("windows")}); !reflect.DeepEqual(bins, want) {
		t.Errorf("Release = %q, want %q", bins, want)
	}
	// checksums.txt as other tools write it: one space (BSD's sha256 -r),
	// binary mode's "*", CRLF line ends, blank lines, upper-case hex.
	if bins, err := release(t, func(_ string, sums *string) {
		*sums = "\r\n" + strings.ToUpper((*sums)[:64]) + " *" + strings.ReplaceAll((*sums)[66:], "  ", " ") + "\n"
		*sums = strings.ReplaceAll(*sums, "\n", "\r\n")
	}); err != nil || len(bins) != 2 {
		t.Errorf("Release with one-space, CRLF checksums = %q, %v; want both binaries", bins, err)
	}
	for _, c := range []struct {
		name   string
		tamper func(dir string, sums *string)
		want   string
	}{
		{"mismatch", func(dir string, _ *string) {
			os.WriteFile(filepath.Join(dir, "app_1.0.0_linux_amd64.tar.gz"), archive(t, "tar", "app", "evil"), 0o644)
		}, "app_1.0.0_linux_amd64.tar.gz has SHA-256"},
		{"unlisted", func(dir string, _ *string) {
			os.WriteFile(filepath.Join(dir, "app_1.0.0_linux_arm64.tar.gz"), archive(t, "tar", "app", "arm"), 0o644)
		}, "app_1.0.0_linux_arm64.tar.gz is not listed in"},
		{"no binary", func(dir string, sums *string) {
			data := archive(t, "tar", "other", "x")
			os.WriteFile(filepath.Join(dir, "app_1.0.0_linux_arm64.tar.gz"), data, 0o644)
			*sums += fmt.Sprintf("%x  app_1.0.0_linux_arm64.tar.gz\n", sha256.Sum256(data))
		}, "the archive holds no app"},
		{"no checksums", func(dir string, sums *string) { *sums = "garbage\n" }, "not a line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := release(t, c.tamper)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Release() = %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// A tool whose command names a program by its full path runs that program
// on the user's machine: the bundle says it is needed, as for one on PATH.
func TestWriteAbsoluteCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcpship.json")
	data := `{"tools": [{"name": "sh", "description": "Run sh.", "command": ["/bin/sh", "-c", "echo hi"]},
	                  {"name": "hi", "description": "Say hi.", "command": ["greeter"]}]}`
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options(t)
	o.Manifest, o.Programs, o.Settings, o.Secrets = file, nil, nil, nil
	bundles, err := Write(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := bundles[0].Manifest.Description, "Greets people. Needs greeter on PATH and /bin/sh."; got != want {
		t.Errorf("description %q, want %q", got, want)
	}
}

// Programs of the same name in different directories are both bundled,
// each tool running its own.
func TestWriteProgramsOfOneName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	data := `{"tools": [{"name": "a", "description": "A.", "command": ["./bin/x"]},
	                  {"name": "b", "description": "B.", "command": ["../x"]}]}`
	for name, data := range map[string]string{"sub/mcpship.json": data, "sub/bin/x": "bin x", "x": "up x"} {
		file := filepath.Join(filepath.Dir(dir), name)
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o := options(t)
	o.Manifest, o.Settings, o.Secrets = filepath.Join(dir, "mcpship.json"), nil, nil
	o.Programs = map[string]string{"./bin/x": "bin/x", "../x": "../x"}
	bundles, err := Write(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := unzip(t, bundles[0].File)
	var m struct{ Tools []struct{ Command []string } }
	if err := json.Unmarshal(files["server/mcpship.json"], &m); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"bin x", "up x"} {
		run := m.Tools[i].Command[0]
		if got := string(files["server/"+strings.TrimPrefix(run, "./")]); got != want {
			t.Errorf("tool %d runs %s, which holds %q, want %q", i, run, got, want)
		}
	}
}

// When one bundle cannot be written, the bundles already in the folder
// (from an earlier run) are left as they were, and no temporary file stays.
func TestWriteKeepsOldBundlesOnFailure(t *testing.T) {
	out := t.TempDir()
	old := filepath.Join(out, "greeter_1.0.0_linux_amd64.mcpb")
	if err := os.WriteFile(old, []byte("old bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The Windows bundle's name is taken by a folder, so it cannot be written.
	if err := os.MkdirAll(filepath.Join(out, "greeter_1.0.0_windows_arm64.mcpb", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(out, options(t)); err == nil || !strings.Contains(err.Error(), "greeter_1.0.0_windows_arm64.mcpb") {
		t.Fatalf("Write() = %v, want an error naming the Windows bundle", err)
	}
	if data, err := os.ReadFile(old); err != nil || string(data) != "old bundle" {
		t.Errorf("the earlier bundle %s now holds %d bytes (%v), want it unchanged", old, len(data), err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		t.Errorf("%s holds %d files, want the 2 it held", out, len(entries))
	}
}
