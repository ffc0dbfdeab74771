package realclients

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAddThenClients installs the bundle "mcpship pack" makes of
// examples/rigor with "mcpship add" for Claude Code and Codex, user scope, then has each
// assistant start the server from the entry add wrote: Claude Code reports
// it connected, Codex, with the server required, connects to it, and the
// MCP Inspector lists its tools from Claude Code's file.
func TestAddThenClients(t *testing.T) {
	claude := nodeBin(t, "claude")
	codex := nodeBin(t, "codex")
	needNode(t)
	home, proj := t.TempDir(), t.TempDir()
	pack := exec.Command(binPath, "pack", "--manifest", filepath.Join(repoRoot, "examples", "rigor", "mcpship.json"), "--out", proj,
		"--version", "1.0.0", "--description", "the rigor example", "--author", "mcpship tests")
	if out, err := pack.CombinedOutput(); err != nil {
		t.Fatalf("mcpship pack: %v\n%s", err, out)
	}
	bundles, _ := filepath.Glob(filepath.Join(proj, "*.mcpb"))
	if len(bundles) != 1 {
		t.Fatalf("pack made %q, want one bundle", bundles)
	}
	bundle := bundles[0]
	codexHome := filepath.Join(home, ".codex")
	env := []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "MCP_TIMEOUT=20000"}

	add := exec.Command(binPath, "add", "--client", "claude-code,codex", "--scope", "user", bundle)
	add.Dir, add.Env = proj, append(baseEnv(), env...)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("mcpship add: %v\n%s", err, out)
	}
	dir := filepath.Join(home, ".local", "share", "mcpship", "servers", "rigor", "1.0.0")

	r := runTool(t, 90*time.Second, proj, env, claude, "mcp", "list")
	if line := statusLine(t, r.stdout, "", "rigor"); r.code != 0 || !strings.Contains(line, "✔ Connected") || !strings.Contains(line, dir) {
		t.Errorf("claude mcp list: want rigor, from %s, \"✔ Connected\"\n%s", dir, r)
	}
	r = runTool(t, 90*time.Second, proj, env, codex, "-c", "mcp_servers.rigor.required=true", "debug", "prompt-input")
	if r.code != 0 || !strings.Contains(r.stdout, `- mcp__rigor\n`) {
		t.Errorf("codex debug prompt-input with rigor required: want exit 0 and the namespace mcp__rigor\n%s", r)
	}
	// The MCP Inspector, reading the file add wrote for Claude Code, lists
	// the tools of the installed server.
	inspector := nodeBin(t, "mcp-inspector")
	r = runTool(t, 60*time.Second, proj, []string{"HOME=" + t.TempDir()}, inspector,
		"--cli", "--config", filepath.Join(home, ".claude.json"), "--server", "rigor", "--format", "json", "-q", "--method", "tools/list")
	var listed struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	var names []string
	if err := json.Unmarshal([]byte(r.stdout), &listed); err == nil {
		for _, tool := range listed.Result.Tools {
			names = append(names, tool.Name)
		}
	}
	want := []string{"rigor_check", "rigor_type_of", "rigor_triage", "rigor_annotate", "rigor_sig_gen", "rigor_explain", "rigor_coverage"}
	if r.code != 0 || !slices.Equal(names, want) {
		t.Errorf("mcp-inspector tools/list: tools %q, want %q\n%s", names, want, r)
	}
}
