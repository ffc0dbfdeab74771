package mcpb

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// openManifest is a manifest that runs on any platform.
func openManifest() *Manifest {
	return &Manifest{
		ManifestVersion: ManifestVersion,
		Name:            "hello",
		Version:         "1.0.0",
		Description:     "Says hello",
		Author:          Author{Name: "A"},
		Server: Server{Type: "binary", EntryPoint: "server/hello", MCPConfig: &MCPConfig{
			Command: "${__dirname}/server/hello",
			Args:    []string{"serve", "--manifest", "server/tools.json", "${user_config.dirs}", "--token=${user_config.token}"},
			Env:     map[string]string{"TOKEN": "${user_config.token}", "LIMIT": "${user_config.limit}", "SEP": "${/}"},
			PlatformOverrides: map[string]Override{
				"win32": {Command: "${__dirname}/server/hello.exe"},
			},
		}},
		UserConfig: map[string]UserConfig{
			"token": {Type: "string", Title: "Token", Description: "d", Sensitive: true, Required: true},
			"limit": {Type: "number", Title: "Limit", Description: "d", Default: 10.0},
			"dirs":  {Type: "directory", Title: "Dirs", Description: "d", Multiple: true, Default: []any{"${HOME}/a", "b"}},
		},
	}
}

func openFiles() []File {
	return []File{
		{Name: "server/hello", Data: []byte("#!/bin/sh\n"), Mode: 0o755},
		{Name: "server/tools.json", Data: []byte(`{"tools":[]}`)},
	}
}

// writeFile writes data to a file in a new directory and returns its path.
func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "b.mcpb")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

func TestOpenUnpack(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, openManifest(), openFiles()); err != nil {
		t.Fatal(err)
	}
	name := writeFile(t, buf.Bytes())
	b, err := Open(name, strings.ToUpper(sum(buf.Bytes())), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.SHA256 != sum(buf.Bytes()) || b.Manifest.Name != "hello" {
		t.Errorf("got SHA256 %s, manifest %+v", b.SHA256, b.Manifest)
	}
	dir := filepath.Join(t.TempDir(), "servers", "hello", "1.0.0")
	if err := b.Unpack(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "server", "hello"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("server/hello: %v, %v", fi, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err != nil || !json.Valid(data) {
		t.Errorf("manifest.json: %v", err)
	}
	if err := b.Unpack(dir); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second Unpack into %s: %v", dir, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("beside %s: %v, want only it", dir, entries)
	}
}

// entry is one entry of a hand-made archive.
type entry struct {
	name string
	data string
	mode fs.FileMode
}

// rawZip makes an archive of the entries as given, with the manifest m
// first unless m is nil.
func rawZip(t *testing.T, m *Manifest, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if m != nil {
		data, _ := json.Marshal(m)
		entries = append([]entry{{name: "manifest.json", data: string(data)}}, entries...)
	}
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e.data))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestOpenRefuses(t *testing.T) {
	m := openManifest()
	server := entry{name: "server/hello", data: "x", mode: 0o755}
	other := openManifest()
	other.Compatibility = &Compatibility{Platforms: []string{"win32"}}
	if runtime.GOOS == "windows" {
		other.Compatibility.Platforms = []string{"linux"}
	}
	bad := openManifest()
	bad.Version = "one"
	many := []entry{server}
	for i := range 10 {
		many = append(many, entry{name: strings.Repeat("f", i+1), data: ""})
	}
	for _, tt := range []struct {
		what string
		zip  []byte
		want string
	}{
		{"../ entry", rawZip(t, m, server, entry{name: "../evil", data: "x"}), `entry path "../evil" is not a clean path inside the bundle`},
		{"nested ../ entry", rawZip(t, m, server, entry{name: "server/../../evil", data: "x"}), `is not a clean path`},
		{"absolute entry", rawZip(t, m, server, entry{name: "/etc/evil", data: "x"}), `is absolute`},
		{"drive letter", rawZip(t, m, server, entry{name: "C:/evil", data: "x"}), `is absolute`},
		{"backslash", rawZip(t, m, server, entry{name: `..\evil`, data: "x"}), `has a backslash`},
		{"colon", rawZip(t, m, server, entry{name: "ab:c", data: "x"}), `has a colon`},
		{"symlink", rawZip(t, m, server, entry{name: "link", data: "/etc/passwd", mode: fs.ModeSymlink | 0o777}), `entry "link" is a symbolic link`},
		{"device", rawZip(t, m, server, entry{name: "dev", mode: fs.ModeDevice | 0o644}), `entry "dev" is a`},
		{"same name in another case", rawZip(t, m, server, entry{name: "Server/Hello", data: "x"}), `entries "server/hello" and "Server/Hello" are the same file`},
		{"file and directory", rawZip(t, m, server, entry{name: "server/hello/x", data: "x"}), `"server/hello" is both a file and a directory`},
		{"too many files", rawZip(t, m, many...), "the archive has 12 entries, over the limit of 10"},
		{"no manifest", rawZip(t, nil, server), "no manifest.json at the root"},
		{"bad manifest", rawZip(t, bad, server), `version: "one" is not a semantic version`},
		{"no entry point", rawZip(t, m), `server.entry_point "server/hello" is not in the archive`},
		{"other platform", rawZip(t, other, server), "the bundle runs on"},
		{"not a zip", []byte("hello"), "is not a zip archive"},
	} {
		_, err := Open(writeFile(t, tt.zip), "", &Limits{MaxFiles: 10})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.what, err, tt.want)
		}
	}
}

