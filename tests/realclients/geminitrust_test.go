package realclients

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGeminiFolderTrust: for each way of trusting a folder or not,
// "mcpship doctor" says that Gemini CLI will not start its servers there
// exactly when Gemini CLI's own "gemini mcp list" lists them as disabled.
func TestGeminiFolderTrust(t *testing.T) {
	gemini := nodeBin(t, "gemini")
	needNode(t)
	for _, tt := range []struct {
		what     string
		trust    func(proj string) map[string]any
		settings map[string]any
		env      []string
	}{
		{what: "no rules"},
		{what: "the folder trusted", trust: func(p string) map[string]any { return map[string]any{p: "TRUST_FOLDER"} }},
		{what: "its parent trusted", trust: func(p string) map[string]any { return map[string]any{filepath.Join(p, "sub"): "TRUST_PARENT"} }},
		{what: "the longest rule distrusts", trust: func(p string) map[string]any {
			return map[string]any{filepath.Dir(p): "TRUST_FOLDER", p: "DO_NOT_TRUST"}
		}},
		{what: "another folder trusted", trust: func(p string) map[string]any { return map[string]any{p + "-other": "TRUST_FOLDER"} }},
		{what: "folder trust off", settings: map[string]any{"security": map[string]any{"folderTrust": map[string]any{"enabled": false}}}},
		{what: "GEMINI_CLI_TRUST_WORKSPACE=false", env: []string{"GEMINI_CLI_TRUST_WORKSPACE=false"},
			trust: func(p string) map[string]any { return map[string]any{p: "TRUST_FOLDER"} }},
	} {
		t.Run(tt.what, func(t *testing.T) {
			home, proj := t.TempDir(), t.TempDir()
			settings := map[string]any{"mcpServers": map[string]any{regName: map[string]any{"command": binPath, "args": []string{"serve"}}}}
			for k, v := range tt.settings {
				settings[k] = v
			}
			writeJSON(t, filepath.Join(home, ".gemini", "settings.json"), settings)
			if tt.trust != nil {
				writeJSON(t, filepath.Join(home, ".gemini", "trustedFolders.json"), tt.trust(proj))
			}
			env := append([]string{"HOME=" + home}, tt.env...)
			r := runTool(t, 90*time.Second, proj, env, gemini, "mcp", "list")
			out := r.stdout + r.stderr
			var line string
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, regName+": ") {
					line = l
				}
			}
			if line == "" {
				t.Fatalf("gemini mcp list does not list %s\n%s", regName, r)
			}
			disabled := strings.HasSuffix(strings.TrimSpace(line), "- Disabled")
			d := runTool(t, 90*time.Second, proj, env, binPath, "doctor", "--client", "gemini")
			skipped := strings.Contains(d.stdout, "skipped "+regName+": Gemini CLI shows it disabled in ")
			if disabled != skipped {
				t.Errorf("gemini mcp list says %q, but doctor (skipped: %v):\n%s", strings.TrimSpace(line), skipped, d)
			}
		})
	}
}
