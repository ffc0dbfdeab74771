package realclients

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// packPlugin runs "mcpship pack" on the rigor example with
// --claude-plugin or --gemini-extension (flag) and returns the directory
// it wrote and the environment to run the client in: mcpship, which the
// plugin starts by its bare name, is first on PATH. With withManifest
// false the plugin's copy of the manifest is removed, so that its server
// cannot start: the clients' checks must say so.
func packPlugin(t *testing.T, flag string, withManifest bool) (dir string, env []string) {
	t.Helper()
	home := t.TempDir()
	dir = filepath.Join(home, "rigor-plugin")
	// A square icon of the size the plugin directory asks for.
	img := image.NewRGBA(image.Rect(0, 0, 512, 512))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{200, 30, 30, 255}), image.Point{}, draw.Src)
	var icon bytes.Buffer
	if err := png.Encode(&icon, img); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "icon.png"), icon.Bytes())
	r := runTool(t, 60*time.Second, home, nil, binPath, "pack", "--manifest", filepath.Join(repoRoot, "examples", "rigor", "mcpship.json"),
		"--out", filepath.Join(home, "dist"), "--version", "1.0.0", "--name", "rigor", "--description", "Type-check Ruby with Rigor",
		"--author", "Rigor authors <rigor@example.com>", "--license", "MIT", "--icon", filepath.Join(home, "icon.png"), "--repository", "https://github.com/rigor-lang/rigor", flag, dir)
	if r.code != 0 {
		t.Fatalf("mcpship pack %s: want exit 0\n%s", flag, r)
	}
	if !withManifest {
		if err := os.Remove(filepath.Join(dir, "mcpship.json")); err != nil {
			t.Fatal(err)
		}
	}
	return dir, []string{"HOME=" + home, "PATH=" + filepath.Dir(binPath) + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// TestClaudeCodePlugin packs the rigor plugin, has Claude Code's own
// validator check it (--strict: warnings fail too; --profile directory:
// also what the plugin directory would refuse a submission for), then loads it with
// --plugin-dir and checks that "claude mcp list" reports its server
// connected, the manifest found through ${CLAUDE_PLUGIN_ROOT}.
func TestClaudeCodePlugin(t *testing.T) {
	claude := nodeBin(t, "claude")
	for _, ok := range []bool{true, false} {
		proj := t.TempDir()
		dir, env := packPlugin(t, "--claude-plugin", ok)
		env = append(env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "MCP_TIMEOUT=20000")

		r := runTool(t, 60*time.Second, proj, env, claude, "plugin", "validate", "--strict", "--profile", "directory", "--json", dir)
		var report struct {
			Success   bool
			Manifest  struct{ Errors, Warnings []any }
			Provides  struct{ MCPServers []struct{ Name string } }
			Directory struct{ Findings []any }
		}
		if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
			t.Fatalf("claude plugin validate --json: %v\n%s", err, r)
		}
		if r.code != 0 || !report.Success || len(report.Manifest.Errors)+len(report.Manifest.Warnings)+len(report.Directory.Findings) > 0 ||
			len(report.Provides.MCPServers) != 1 || report.Provides.MCPServers[0].Name != "rigor" {
			t.Errorf("claude plugin validate --strict --profile directory: want success, no errors, warnings or findings, and the rigor server\n%s", r)
		}

		r = runTool(t, 90*time.Second, proj, env, claude, "--plugin-dir", dir, "mcp", "list")
		line := statusLine(t, r.stdout, "", "plugin:rigor:rigor")
		manifest := "mcpship serve --manifest " + filepath.Join(dir, "mcpship.json")
		switch {
		case ok && (!strings.Contains(line, "✔ Connected") || !strings.Contains(line, manifest)):
			t.Errorf("claude --plugin-dir mcp list: want %q connected, got %q\n%s", manifest, line, r)
		case !ok && !strings.Contains(line, "✘ Failed to connect"):
			t.Errorf("claude --plugin-dir mcp list: the plugin without its manifest must fail to connect, got %q\n%s", line, r)
		}
	}
}

