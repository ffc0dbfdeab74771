package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorGeminiTrust: Gemini CLI starts no MCP server in a folder it
// does not trust (it lists them as disabled), so doctor does not say ok
// for its entries there: it says what Gemini CLI will do, following
// Gemini CLI's rules (trustedFolders.json, its longest rule, TRUST_PARENT,
// security.folderTrust.enabled, GEMINI_CLI_TRUST_WORKSPACE).
func TestDoctorGeminiTrust(t *testing.T) {
	manifest, _ := filepath.Abs(filepath.Join("..", "examples", "rigor", "mcpship.json"))
	for _, tt := range []struct {
		what     string
		trust    func(proj string) map[string]string // trustedFolders.json, nil for none
		settings map[string]any
		env      []string
		want     string
	}{
		{what: "no rules", want: "skipped rigor: Gemini CLI shows it disabled in "},
		{what: "the folder trusted", trust: func(p string) map[string]string { return map[string]string{p: "TRUST_FOLDER"} }, want: "ok      rigor"},
		{what: "its parent trusted", trust: func(p string) map[string]string { return map[string]string{filepath.Join(p, "sub"): "TRUST_PARENT"} }, want: "ok      rigor"},
		{what: "a folder above trusted", trust: func(p string) map[string]string { return map[string]string{filepath.Dir(p): "TRUST_FOLDER"} }, want: "ok      rigor"},
		{what: "the longest rule distrusts", trust: func(p string) map[string]string {
			return map[string]string{filepath.Dir(p): "TRUST_FOLDER", p: "DO_NOT_TRUST"}
		}, want: "DO_NOT_TRUST"},
		{what: "another folder trusted", trust: func(p string) map[string]string { return map[string]string{p + "-other": "TRUST_FOLDER"} }, want: "skipped rigor: Gemini CLI shows it disabled in "},
		{what: "an invalid level", trust: func(p string) map[string]string { return map[string]string{p: "YES"} }, want: "Gemini CLI refuses to start"},
		{what: "folder trust off", settings: map[string]any{"security": map[string]any{"folderTrust": map[string]any{"enabled": false}}}, want: "ok      rigor"},
		{what: "GEMINI_CLI_TRUST_WORKSPACE=true", env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, want: "ok      rigor"},
		{what: "GEMINI_CLI_TRUST_WORKSPACE=false", env: []string{"GEMINI_CLI_TRUST_WORKSPACE=false"},
			trust: func(p string) map[string]string { return map[string]string{p: "TRUST_FOLDER"} }, want: "GEMINI_CLI_TRUST_WORKSPACE=false makes every folder untrusted"},
	} {
		t.Run(tt.what, func(t *testing.T) {
			s := newSandbox(t)
			settings := map[string]any{"mcpServers": map[string]any{"rigor": map[string]any{"command": binPath, "args": []string{"serve", "--manifest", manifest}}}}
			for k, v := range tt.settings {
				settings[k] = v
			}
			write := func(name string, v any) {
				b, _ := json.Marshal(v)
				os.MkdirAll(filepath.Join(s.home, ".gemini"), 0o755)
				if err := os.WriteFile(filepath.Join(s.home, ".gemini", name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("settings.json", settings)
			if tt.trust != nil {
				write("trustedFolders.json", tt.trust(s.proj))
			}
			c := s.cmd("doctor", "--client", "gemini")
			c.Env = append(c.Env, tt.env...)
			out, _ := c.CombinedOutput()
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("doctor does not say %q:\n%s", tt.want, out)
			}
			if !strings.Contains(tt.want, "ok") && strings.Contains(string(out), "ok      rigor") {
				t.Errorf("doctor says ok for a server Gemini CLI does not start:\n%s", out)
			}
		})
	}
}
