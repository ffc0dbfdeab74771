package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestAddChecksRegistryValues: what the registry says is checked as
// strictly as what a user types, before anything is registered: the
// entry name it gives, npm identifiers (one starting with "-" would be an
// option of npx), environment variable names, header names and values;
// and an answer of 60,000 packages that cannot be installed gives a short
// error.
func TestAddChecksRegistryValues(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake npx is a shell script")
	}
	manifest, _ := filepath.Abs(filepath.Join("..", "examples", "rigor", "mcpship.json"))
	bin := t.TempDir()
	npx := fmt.Sprintf("#!/bin/sh\nexec %q serve --manifest %q\n", binPath, manifest)
	if err := os.WriteFile(filepath.Join(bin, "npx"), []byte(npx), 0o755); err != nil {
		t.Fatal(err)
	}
	pkg := func(identifier string, env ...string) map[string]any {
		p := map[string]any{"registryType": "npm", "identifier": identifier, "version": "1.0.0", "transport": map[string]string{"type": "stdio"}}
		var vars []any
		for _, e := range env {
			vars = append(vars, map[string]any{"name": e, "default": "x"})
		}
		if vars != nil {
			p["environmentVariables"] = vars
		}
		return p
	}
	remote := func(name, value string) map[string]any {
		return map[string]any{"type": "sse", "url": "https://weather.example.com/sse",
			"headers": []any{map[string]any{"name": name, "default": value}}}
	}
	many := make([]any, 60_000)
	for i := range many {
		many[i] = map[string]any{"registryType": "cargo", "identifier": fmt.Sprintf("c%d", i)}
	}
	for _, tt := range []struct {
		what, name string
		server     map[string]any
		code       int
		want       string
	}{
		{"entry name _", "_", map[string]any{"packages": []any{pkg("@t/weather")}}, 64, `server name "_" cannot name a folder`},
		{"identifier -e", "w", map[string]any{"packages": []any{pkg("-e")}}, 1, "the identifier is not a npm package name"},
		{"identifier --registry=x", "w", map[string]any{"packages": []any{pkg("--registry=https://evil.example")}}, 1, "the identifier is not a npm package name"},
		{"identifier with a space", "w", map[string]any{"packages": []any{pkg("a b")}}, 1, "the identifier is not a npm package name"},
		{"empty environment name", "w", map[string]any{"packages": []any{pkg("@t/weather", "")}}, 1, `"" cannot name an environment variable`},
		{"environment name with a line break", "w", map[string]any{"packages": []any{pkg("@t/weather", "A\nB")}}, 1, `"A\nB" cannot name an environment variable`},
		{"environment name with =", "w", map[string]any{"packages": []any{pkg("@t/weather", "LD_PRELOAD=/x")}}, 1, `"LD_PRELOAD=/x" cannot name an environment variable`},
		{"header value with CR LF", "w", map[string]any{"remotes": []any{remote("Authorization", "Bearer k\r\nX-Evil: 1")}}, 1, "has a control character (such as a line break)"},
		{"header name with a space", "w", map[string]any{"remotes": []any{remote("X Evil", "1")}}, 1, `header "X Evil" is not an HTTP header name`},
		{"60,000 packages", "w", map[string]any{"packages": many}, 1, "... and 59990 more"},
	} {
		t.Run(tt.what, func(t *testing.T) {
			hub := newFakeHub(t)
			name := "io.github.mcpship-tests/" + tt.name
			server := map[string]any{"name": name, "description": "d", "version": "1.0.0"}
			for k, v := range tt.server {
				server[k] = v
			}
			hub.answer(name, "1.0.0", server)
			s := newAddSandbox(t, hub)
			s.path = bin + string(os.PathListSeparator) + os.Getenv("PATH")
			out, errOut, code := s.mcpship("add", "--registry", hub.URL, "--client", "claude-code,cursor", name)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want %d saying %q\n%s\n%.3000s", code, tt.code, tt.want, out, errOut)
			}
			if len(errOut) > 4000 {
				t.Errorf("the error is %d bytes long", len(errOut))
			}
			for _, f := range []string{filepath.Join(s.home, ".claude.json"), filepath.Join(s.home, ".cursor", "mcp.json")} {
				if _, err := os.Stat(f); !os.IsNotExist(err) {
					t.Errorf("%s was written", f)
				}
			}
		})
	}
}
