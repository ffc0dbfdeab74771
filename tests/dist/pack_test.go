package dist

import (
	"archive/zip"
	"bytes"
	"context"
	"debug/macho"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/mcpb"
	"github.com/mcpship/mcpship/mcp"
)

// bundlePlatforms are the bundles pack makes from a release of the six
// platforms: one universal macOS bundle, one per CPU elsewhere.
var bundlePlatforms = []string{"darwin_all", "linux_amd64", "linux_arm64", "windows_amd64", "windows_arm64"}

// readBundle returns the files of a bundle and its checked manifest.
func readBundle(t *testing.T, file string) (map[string][]byte, *mcpb.Manifest) {
	t.Helper()
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(f.Name, "server/") && !strings.HasSuffix(f.Name, ".json") && f.Mode().Perm() != 0o755 {
			t.Errorf("%s: %s has mode %v, want 0755", file, f.Name, f.Mode())
		}
	}
	m, err := mcpb.ParseManifest(files["manifest.json"])
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return files, m
}

// checkUniversal checks that fat is a universal binary of exactly the two
// macOS executables.
func checkUniversal(t *testing.T, what string, fat, arm, amd []byte) {
	t.Helper()
	ff, err := macho.NewFatFile(bytes.NewReader(fat))
	if err != nil {
		t.Fatalf("%s is not a universal binary: %v", what, err)
	}
	want := map[macho.Cpu][]byte{macho.CpuArm64: arm, macho.CpuAmd64: amd}
	for _, a := range ff.Arches {
		if !bytes.Equal(fat[a.Offset:a.Offset+a.Size], want[a.Cpu]) {
			t.Errorf("%s: its %v slice is not the %v build", what, a.Cpu, a.Cpu)
		}
		delete(want, a.Cpu)
	}
	if len(want) > 0 || len(ff.Arches) != 2 {
		t.Errorf("%s holds %d slices, want arm64 and amd64", what, len(ff.Arches))
	}
}

