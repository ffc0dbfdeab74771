package installer

import (
	"fmt"
	"slices"
	"strings"
)

// A Scope says whose config a server is registered in.
type Scope string

// The scopes. Not every client has every scope.
const (
	ScopeProject Scope = "project" // a file in the project, usually shared through version control
	ScopeUser    Scope = "user"    // the user's own config, for every project
	ScopeLocal   Scope = "local"   // the user's config, for this project only (Claude Code)
)

// An Assistant is an AI assistant that can start MCP servers: one whose
// config files mcpship edits.
type Assistant struct {
	Name  string // name on the command line, such as "claude-code"
	Title string // product name, such as "Claude Code"

	format format
	key    string // key of the servers object (or list) in the file
	shape  func(Entry) []field
	remote remoteShape
	files  map[Scope]func(Env) (string, error)
}

// Scopes returns the scopes c supports, project first.
func (c *Assistant) Scopes() []Scope {
	var out []Scope
	for _, s := range []Scope{ScopeProject, ScopeUser, ScopeLocal} {
		if c.files[s] != nil {
			out = append(out, s)
		}
	}
	return out
}

// Format names the syntax of c's config files: "JSON", "JSONC", "TOML" or "YAML".
func (c *Assistant) Format() string { return c.format.name() }

// EnvRef returns how c's config refers to the variable name of the
// environment c starts with, such as "${API_KEY}" for Claude Code, so
// that a secret need not be written in the file; "" when c documents no
// such syntax. Sources: each client's documentation (docs/register.md).
func (c *Assistant) EnvRef(name string) string {
	switch c.Name {
	case "claude-code", "gemini", "kiro":
		return "${" + name + "}"
	case "cursor", "roo", "vscode", "windsurf":
		return "${env:" + name + "}"
	case "opencode":
		return "{env:" + name + "}"
	}
	return ""
}

// Assistants returns every known client, in the order of their names.
func Assistants() []*Assistant { return slices.Clone(clients) }

// LookupAssistant returns the client called name.
func LookupAssistant(name string) (*Assistant, error) {
	for _, c := range clients {
		if c.Name == name {
			return c, nil
		}
	}
	names := make([]string, len(clients))
	for i, c := range clients {
		names[i] = c.Name
	}
	return nil, fmt.Errorf("unknown client %q; known clients: %s", name, strings.Join(names, ", "))
}

// A Target is one client's config file for one scope, resolved to a path.
type Target struct {
	Assistant *Assistant
	Scope     Scope
	File      string   // path of the config file
	Container []string // keys leading to the servers, such as ["mcpServers"]
}