func TestOpenSHA256(t *testing.T) {
	data := rawZip(t, openManifest(), entry{name: "server/hello", data: "x", mode: 0o755})
	want := strings.Repeat("0", 64)
	_, err := Open(writeFile(t, data), want, nil)
	if err == nil || !strings.Contains(err.Error(), "has SHA-256 "+sum(data)+", but "+want+" was expected") {
		t.Errorf("error %v", err)
	}
}

// TestZipBomb checks both caps on size: an archive whose entries declare
// more than the limit is refused by Open; an entry that unpacks to more
// than it declares stops Unpack, which leaves nothing behind.
func TestZipBomb(t *testing.T) {
	m := openManifest()
	big := rawZip(t, m, entry{name: "server/hello", data: strings.Repeat("\x00", 2<<20), mode: 0o755})
	_, err := Open(writeFile(t, big), "", &Limits{MaxBytes: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "its files unpack to more than the limit of 1048576 bytes") {
		t.Errorf("declared size over the limit: %v", err)
	}

	// An entry whose header says 10 bytes, holding 1 MiB of zeros.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	data, _ := json.Marshal(m)
	w, _ := zw.Create("manifest.json")
	w.Write(data)
	h := &zip.FileHeader{Name: "server/hello", Method: zip.Deflate, UncompressedSize64: 10, CompressedSize64: 0}
	h.SetMode(0o755)
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
	fw.Write(make([]byte, 1<<20))
	fw.Close()
	h.CompressedSize64 = uint64(deflated.Len())
	rw, err := zw.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	rw.Write(deflated.Bytes())
	zw.Close()
	b, err := Open(writeFile(t, buf.Bytes()), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	parent := t.TempDir()
	err = b.Unpack(filepath.Join(parent, "1.0.0"))
	if err == nil || !strings.Contains(err.Error(), "unpacks to more than the 10 bytes it declares") {
		t.Errorf("an entry larger than it declares: %v", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("Unpack left %v behind", entries)
	}
}

func TestLaunch(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "server"), 0o755)
	os.WriteFile(filepath.Join(dir, "server", "tools.json"), nil, 0o644)
	home, _ := os.UserHomeDir()
	m := openManifest()
	l, err := m.Launch(dir, "linux", map[string]any{"token": "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	cmd, args, env := l.Command, l.Args, l.Env
	sep := string(filepath.Separator)
	if want := dir + "/server/hello"; cmd != want {
		t.Errorf("command %q, want %q", cmd, want)
	}
	wantArgs := []string{"serve", "--manifest", filepath.Join(dir, "server", "tools.json"), home + "/a", "b", "--token=s3cret"}
	if !reflect.DeepEqual(args, wantArgs) {
		t.Errorf("args %q, want %q", args, wantArgs)
	}
	if want := map[string]string{"TOKEN": "s3cret", "LIMIT": "10", "SEP": sep}; !reflect.DeepEqual(env, want) {
		t.Errorf("env %q, want %q", env, want)
	}
	l, err = m.Launch(dir, "win32", map[string]any{"token": "t", "dirs": []string{"x"}, "limit": 2.5})
	if err == nil {
		cmd, args = l.Command, l.Args
	}
	if err != nil || cmd != dir+"/server/hello.exe" || args[3] != "x" || len(args) != 5 {
		t.Errorf("win32: %q %q %v", cmd, args, err)
	}
	var me *MissingError
	if _, err := m.Launch(dir, "linux", nil); !errors.As(err, &me) || me.Error() != "no value for the required setting token" {
		t.Errorf("without the token: %v", err)
	}
	// Unknown variables and optional settings without a value or a
	// default stay as written.
	m.Server.MCPConfig.Args = append(m.Server.MCPConfig.Args, "${APPDATA}", "${user_config.opt}", "-o=${user_config.opt}")
	m.UserConfig["opt"] = UserConfig{Type: "string", Title: "Opt", Description: "d"}
	l, err = m.Launch(dir, "linux", map[string]any{"token": "t"})
	if err == nil {
		args = l.Args
	}
	if want := []string{"${APPDATA}", "${user_config.opt}", "-o=${user_config.opt}"}; err != nil || !reflect.DeepEqual(args[len(args)-3:], want) {
		t.Errorf("unknown variables: %q, %v", args, err)
	}
}

func ExampleOpen() {
	// A bundle, as mcpship pack or the mcpb CLI makes it.
	m := &Manifest{
		ManifestVersion: ManifestVersion, Name: "hello", Version: "1.0.0", Description: "Says hello", Author: Author{Name: "A"},
		Server: Server{Type: "binary", EntryPoint: "server/hello", MCPConfig: &MCPConfig{
			Command: "${__dirname}/server/hello",
			Args:    []string{"--greeting", "${user_config.greeting}"},
		}},
		UserConfig: map[string]UserConfig{"greeting": {Type: "string", Title: "Greeting", Description: "What to say", Default: "hello"}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, m, []File{{Name: "server/hello", Data: []byte("#!/bin/sh\n"), Mode: 0o755}}); err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, "hello.mcpb")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())

	// Check it before anything in it is used, then unpack it into a
	// folder of its own and work out the command that starts it.
	b, err := Open(file, hex.EncodeToString(sum[:]), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	dir := filepath.Join(tmp, "servers", b.Manifest.Name, b.Manifest.Version)
	if err := b.Unpack(dir); err != nil {
		log.Fatal(err)
	}
	cmd, args, _, err := launch(b.Manifest, dir, Platform("linux"), map[string]any{"greeting": "bonjour"})
	if err != nil {
		log.Fatal(err)
	}
	rel, _ := filepath.Rel(tmp, cmd)
	fmt.Println(filepath.ToSlash(rel), args)
	// Output: servers/hello/1.0.0/server/hello [--greeting bonjour]
}

// A setting whose value names a setting, itself or another, is not
// expanded again: a manifest made to recurse would never end (it
// overflowed the stack).
func TestLaunchSettingNamingASetting(t *testing.T) {
	dir := t.TempDir()
	m := openManifest()
	m.UserConfig["loop"] = UserConfig{Type: "string", Title: "Loop", Description: "d", Default: "${user_config.loop}-${user_config.token}"}
	m.Server.MCPConfig.Args = []string{"${user_config.loop}", "--loop=${user_config.loop}"}
	m.Server.MCPConfig.Env = map[string]string{"LOOP": "${user_config.loop}"}
	_, args, env, err := launch(m, dir, "linux", map[string]any{"token": "${user_config.token}"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"${user_config.loop}-${user_config.token}", "--loop=${user_config.loop}-${user_config.token}"}
	if !reflect.DeepEqual(args, want) || env["LOOP"] != want[0] {
		t.Errorf("args %q, env %q; want %q", args, env, want)
	}
}

// A binary server runs a file of its bundle: a command that leads out of
// the bundle's folder is refused, however it is written.
func TestLaunchBinaryOutsideTheBundle(t *testing.T) {
	dir := t.TempDir()
	for _, command := range []string{"../../../../../../bin/sh", "/bin/sh", "${__dirname}/../../../bin/sh", "${HOME}/bin/x", "${__dirname}/.."} {
		m := openManifest()
		m.Server.MCPConfig.Command = command
		_, _, _, err := launch(m, dir, "linux", map[string]any{"token": "t"})
		if err == nil || !strings.Contains(err.Error(), "which is outside the bundle's folder") {
			t.Errorf("command %q: %v", command, err)
		}
	}
	// A node server's command is the interpreter.
	m := openManifest()
	m.Server.Type, m.Server.EntryPoint, m.Server.MCPConfig.Command = "node", "server/index.js", "node"
	if cmd, _, _, err := launch(m, dir, "linux", map[string]any{"token": "t"}); err != nil || cmd != "node" {
		t.Errorf("node: %q %v", cmd, err)
	}
}

// TestDeclaredSizesDoNotWrap: each entry's declared size, and their sum,
// are checked without overflow, whatever the order of the entries.
func TestDeclaredSizesDoNotWrap(t *testing.T) {
	m := openManifest()
	data, _ := json.Marshal(m)
	for _, sizes := range [][]uint64{
		{math.MaxUint64},
		{10, math.MaxUint64},
		{math.MaxUint64 - 999, 2000},
		{1 << 63, 1 << 63},
		{1 << 19, 1<<19 + 1},
	} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("manifest.json")
		w.Write(data)
		w, _ = zw.Create("server/hello")
		w.Write([]byte("#!/bin/sh\n"))
		for i, size := range sizes {
			rw, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("server/f%d", i), Method: zip.Store, UncompressedSize64: size, CompressedSize64: 1})
			if err != nil {
				t.Fatal(err)
			}
			rw.Write([]byte{0})
		}
		zw.Close()
		b, err := Open(writeFile(t, buf.Bytes()), "", &Limits{MaxBytes: 1 << 20})
		if err == nil {
			b.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "its files unpack to more than the limit of 1048576 bytes") {
			t.Errorf("sizes %d: %v", sizes, err)
		}
	}
}

// launch returns the parts of m.Launch's result.
func launch(m *Manifest, dir, platform string, values map[string]any) (string, []string, map[string]string, error) {
	l, err := m.Launch(dir, platform, values)
	if err != nil {
		return "", nil, nil, err
	}
	return l.Command, l.Args, l.Env, nil
}