// TestPackRelease makes the bundles of examples/rigor, a manifest for a
// program not written in Go, from a release of mcpship: its archives,
// checked against checksums.txt, give each bundle its mcpship, and the
// macOS ones are joined into a universal binary.
func TestPackRelease(t *testing.T) {
	dist := release(t)
	host := runtime.GOOS + "_" + runtime.GOARCH
	if runtime.GOOS != "linux" || !slices.Contains(platforms, host) {
		t.Skipf("runs the released mcpship, which has no archive for %s here", host)
	}
	bin := filepath.Join(t.TempDir(), "mcpship")
	if err := os.WriteFile(bin, archiveFiles(t, filepath.Join(dist, archiveName(host)))["mcpship"], 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bundles")
	run(t, "", nil, bin, "pack", "--manifest", filepath.Join(source(t), "examples", "rigor", "mcpship.json"),
		"--release", dist, "--out", out, "--version", testVersion,
		"--description", "Type-check Ruby with Rigor", "--author", "Rigor authors <rigor@example.com>",
		"--set", "config=.rigor.yml")
	exe := func(p string) string {
		if strings.HasPrefix(p, "windows") {
			return "mcpship.exe"
		}
		return "mcpship"
	}
	for _, p := range bundlePlatforms {
		file := filepath.Join(out, "rigor_"+testVersion+"_"+p+".mcpb")
		fi, err := os.Stat(file)
		if err != nil {
			t.Errorf("no bundle for %s: %v", p, err)
			continue
		}
		t.Logf("%s: %d bytes", filepath.Base(file), fi.Size())
		files, m := readBundle(t, file)
		if m.Server.EntryPoint != "server/"+exe(p) || m.Description != "Type-check Ruby with Rigor. Needs rigor on PATH." {
			t.Errorf("%s: entry point %q, description %q", file, m.Server.EntryPoint, m.Description)
		}
		if len(m.Tools) != 7 {
			t.Errorf("%s lists %d tools, want rigor's 7", file, len(m.Tools))
		}
		got := files[m.Server.EntryPoint]
		if p == "darwin_all" {
			checkUniversal(t, file, got,
				archiveFiles(t, filepath.Join(dist, archiveName("darwin_arm64")))["mcpship"],
				archiveFiles(t, filepath.Join(dist, archiveName("darwin_amd64")))["mcpship"])
			continue
		}
		if want := archiveFiles(t, filepath.Join(dist, archiveName(p)))[exe(p)]; !bytes.Equal(got, want) {
			t.Errorf("%s: its mcpship is not the released one", file)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != len(bundlePlatforms) {
		t.Errorf("pack wrote %d files, want %d", len(entries), len(bundlePlatforms))
	}
}

// snapshot cuts a snapshot release, with GoReleaser and the recipe
// examples/NAME/.goreleaser.yaml unchanged, of a scratch repository named
// NAME holding files of examples/NAME and a go.mod that pins mcpship (the
// one under test) as a library and as a tool, as the recipe says. It
// returns the dist directory.
func snapshot(t *testing.T, name string, files ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping the GoReleaser snapshot build in -short mode")
	}
	goreleaser := tool(t, "goreleaser")
	src := source(t)
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, ".goreleaser.yaml") {
		b, err := os.ReadFile(filepath.Join(src, "examples", name, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gomod := fmt.Sprintf("module example.com/%s\n\ngo 1.25.0\n\ntool github.com/mcpship/mcpship/cmd/mcpship\n\n"+
		"require github.com/mcpship/mcpship v0.0.0\n\nreplace github.com/mcpship/mcpship => %s\n", name, src)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("dist/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nil, "go", "mod", "tidy")
	gitEnv := []string{
		"GIT_AUTHOR_NAME=dist test", "GIT_AUTHOR_EMAIL=dist@example.invalid", "GIT_AUTHOR_DATE=" + testDate,
		"GIT_COMMITTER_NAME=dist test", "GIT_COMMITTER_EMAIL=dist@example.invalid", "GIT_COMMITTER_DATE=" + testDate,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", name},
		{"tag", "v0.1.0"}, {"remote", "add", "origin", "https://github.com/example/" + name + ".git"},
	} {
		run(t, dir, gitEnv, "git", args...)
	}
	run(t, dir, nil, goreleaser, "check") // exits non-zero on deprecated settings too
	var env []string
	for _, k := range []string{"GITHUB_TOKEN", "GITLAB_TOKEN", "GITEA_TOKEN"} {
		env = append(env, k+"=") // GoReleaser refuses more than one forge token
	}
	start := time.Now()
	run(t, dir, env, goreleaser, "release", "--snapshot", "--clean", "--skip=publish,sign,sbom,announce")
	t.Logf("goreleaser release --snapshot of %s: %v", name, time.Since(start).Round(time.Second))
	return filepath.Join(dir, "dist")
}

// releasedBundles checks that the snapshot in dist holds a bundle of exe
// per platform, each listed in checksums.txt, the macOS one universal; it
// returns them by platform.
func releasedBundles(t *testing.T, dist, exe string) map[string]string {
	t.Helper()
	sums := checksums(t, filepath.Join(dist, "checksums.txt"))
	files, err := filepath.Glob(filepath.Join(dist, "mcpb", "*.mcpb"))
	if err != nil {
		t.Fatal(err)
	}
	bundles := map[string]string{}
	for _, b := range files {
		name := filepath.Base(b)
		fields := strings.Split(strings.TrimSuffix(name, ".mcpb"), "_")
		p := strings.Join(fields[len(fields)-2:], "_")
		bundles[p] = b
		if sums[name] != sha256File(t, b) {
			t.Errorf("checksums.txt says %q for %s, its SHA-256 is %s", sums[name], name, sha256File(t, b))
		}
		fi, _ := os.Stat(b)
		contents, m := readBundle(t, b)
		t.Logf("%s: %d bytes, %d tools", name, fi.Size(), len(m.Tools))
		if p == "darwin_all" {
			ff, err := macho.NewFatFile(bytes.NewReader(contents["server/"+exe]))
			if err != nil || len(ff.Arches) != 2 {
				t.Errorf("%s: server/%s is not a universal binary of two CPUs: %v", name, exe, err)
			}
		}
	}
	if got := slices.Sorted(maps.Keys(bundles)); !slices.Equal(got, bundlePlatforms) {
		t.Fatalf("the release holds bundles for %v, want %v (checksums.txt: %v)", got, bundlePlatforms, slices.Sorted(maps.Keys(sums)))
	}
	// server.json for the MCP Registry: an mcpb package per bundle.
	data, err := os.ReadFile(filepath.Join(dist, "mcpb", "server.json"))
	if err != nil {
		t.Fatalf("the recipe wrote no server.json: %v", err)
	}
	var server struct {
		Packages []struct {
			RegistryType string `json:"registryType"`
			Identifier   string `json:"identifier"`
			FileSha256   string `json:"fileSha256"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &server); err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, p := range server.Packages {
		if p.RegistryType == "mcpb" {
			listed[path.Base(p.Identifier)] = p.FileSha256
		}
	}
	for _, b := range bundles {
		if listed[filepath.Base(b)] != sha256File(t, b) {
			t.Errorf("server.json lists %s with SHA-256 %q, want %s", filepath.Base(b), listed[filepath.Base(b)], sha256File(t, b))
		}
	}
	return bundles
}

// startBundle installs the bundle for this machine as a host does (open,
// unpack, the command from mcp_config) and returns a client that has
// completed the handshake with it.
func startBundle(t *testing.T, bundles map[string]string) *mcp.Client {
	t.Helper()
	host := runtime.GOOS + "_" + runtime.GOARCH
	if runtime.GOOS == "darwin" {
		host = "darwin_all"
	}
	file, ok := bundles[host]
	if !ok || runtime.GOOS == "windows" {
		t.Skipf("no bundle to start on %s", host)
	}
	b, err := mcpb.Open(file, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	installed := filepath.Join(t.TempDir(), "installed")
	if err := b.Unpack(installed); err != nil {
		t.Fatal(err)
	}
	l, err := b.Manifest.Launch(installed, mcpb.Platform(runtime.GOOS), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcp.StartCommand(execCommand(l.Command, l.Args, l.Env), &mcp.ClientOptions{Info: mcp.Implementation{Name: "dist-test", Version: "1"}, TerminateTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, ""); err != nil {
		t.Fatalf("handshake with the installed bundle %s: %v\n%s", file, err, c.Stderr())
	}
	return c
}

// TestPackGoreleaserApp cuts a snapshot release of examples/goapp, a Go
// app that serves its own tools, with its recipe: a hook runs "go tool
// mcpship pack --app" over the dist directory once the builds are done,
// and the bundles are checksummed with the archives. The bundle for this
// machine, installed, answers a tool call.
func TestPackGoreleaserApp(t *testing.T) {
	bundles := releasedBundles(t, snapshot(t, "goapp", "main.go"), "goapp")
	for _, b := range bundles {
		_, m := readBundle(t, b)
		if !slices.Equal(m.Server.MCPConfig.Args, []string{"mcp"}) || !slices.ContainsFunc(m.Tools, func(tl mcpb.Tool) bool { return tl.Name == "goapp_count" }) {
			t.Errorf("%s: args %q, tools %v; want goapp mcp serving goapp_count", b, m.Server.MCPConfig.Args, m.Tools)
		}
	}
	c := startBundle(t, bundles)
	words := filepath.Join(t.TempDir(), "words.txt")
	if err := os.WriteFile(words, []byte("one two three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, "goapp_count", map[string]any{"by": "words", "files": []string{words}})
	if err != nil || res.IsError {
		t.Fatalf("goapp_count: %v %+v\n%s", err, res, c.Stderr())
	}
	counts, _ := res.StructuredContent.(map[string]any)["counts"].(map[string]any)
	if n, _ := counts[words].(float64); n != 3 {
		t.Errorf("goapp_count of three words gave %v", res.StructuredContent)
	}
}

// TestPackGoreleaserManifest cuts a snapshot release of examples/rigor, a
// manifest for a program not written in Go, with its recipe: GoReleaser
// builds the mcpship that go.mod pins, and a hook runs "go tool mcpship
// pack --manifest" over the dist directory. The bundle for this machine,
// installed, lists rigor's tools.
func TestPackGoreleaserManifest(t *testing.T) {
	bundles := releasedBundles(t, snapshot(t, "rigor", "mcpship.json"), "mcpship")
	for _, b := range bundles {
		files, m := readBundle(t, b)
		if m.Name != "rigor" || m.Description != "Type-check Ruby with Rigor. Needs rigor on PATH." {
			t.Errorf("%s: name %q, description %q", b, m.Name, m.Description)
		}
		if _, ok := files["server/mcpship.json"]; !ok {
			t.Errorf("%s holds no server/mcpship.json", b)
		}
	}
	c := startBundle(t, bundles)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 7 {
		t.Fatalf("the installed bundle lists %d tools (%v), want rigor's 7", len(tools), err)
	}
}

// execCommand is the command a host runs for an installed bundle: its
// environment on top of this process's.
func execCommand(command string, args []string, env map[string]string) *exec.Cmd {
	cmd := exec.Command(command, args...)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}