// Target resolves the config file of c for scope s in env.
func (c *Assistant) Target(env Env, s Scope) (*Target, error) {
	f := c.files[s]
	if f == nil {
		names := make([]string, 0, 3)
		for _, s := range c.Scopes() {
			names = append(names, string(s))
		}
		return nil, fmt.Errorf("%s has no %s scope; use --scope %s", c.Name, s, strings.Join(names, " or --scope "))
	}
	file, err := f(env)
	if err != nil {
		return nil, fmt.Errorf("%s %s config: %w", c.Name, s, err)
	}
	t := &Target{Assistant: c, Scope: s, File: file, Container: []string{c.key}}
	if c.Name == "claude-code" && s == ScopeLocal {
		// Claude Code keys projects by path with forward slashes, on
		// Windows too (C:/Users/u/app).
		t.Container = []string{"projects", strings.ReplaceAll(env.ProjectDir, `\`, "/"), c.key}
		if env.GOOS != "windows" {
			t.Container[1] = env.ProjectDir
		}
	}
	return t, nil
}

// Present reports whether the client seems installed for this target: its
// config file exists, or the client's own directory that holds it does.
func (t *Target) Present(env Env) bool {
	if env.Exists(t.File) {
		return true
	}
	dir := t.File[:max(strings.LastIndexAny(t.File, `/\`), 0)]
	h, _ := env.home()
	x, _ := env.xdgConfig()
	switch dir {
	case env.ProjectDir, h, x, "":
		return false
	}
	return env.Exists(dir)
}

// Helpers for the path table.

func inProject(elem ...string) func(Env) (string, error) {
	return func(e Env) (string, error) {
		return e.join(append([]string{e.ProjectDir}, elem...)...), nil
	}
}

func inHome(elem ...string) func(Env) (string, error) {
	return func(e Env) (string, error) { return e.underHome(elem...) }
}

func inVSCode(elem ...string) func(Env) (string, error) {
	return func(e Env) (string, error) {
		d, err := e.vscodeUser()
		if err != nil {
			return "", err
		}
		return e.join(append([]string{d}, elem...)...), nil
	}
}

// inVar returns $name/elem..., or ~/def/elem... when $name is unset.
func inVar(name, def string, elem ...string) func(Env) (string, error) {
	return func(e Env) (string, error) {
		d, err := e.envOr(name, def)
		if err != nil {
			return "", err
		}
		return e.join(append([]string{d}, elem...)...), nil
	}
}

func claudeJSON(e Env) (string, error) {
	if d := e.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return e.join(d, ".claude.json"), nil
	}
	return e.underHome(".claude.json")
}

func claudeDesktop(e Env) (string, error) {
	switch e.GOOS {
	case "darwin":
		return e.underHome("Library", "Application Support", "Claude", "claude_desktop_config.json")
	case "windows":
		// The MSIX build (the default since 2026) virtualizes %APPDATA%
		// and reads its own copy; use it when that build is installed.
		local, err := e.localAppData()
		if err != nil {
			return "", err
		}
		pkg := e.join(local, "Packages", "Claude_pzs8sxrjxfjjc")
		if e.Exists(pkg) {
			return e.join(pkg, "LocalCache", "Roaming", "Claude", "claude_desktop_config.json"), nil
		}
		app, err := e.appData()
		if err != nil {
			return "", err
		}
		return e.join(app, "Claude", "claude_desktop_config.json"), nil
	default:
		x, err := e.xdgConfig()
		if err != nil {
			return "", err
		}
		return e.join(x, "Claude", "claude_desktop_config.json"), nil
	}
}

func zedUser(e Env) (string, error) {
	switch e.GOOS {
	case "windows":
		app, err := e.appData()
		if err != nil {
			return "", err
		}
		return e.join(app, "Zed", "settings.json"), nil
	case "darwin":
		// Sources disagree; Zed reads ~/.config/zed, older builds the
		// Application Support folder. Prefer the one that exists.
		p, err := e.underHome(".config", "zed", "settings.json")
		if err != nil {
			return "", err
		}
		old, _ := e.underHome("Library", "Application Support", "Zed", "settings.json")
		if !e.Exists(p) && e.Exists(old) {
			return old, nil
		}
		return p, nil
	default:
		x, err := e.xdgConfig()
		if err != nil {
			return "", err
		}
		return e.join(x, "zed", "settings.json"), nil
	}
}

// jsoncFile prefers name.jsonc over name.json when only it exists.
func jsoncFile(dir func(Env) (string, error), name string) func(Env) (string, error) {
	return func(e Env) (string, error) {
		d, err := dir(e)
		if err != nil {
			return "", err
		}
		p := e.join(d, name+".json")
		if c := e.join(d, name+".jsonc"); !e.Exists(p) && e.Exists(c) {
			return c, nil
		}
		return p, nil
	}
}

func goose(e Env) (string, error) {
	if e.GOOS == "windows" {
		app, err := e.appData()
		if err != nil {
			return "", err
		}
		return e.join(app, "Block", "goose", "config", "config.yaml"), nil
	}
	x, err := e.xdgConfig()
	if err != nil {
		return "", err
	}
	return e.join(x, "goose", "config.yaml"), nil
}

var (
	strict = jsonFormat{}
	jsonc  = jsonFormat{jsonc: true}
)

// clients is the registry, sorted by name. The paths and entry shapes
// come from each client's documentation; see docs/register.md.
var clients = []*Assistant{
	{Name: "amazonq", Title: "Amazon Q Developer", format: strict, key: "mcpServers", shape: plainShape, remote: amazonqRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: inProject(".amazonq", "mcp.json"),
			ScopeUser:    inHome(".aws", "amazonq", "mcp.json"),
		}},
	{Name: "antigravity", Title: "Antigravity CLI", format: strict, key: "mcpServers", shape: plainShape, remote: antigravityRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: inProject(".agents", "mcp_config.json"),
			ScopeUser:    inHome(".gemini", "antigravity-cli", "mcp_config.json"),
		}},
	{Name: "claude-code", Title: "Claude Code", format: strict, key: "mcpServers", shape: stdioShape, remote: claudeRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: inProject(".mcp.json"),
			ScopeUser:    claudeJSON,
			ScopeLocal:   claudeJSON,
		}},
	{Name: "claude-desktop", Title: "Claude Desktop", format: strict, key: "mcpServers", shape: plainShape, remote: claudeDesktopRemote,
		files: map[Scope]func(Env) (string, error){ScopeUser: claudeDesktop}},
	{Name: "cline", Title: "Cline", format: strict, key: "mcpServers", shape: plainShape, remote: clineRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeUser: inVSCode("globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"),
		}},
	{Name: "codex", Title: "OpenAI Codex CLI", format: tomlFormat{}, key: "mcp_servers", shape: plainShape, remote: codexRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: inProject(".codex", "config.toml"),
			ScopeUser:    inVar("CODEX_HOME", ".codex", "config.toml"),
		}},
	{Name: "continue", Title: "Continue", format: yamlFormat{seq: true}, key: "mcpServers", shape: continueShape, remote: continueRemote,
		files: map[Scope]func(Env) (string, error){ScopeUser: inHome(".continue", "config.yaml")}},
	{Name: "copilot-cli", Title: "GitHub Copilot CLI", format: strict, key: "mcpServers", shape: copilotShape, remote: copilotRemote,
		files: map[Scope]func(Env) (string, error){ScopeUser: inVar("COPILOT_HOME", ".copilot", "mcp-config.json")}},
	{Name: "cursor", Title: "Cursor", format: strict, key: "mcpServers", shape: plainShape, remote: cursorRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: inProject(".cursor", "mcp.json"),
			ScopeUser:    inHome(".cursor", "mcp.json"),
		}},
	{Name: "gemini", Title: "Gemini CLI", format: jsonc, key: "mcpServers", shape: plainShape, remote: geminiRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: inProject(".gemini", "settings.json"),
			ScopeUser: func(e Env) (string, error) {
				h, err := e.home()
				if v := e.Getenv("GEMINI_CLI_HOME"); v != "" {
					h, err = v, nil
				}
				return e.join(h, ".gemini", "settings.json"), err
			},
		}},
	{Name: "goose", Title: "Goose", format: yamlFormat{}, key: "extensions", shape: gooseShape, remote: gooseRemote,
		files: map[Scope]func(Env) (string, error){ScopeUser: goose}},
	{Name: "kiro", Title: "Kiro", format: strict, key: "mcpServers", shape: plainShape, remote: kiroRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: inProject(".kiro", "settings", "mcp.json"),
			ScopeUser:    inHome(".kiro", "settings", "mcp.json"),
		}},
	{Name: "lmstudio", Title: "LM Studio", format: strict, key: "mcpServers", shape: plainShape, remote: lmstudioRemote,
		files: map[Scope]func(Env) (string, error){ScopeUser: inHome(".lmstudio", "mcp.json")}},
	{Name: "opencode", Title: "opencode", format: jsonc, key: "mcp", shape: opencodeShape, remote: opencodeRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: jsoncFile(func(e Env) (string, error) { return e.ProjectDir, nil }, "opencode"),
			ScopeUser: jsoncFile(func(e Env) (string, error) {
				x, err := e.xdgConfig()
				return e.join(x, "opencode"), err
			}, "opencode"),
		}},
	{Name: "roo", Title: "Roo Code", format: strict, key: "mcpServers", shape: plainShape, remote: rooRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: inProject(".roo", "mcp.json"),
			ScopeUser:    inVSCode("globalStorage", "rooveterinaryinc.roo-cline", "settings", "mcp_settings.json"),
		}},
	{Name: "vscode", Title: "Visual Studio Code", format: jsonc, key: "servers", shape: stdioShape, remote: vscodeRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: inProject(".vscode", "mcp.json"),
			ScopeUser:    inVSCode("mcp.json"),
		}},
	{Name: "windsurf", Title: "Windsurf", format: strict, key: "mcpServers", shape: plainShape, remote: windsurfRemote,
		files: map[Scope]func(Env) (string, error){ScopeUser: inHome(".codeium", "windsurf", "mcp_config.json")}},
	{Name: "zed", Title: "Zed", format: jsonc, key: "context_servers", shape: plainShape, remote: zedRemote,
		files: map[Scope]func(Env) (string, error){
			ScopeProject: inProject(".zed", "settings.json"),
			ScopeUser:    zedUser,
		}},
}
