package realclients

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// TestBundles packs examples/rigor with "mcpship pack", the stand-in
// bundled as rigor, and hands each bundle to the official MCP Bundle tools
// (@anthropic-ai/mcpb): "mcpb validate" must accept its manifest, "mcpb
// info" read it and "mcpb unpack" unpack it. The unpacked server is then
// started exactly as Claude Desktop starts it, with the command the
// official library works out from mcp_config (node/mcpblaunch.mjs), and
// must answer a handshake, list the manifest's tools and run a call.
func TestBundles(t *testing.T) {
	node := needNode(t)
	mcpbCLI := groupFile(t, "mcpb", filepath.Join("node_modules", ".bin", "mcpb"))
	modules := filepath.Join(cacheDir(), "mcpb")
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the bundle is started with the host's binary; this test builds it for Linux and macOS hosts")
	}
	work := t.TempDir()
	out := filepath.Join(work, "out")
	host := runtime.GOOS + "/" + runtime.GOARCH
	// The Windows bundle carries the host's binary too: what is checked
	// here is its manifest and layout, not that Windows can run it.
	other := "windows/amd64"
	r := runTool(t, time.Minute, work, nil, binPath, "pack",
		"--manifest", filepath.Join(repoRoot, "examples", "rigor", "mcpship.json"),
		"--out", out, "--version", "1.2.3", "--description", "Type-check Ruby with Rigor",
		"--author", "Rigor authors <rigor@example.com>", "--license", "MIT",
		"--binary", host+"="+binPath, "--binary", other+"="+binPath,
		"--program", "rigor="+filepath.Join(standinDir, "rigor"),
		"--set", "config=.rigor.yml")
	if r.code != 0 {
		t.Fatalf("mcpship pack failed:\n%s", r)
	}
	bundles, err := filepath.Glob(filepath.Join(out, "*.mcpb"))
	if err != nil || len(bundles) != 2 {
		t.Fatalf("pack wrote %q, want 2 bundles (%v)\n%s", bundles, err, r)
	}
	for _, b := range bundles {
		fi, err := os.Stat(b)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", filepath.Base(b), fi.Size())
		r := runTool(t, time.Minute, work, nil, mcpbCLI, "info", b)
		if r.code != 0 || !strings.Contains(r.stdout, "File: "+filepath.Base(b)) {
			t.Errorf("mcpb info %s:\n%s", b, r)
		}
		dir := filepath.Join(work, strings.TrimSuffix(filepath.Base(b), ".mcpb"))
		if r := runTool(t, time.Minute, work, nil, mcpbCLI, "unpack", b, dir); r.code != 0 {
			t.Fatalf("mcpb unpack %s:\n%s", b, r)
		}
		r = runTool(t, time.Minute, work, nil, mcpbCLI, "validate", filepath.Join(dir, "manifest.json"))
		t.Logf("mcpb validate: %s", strings.TrimSpace(r.stdout+r.stderr))
		if r.code != 0 || !strings.Contains(r.stdout, "Manifest schema validation passes!") {
			t.Errorf("mcpb validate %s:\n%s", dir, r)
		}
	}

	dir := filepath.Join(work, "rigor_1.2.3_"+strings.Replace(host, "/", "_", 1))
	t.Run("defaults", func(t *testing.T) {
		callBundle(t, node, modules, dir, `{}`,
			[]string{"check", "--config=.rigor.yml", "--format", "json", "--no-stats", "lib"})
	})
	t.Run("user settings", func(t *testing.T) {
		callBundle(t, node, modules, dir, `{"config": "other.yml"}`,
			[]string{"check", "--config=other.yml", "--format", "json", "--no-stats", "lib"})
	})
}

// callBundle starts the unpacked bundle in dir as Claude Desktop would,
// with the user's settings userConfig, and calls rigor_check on lib: the
// bundled stand-in must run with argv.
func callBundle(t *testing.T, node, modules, dir, userConfig string, argv []string) {
	script := filepath.Join(repoRoot, "tests", "realclients", "node", "mcpblaunch.mjs")
	r := runTool(t, time.Minute, dir, nil, node, script, modules, dir, userConfig)
	var launch struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &launch); err != nil || r.code != 0 || launch.Command == "" {
		t.Fatalf("mcpblaunch.mjs: %v\n%s", err, r)
	}
	t.Logf("Claude Desktop would run %s %q", launch.Command, launch.Args)
	if !strings.HasPrefix(launch.Command, dir+string(filepath.Separator)) {
		t.Errorf("command %s is not inside the bundle %s", launch.Command, dir)
	}
	cmd := exec.Command(launch.Command, launch.Args...)
	// No stand-in on PATH: the rigor that runs must be the bundled one.
	path := slices.DeleteFunc(filepath.SplitList(os.Getenv("PATH")), func(d string) bool { return d == standinDir })
	cmd.Env = append(baseEnv(), "PATH="+strings.Join(path, string(os.PathListSeparator)), "HOME="+t.TempDir())
	for k, v := range launch.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = t.TempDir()
	c, err := mcp.StartCommand(cmd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "bundle-test", Version: "1"}, TerminateTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, ""); err != nil {
		t.Fatalf("handshake: %v\n%s", err, c.Stderr())
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 7 || tools[0].Name != "rigor_check" {
		t.Errorf("the bundle lists %d tools, first %q; want rigor's 7, rigor_check first", len(tools), tools[0].Name)
	}
	res, err := c.CallTool(ctx, "rigor_check", map[string]any{"paths": []string{"lib"}})
	if err != nil {
		t.Fatalf("tools/call: %v\n%s", err, c.Stderr())
	}
	if res.IsError {
		t.Fatalf("rigor_check failed: %+v\n%s", res, c.Stderr())
	}
	var rep standinReport
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("structuredContent is not the stand-in's report: %v in %s", err, res.StructuredContent)
	}
	if rep.Program != "rigor" || !slices.Equal(rep.Argv, argv) {
		t.Errorf("the bundled rigor ran as %q with %q, want rigor with %q", rep.Program, rep.Argv, argv)
	}
}
