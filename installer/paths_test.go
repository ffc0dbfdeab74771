package installer

import (
	"slices"
	"testing"
)

// fakeEnv returns an Env for goos with the given variables and existing
// paths, and the project in proj.
func fakeEnv(goos, proj string, vars map[string]string, exists ...string) Env {
	return Env{
		GOOS:       goos,
		Getenv:     func(k string) string { return vars[k] },
		Exists:     func(p string) bool { return slices.Contains(exists, p) },
		ProjectDir: proj,
	}
}

func TestPaths(t *testing.T) {
	linux := fakeEnv("linux", "/src/app", map[string]string{"HOME": "/home/u"})
	linuxXDG := fakeEnv("linux", "/src/app", map[string]string{
		"HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg", "CLAUDE_CONFIG_DIR": "/cc",
		"CODEX_HOME": "/cx", "GEMINI_CLI_HOME": "/gh", "COPILOT_HOME": "/cp",
	})
	mac := fakeEnv("darwin", "/Users/u/app", map[string]string{"HOME": "/Users/u", "XDG_CONFIG_HOME": "/xdg"})
	macOldZed := fakeEnv("darwin", "/p", map[string]string{"HOME": "/Users/u"}, "/Users/u/Library/Application Support/Zed/settings.json")
	win := fakeEnv("windows", `C:\src\app`, map[string]string{
		"USERPROFILE": `C:\Users\u`, "APPDATA": `C:\Users\u\AppData\Roaming`, "LOCALAPPDATA": `C:\Users\u\AppData\Local`,
	})
	winMSIX := fakeEnv("windows", `C:\p`, map[string]string{
		"USERPROFILE": `C:\Users\u`, "APPDATA": `C:\Users\u\AppData\Roaming`, "LOCALAPPDATA": `D:\Local`,
	}, `D:\Local\Packages\Claude_pzs8sxrjxfjjc`)
	winNoVars := fakeEnv("windows", `C:\p`, map[string]string{"USERPROFILE": `C:\Users\u`})

	cases := []struct {
		env    Env
		client string
		scope  Scope
		want   string
	}{
		{linux, "claude-code", ScopeProject, "/src/app/.mcp.json"},
		{linux, "claude-code", ScopeUser, "/home/u/.claude.json"},
		{linuxXDG, "claude-code", ScopeLocal, "/cc/.claude.json"},
		{linux, "claude-desktop", ScopeUser, "/home/u/.config/Claude/claude_desktop_config.json"},
		{linuxXDG, "claude-desktop", ScopeUser, "/cfg/Claude/claude_desktop_config.json"},
		{mac, "claude-desktop", ScopeUser, "/Users/u/Library/Application Support/Claude/claude_desktop_config.json"},
		{win, "claude-desktop", ScopeUser, `C:\Users\u\AppData\Roaming\Claude\claude_desktop_config.json`},
		{winMSIX, "claude-desktop", ScopeUser, `D:\Local\Packages\Claude_pzs8sxrjxfjjc\LocalCache\Roaming\Claude\claude_desktop_config.json`},
		{winNoVars, "claude-desktop", ScopeUser, `C:\Users\u\AppData\Roaming\Claude\claude_desktop_config.json`},
		{win, "cursor", ScopeUser, `C:\Users\u\.cursor\mcp.json`},
		{win, "cursor", ScopeProject, `C:\src\app\.cursor\mcp.json`},
		{linux, "vscode", ScopeUser, "/home/u/.config/Code/User/mcp.json"},
		{linuxXDG, "vscode", ScopeUser, "/cfg/Code/User/mcp.json"},
		{mac, "vscode", ScopeUser, "/Users/u/Library/Application Support/Code/User/mcp.json"},
		{win, "vscode", ScopeUser, `C:\Users\u\AppData\Roaming\Code\User\mcp.json`},
		{linux, "vscode", ScopeProject, "/src/app/.vscode/mcp.json"},
		{mac, "cline", ScopeUser, "/Users/u/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
		{win, "roo", ScopeUser, `C:\Users\u\AppData\Roaming\Code\User\globalStorage\rooveterinaryinc.roo-cline\settings\mcp_settings.json`},
		{linux, "roo", ScopeProject, "/src/app/.roo/mcp.json"},
		{win, "windsurf", ScopeUser, `C:\Users\u\.codeium\windsurf\mcp_config.json`},
		{linux, "gemini", ScopeUser, "/home/u/.gemini/settings.json"},
		{linuxXDG, "gemini", ScopeUser, "/gh/.gemini/settings.json"},
		{win, "gemini", ScopeProject, `C:\src\app\.gemini\settings.json`},
		{linux, "codex", ScopeUser, "/home/u/.codex/config.toml"},
		{linuxXDG, "codex", ScopeUser, "/cx/config.toml"},
		{win, "codex", ScopeUser, `C:\Users\u\.codex\config.toml`},
		{linux, "codex", ScopeProject, "/src/app/.codex/config.toml"},
		{linux, "zed", ScopeUser, "/home/u/.config/zed/settings.json"},
		{linuxXDG, "zed", ScopeUser, "/cfg/zed/settings.json"},
		{mac, "zed", ScopeUser, "/Users/u/.config/zed/settings.json"},
		{macOldZed, "zed", ScopeUser, "/Users/u/Library/Application Support/Zed/settings.json"},
		{win, "zed", ScopeUser, `C:\Users\u\AppData\Roaming\Zed\settings.json`},
		{linux, "zed", ScopeProject, "/src/app/.zed/settings.json"},
		{linux, "opencode", ScopeProject, "/src/app/opencode.json"},
		{fakeEnv("linux", "/p", map[string]string{"HOME": "/h"}, "/p/opencode.jsonc"), "opencode", ScopeProject, "/p/opencode.jsonc"},
		{linuxXDG, "opencode", ScopeUser, "/cfg/opencode/opencode.json"},
		{win, "opencode", ScopeUser, `C:\Users\u\.config\opencode\opencode.json`},
		{linux, "kiro", ScopeUser, "/home/u/.kiro/settings/mcp.json"},
		{linux, "kiro", ScopeProject, "/src/app/.kiro/settings/mcp.json"},
		{linux, "copilot-cli", ScopeUser, "/home/u/.copilot/mcp-config.json"},
		{linuxXDG, "copilot-cli", ScopeUser, "/cp/mcp-config.json"},
		{win, "lmstudio", ScopeUser, `C:\Users\u\.lmstudio\mcp.json`},
		{linux, "amazonq", ScopeUser, "/home/u/.aws/amazonq/mcp.json"},
		{linux, "amazonq", ScopeProject, "/src/app/.amazonq/mcp.json"},
		{linux, "goose", ScopeUser, "/home/u/.config/goose/config.yaml"},
		{mac, "goose", ScopeUser, "/xdg/goose/config.yaml"},
		{win, "goose", ScopeUser, `C:\Users\u\AppData\Roaming\Block\goose\config\config.yaml`},
		{win, "continue", ScopeUser, `C:\Users\u\.continue\config.yaml`},
		{linux, "antigravity", ScopeUser, "/home/u/.gemini/antigravity-cli/mcp_config.json"},
		{win, "antigravity", ScopeUser, `C:\Users\u\.gemini\antigravity-cli\mcp_config.json`},
		{linux, "antigravity", ScopeProject, "/src/app/.agents/mcp_config.json"},
	}
	for _, c := range cases {
		cl, err := LookupAssistant(c.client)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := cl.Target(c.env, c.scope)
		if err != nil {
			t.Errorf("%s %s %s: %v", c.env.GOOS, c.client, c.scope, err)
			continue
		}
		if tg.File != c.want {
			t.Errorf("%s %s %s: got %s, want %s", c.env.GOOS, c.client, c.scope, tg.File, c.want)
		}
	}
}

func TestClaudeCodeLocalContainer(t *testing.T) {
	cl, _ := LookupAssistant("claude-code")
	tg, err := cl.Target(fakeEnv("linux", "/src/my.app", map[string]string{"HOME": "/h"}), ScopeLocal)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"projects", "/src/my.app", "mcpServers"}; !slices.Equal(tg.Container, want) {
		t.Errorf("container = %q, want %q", tg.Container, want)
	}
	// On Windows Claude Code writes the key with forward slashes.
	tg, err = cl.Target(fakeEnv("windows", `C:\src\my app`, map[string]string{"USERPROFILE": `C:\Users\u`}), ScopeLocal)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"projects", "C:/src/my app", "mcpServers"}; !slices.Equal(tg.Container, want) {
		t.Errorf("windows container = %q, want %q", tg.Container, want)
	}
	if tg.File != `C:\Users\u\.claude.json` {
		t.Errorf("windows file = %s", tg.File)
	}
}

