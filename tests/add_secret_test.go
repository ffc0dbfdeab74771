package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/internal/mcpb"
)

// TestAddHidesSecrets: a sensitive setting or a secret input is never
// printed, even when the check fails and quotes the server's standard
// error, which echoes its arguments and environment; a password in a
// bundle's URL is printed by neither add nor list, nor recorded.
func TestAddHidesSecrets(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the servers are shell scripts")
	}
	const secret = "s3cr3t-T0KEN-42"
	echo := "#!/bin/sh\necho \"starting with $* TOKEN=$TOKEN\" >&2\necho \"no: $1\"\nexit 3\n"
	t.Run("bundle setting", func(t *testing.T) {
		s := newAddSandbox(t, newFakeHub(t))
		m := &mcpb.Manifest{ManifestVersion: mcpb.ManifestVersion, Name: "probe", Version: "1.0.0", Description: "d", Author: mcpb.Author{Name: "a"},
			Server: mcpb.Server{Type: "binary", EntryPoint: "server/run", MCPConfig: &mcpb.MCPConfig{
				Command: "${__dirname}/server/run", Args: []string{"--token=${user_config.token}"}, Env: map[string]string{"TOKEN": "${user_config.token}"}}},
			UserConfig: map[string]mcpb.UserConfig{"token": {Type: "string", Title: "Token", Description: "d", Sensitive: true, Required: true}}}
		file := filepath.Join(t.TempDir(), "probe.mcpb")
		writeBundle(t, file, m, echo)
		out, errOut, code := s.mcpship("add", file, "--config", "token="+secret, "--client", "cursor")
		if code != 1 || !strings.Contains(errOut, "starting with --token=<hidden> TOKEN=<hidden>") {
			t.Errorf("exit %d, want 1 with the server's stderr, its secret hidden\n%s\n%s", code, out, errOut)
		}
		if strings.Contains(out+errOut, secret) {
			t.Errorf("add printed the secret:\n%s\n%s", out, errOut)
		}
	})
	t.Run("registry input", func(t *testing.T) {
		hub := newFakeHub(t)
		const name = "io.github.mcpship-tests/weather"
		hub.answer(name, "1.2.0", map[string]any{"name": name, "description": "weather", "version": "1.2.0",
			"packages": []any{map[string]any{"registryType": "npm", "identifier": "@mcpship-tests/weather", "version": "1.2.0",
				"transport":            map[string]string{"type": "stdio"},
				"packageArguments":     []any{map[string]any{"type": "named", "name": "--key", "valueHint": "key", "isRequired": true, "isSecret": true}},
				"environmentVariables": []any{map[string]any{"name": "TOKEN", "isRequired": true, "isSecret": true}}}}})
		s := newAddSandbox(t, hub)
		bin := t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, "npx"), []byte(echo), 0o755); err != nil {
			t.Fatal(err)
		}
		s.path = bin + string(os.PathListSeparator) + os.Getenv("PATH")
		out, errOut, code := s.mcpship("add", "--registry", hub.URL, "--config", "TOKEN="+secret, "--config", "key="+secret+"-2", "--client", "cursor", name)
		if code != 1 || !strings.Contains(errOut, "starting with -y @mcpship-tests/weather@1.2.0 --key <hidden> TOKEN=<hidden>") {
			t.Errorf("exit %d, want 1 with the server's stderr, its secrets hidden\n%s\n%s", code, out, errOut)
		}
		if strings.Contains(out+errOut, secret) {
			t.Errorf("add printed the secret:\n%s\n%s", out, errOut)
		}
	})
	t.Run("doctor and tools", func(t *testing.T) {
		s := newAddSandbox(t, newFakeHub(t))
		server := filepath.Join(t.TempDir(), "server")
		if err := os.WriteFile(server, []byte(echo), 0o755); err != nil {
			t.Fatal(err)
		}
		cursor, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"echo": map[string]any{
			"command": server, "args": []string{"--token", secret}, "env": map[string]string{"TOKEN": secret + "-env"}}}})
		os.MkdirAll(filepath.Join(s.home, ".cursor"), 0o755)
		if err := os.WriteFile(filepath.Join(s.home, ".cursor", "mcp.json"), cursor, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"doctor", "--client", "cursor"}, {"doctor", "--client", "cursor", "--json"}, {"tools", "--name", "echo"}, {"call", "--name", "echo", "t"}} {
			out, errOut, code := s.mcpship(args...)
			if code != 1 || !strings.Contains(out+errOut, "starting with --token <hidden> TOKEN=<hidden>") || strings.Contains(out+errOut, secret) {
				t.Errorf("%s: exit %d, want 1 with the server's stderr, its secrets hidden\n%s\n%s", args, code, out, errOut)
			}
		}
	})
	t.Run("URL password", func(t *testing.T) {
		hub := newFakeHub(t)
		u := strings.Replace(hub.host("rigor.mcpb", exampleBundles(t)["rigor-1.0.0.mcpb"]), "https://", "https://user:"+secret+"@", 1)
		s := newAddSandbox(t, hub)
		out, errOut := s.must(t, "add", u, "--client", "cursor")
		list, _ := s.must(t, "list", "--client", "cursor")
		listJSON, _ := s.must(t, "list", "--client", "cursor", "--json")
		list += listJSON
		record, _ := os.ReadFile(filepath.Join(s.serversDir(), "rigor", "installed.json"))
		if strings.Contains(out+errOut+list+string(record), secret) {
			t.Errorf("the password was printed or recorded:\n%s\n%s\n%s\n%s", out, errOut, list, record)
		}
		if !strings.Contains(out, "installed rigor 1.0.0 from https://user:xxxxx@") || !strings.Contains(list, "from https://user:xxxxx@") {
			t.Errorf("add and list do not say where rigor came from:\n%s\n%s", out, list)
		}
		// A wrong hash quotes the URL, its password hidden.
		_, errOut, code := s.mcpship("add", u, "--sha256", strings.Repeat("ab", 32), "--client", "cursor", "--name", "other")
		if code != 1 || strings.Contains(errOut, secret) || !strings.Contains(errOut, "the bundle downloaded from https://user:xxxxx@") {
			t.Errorf("a wrong hash: exit %d\n%s", code, errOut)
		}
	})
}

// writeBundle writes the bundle of m, whose entry point server/run is the
// shell script given, to file.
func writeBundle(t *testing.T, file string, m *mcpb.Manifest, script string) {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := mcpb.Write(f, m, []mcpb.File{{Name: "server/run", Data: []byte(script), Mode: 0o755}}); err != nil {
		t.Fatal(err)
	}
}