// TestGeminiCLIExtension packs the rigor extension, has Gemini CLI
// validate and link it, and checks that "gemini mcp list" reports its
// server connected, the manifest found through ${extensionPath}${/}.
func TestGeminiCLIExtension(t *testing.T) {
	gemini := nodeBin(t, "gemini")
	needNode(t)
	for _, ok := range []bool{true, false} {
		proj := t.TempDir()
		dir, env := packPlugin(t, "--gemini-extension", ok)
		env = append(env, "GEMINI_CLI_TRUST_WORKSPACE=true")
		r := runTool(t, 60*time.Second, proj, env, gemini, "extensions", "validate", dir)
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "successfully validated") {
			t.Fatalf("gemini extensions validate: want exit 0 and \"successfully validated\"\n%s", r)
		}
		r = runTool(t, 60*time.Second, proj, env, gemini, "extensions", "link", "--consent", dir)
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, `Extension "rigor" linked successfully`) {
			t.Fatalf("gemini extensions link: want exit 0 and the extension linked\n%s", r)
		}
		r = runTool(t, 90*time.Second, proj, env, gemini, "mcp", "list")
		out := r.stdout + r.stderr
		manifest := "mcpship serve --manifest " + filepath.Join(dir, "mcpship.json")
		if ok {
			line := statusLine(t, out, "✓", "rigor (from rigor)")
			if !strings.HasSuffix(strings.TrimSpace(line), "- Connected") || !strings.Contains(line, manifest) {
				t.Errorf("gemini mcp list: want %q connected, got %q\n%s", manifest, line, r)
			}
		} else if line := statusLine(t, out, "✗", "rigor (from rigor)"); !strings.Contains(line, "Disconnected") {
			t.Errorf("gemini mcp list: the extension without its manifest must be Disconnected, got %q\n%s", line, r)
		}
	}
}

// TestOneLiners runs the one-liners "mcpship links" prints through the
// clients themselves (claude, codex, gemini; a POSIX shell splits them)
// and checks that each client wrote the entry "mcpship init --scope user"
// writes for it.
func TestOneLiners(t *testing.T) {
	needNode(t)
	if _, err := exec.LookPath("sh"); err != nil {
		skipLoudly(t, "no POSIX shell (sh) to run the one-liners")
	}
	clientBin := filepath.Dir(nodeBin(t, "claude"))
	server := []string{"--name", "rigor", "--command", "mcpship", "--env", "RIGOR_HOME=/opt/my rigor",
		"--manifest", filepath.Join(repoRoot, "examples", "rigor", "mcpship.json")}
	r := runTool(t, 30*time.Second, repoRoot, nil, binPath, append([]string{"links", "--json"}, server...)...)
	var links struct {
		Commands []struct{ Client, Line string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &links); r.code != 0 || err != nil {
		t.Fatalf("mcpship links --json: %v\n%s", err, r)
	}
	files := map[string]string{"claude-code": ".claude.json", "codex": ".codex/config.toml", "gemini": ".gemini/settings.json"}
	checked := 0
	for _, c := range links.Commands {
		file, ok := files[c.Client]
		if !ok {
			continue // code --add-mcp needs VS Code
		}
		checked++
		t.Run(c.Client, func(t *testing.T) {
			// The client's one-liner in one home, init in another.
			entries := make([]any, 2)
			for i := range entries {
				home, proj := t.TempDir(), t.TempDir()
				if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
					t.Fatal(err)
				}
				env := []string{"HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex"),
					"PATH=" + clientBin + string(os.PathListSeparator) + os.Getenv("PATH"),
					"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
				if i == 0 {
					r = runTool(t, 90*time.Second, proj, env, "sh", "-c", c.Line)
				} else {
					r = runTool(t, 30*time.Second, proj, env, binPath, append([]string{"init", "--client", c.Client, "--scope", "user"}, server...)...)
				}
				if r.code != 0 {
					t.Fatalf("want exit 0\n%s", r)
				}
				entries[i] = readEntry(t, filepath.Join(home, file), "rigor")
			}
			if !reflect.DeepEqual(entries[0], entries[1]) {
				t.Errorf("%s\nwrote %v\ninit writes %v", c.Line, entries[0], entries[1])
			}
		})
	}
	if checked != len(files) {
		t.Errorf("links printed one-liners for %d of the %d clients: %+v", checked, len(files), links.Commands)
	}
}

// readEntry returns the user-scope server name from a client's config
// file, as encoding/json would decode it.
func readEntry(t *testing.T, file, name string) any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if strings.HasSuffix(file, ".toml") {
		_, err = toml.Decode(string(data), &doc)
	} else {
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	key := "mcpServers"
	if strings.HasSuffix(file, ".toml") {
		key = "mcp_servers"
	}
	servers, _ := doc[key].(map[string]any)
	b, err := json.Marshal(servers[name])
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil || v == nil {
		t.Fatalf("%s has no %s.%s:\n%s", file, key, name, data)
	}
	return v
}