func TestScopes(t *testing.T) {
	for _, c := range Assistants() {
		if len(c.Scopes()) == 0 {
			t.Errorf("%s has no scopes", c.Name)
		}
	}
	cl, _ := LookupAssistant("windsurf")
	if _, err := cl.Target(fakeEnv("linux", "/p", map[string]string{"HOME": "/h"}), ScopeProject); err == nil {
		t.Error("windsurf resolved a project scope it does not have")
	}
	if _, err := LookupAssistant("nosuch"); err == nil {
		t.Error("found a client that does not exist")
	}
	if _, err := cl.Target(fakeEnv("linux", "/p", map[string]string{}), ScopeUser); err == nil {
		t.Error("resolved a user path without $HOME")
	}
}

func TestStateDir(t *testing.T) {
	for _, c := range []struct {
		env  Env
		want string
	}{
		{fakeEnv("linux", "/p", map[string]string{"HOME": "/h"}), "/h/.local/state/mcpship"},
		{fakeEnv("linux", "/p", map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/s"}), "/s/mcpship"},
		{fakeEnv("freebsd", "/p", map[string]string{"HOME": "/h", "MCPSHIP_STATE_DIR": "/m"}), "/m"},
		{fakeEnv("darwin", "/p", map[string]string{"HOME": "/Users/u"}), "/Users/u/Library/Application Support/mcpship"},
		{fakeEnv("windows", `C:\p`, map[string]string{"USERPROFILE": `C:\Users\u`, "LOCALAPPDATA": `E:\L`}), `E:\L\mcpship`},
	} {
		got, err := c.env.StateDir()
		if err != nil || got != c.want {
			t.Errorf("%s: StateDir() = %q, %v; want %q", c.env.GOOS, got, err, c.want)
		}
	}
}

func TestPresent(t *testing.T) {
	env := fakeEnv("linux", "/p", map[string]string{"HOME": "/h"}, "/h/.cursor", "/p/.mcp.json")
	for _, c := range []struct {
		client string
		scope  Scope
		want   bool
	}{
		{"cursor", ScopeUser, true},         // its directory exists
		{"claude-code", ScopeProject, true}, // the file exists
		{"claude-code", ScopeUser, false},   // ~/.claude.json does not; $HOME does not count
		{"windsurf", ScopeUser, false},      // nothing
		{"cursor", ScopeProject, false},     // no .cursor in the project
	} {
		cl, _ := LookupAssistant(c.client)
		tg, _ := cl.Target(env, c.scope)
		if got := tg.Present(env); got != c.want {
			t.Errorf("%s %s: Present = %v, want %v", c.client, c.scope, got, c.want)
		}
	}
}
