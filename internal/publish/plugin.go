package publish

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Root stands for the plugin's own directory in a [Plugin]'s Command,
// Args and Env: each format writes it as the variable its assistant
// replaces with the directory it installed the plugin in.
const Root = "${PLUGIN_ROOT}"

// A Plugin is a server packaged for an assistant's plugin system, with
// the files it needs, such as its tool manifest.
type Plugin struct {
	Entry
	Version    string
	Author     string
	License    string // an SPDX identifier, such as "MIT"
	Homepage   string
	Repository string
	// Icon is a square PNG, 512 to 2048 pixels a side, for the Claude
	// Code plugin (.claude-plugin/icon.png).
	Icon []byte
	// Files are copied into the plugin, by slash-separated relative path.
	Files map[string][]byte
}

// pluginName is what both assistants accept as a plugin's name.
var pluginName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })

func (p Plugin) check() error {
	if !pluginName().MatchString(p.Name) {
		return fmt.Errorf("the plugin name %q must be lower-case letters and digits, words joined by '-', such as %q", p.Name, "my-tool")
	}
	if p.Command == "" {
		return fmt.Errorf("the server's command is empty")
	}
	for name := range p.Files {
		if !filepath.IsLocal(filepath.FromSlash(name)) || strings.Contains(name, `\`) {
			return fmt.Errorf("the file name %q must be a relative path inside the plugin", name)
		}
	}
	return nil
}

// withRoot replaces Root in e's command, arguments and values by root;
// a root that ends in "${/}" replaces Root followed by "/".
func withRoot(e Entry, root string) Entry {
	from := Root
	if strings.HasSuffix(root, "${/}") {
		from += "/"
	}
	r := func(s string) string { return strings.ReplaceAll(s, from, root) }
	out := e
	out.Command = r(e.Command)
	out.Args = make([]string, len(e.Args))
	for i, a := range e.Args {
		out.Args[i] = r(a)
	}
	if e.Env != nil {
		out.Env = make(map[string]string, len(e.Env))
		for k, v := range e.Env {
			out.Env[k] = r(v)
		}
	}
	return out
}

// claudePluginJSON is .claude-plugin/plugin.json, in the order written.
type claudePluginJSON struct {
	Name        string  `json:"name"`
	Version     string  `json:"version,omitempty"`
	Description string  `json:"description,omitempty"`
	Author      *author `json:"author,omitempty"`
	Homepage    string  `json:"homepage,omitempty"`
	Repository  string  `json:"repository,omitempty"`
	License     string  `json:"license,omitempty"`
}

type author struct {
	Name string `json:"name"`
}

// WriteClaudePlugin writes p into dir as a Claude Code plugin:
// .claude-plugin/plugin.json, the server in .mcp.json with Root written
// as ${CLAUDE_PLUGIN_ROOT}, a README.md unless p.Files has one, the icon
// as .claude-plugin/icon.png, and p.Files. A marketplace, or "claude --plugin-dir DIR", installs it.
func WriteClaudePlugin(dir string, p Plugin) error {
	if err := p.check(); err != nil {
		return err
	}
	meta := claudePluginJSON{Name: p.Name, Version: p.Version, Description: p.Description,
		Homepage: p.Homepage, Repository: p.Repository, License: p.License}
	if p.Author != "" {
		meta.Author = &author{p.Author}
	}
	e := withRoot(p.Entry, "${CLAUDE_PLUGIN_ROOT}")
	servers := map[string]map[string]plain{"mcpServers": {e.Name: plainEntry(e)}}
	files := map[string]any{".claude-plugin/plugin.json": meta, ".mcp.json": servers}
	if p.Icon != nil {
		files[".claude-plugin/icon.png"] = p.Icon
	}
	if _, ok := p.Files["README.md"]; !ok {
		files["README.md"] = []byte(readme(p, e, "Claude Code plugin"))
	}
	return writeAll(dir, files, p.Files)
}

// geminiExtensionJSON is gemini-extension.json, in the order written.
type geminiExtensionJSON struct {
	Name        string           `json:"name"`
	Version     string           `json:"version"`
	Description string           `json:"description,omitempty"`
	MCPServers  map[string]plain `json:"mcpServers"`
}

// WriteGeminiExtension writes p into dir as a Gemini CLI extension:
// gemini-extension.json with the server, Root written as
// ${extensionPath}, and p.Files. "gemini extensions install" (from a git
// repository or a directory) or "gemini extensions link DIR" installs it.
func WriteGeminiExtension(dir string, p Plugin) error {
	if err := p.check(); err != nil {
		return err
	}
	if p.Version == "" {
		return fmt.Errorf("a Gemini CLI extension needs a version")
	}
	// ${/} is Gemini CLI's path separator, so that paths are right on
	// Windows too.
	e := withRoot(withRoot(p.Entry, Root+"${/}"), "${extensionPath}")
	ext := geminiExtensionJSON{Name: p.Name, Version: p.Version, Description: p.Description,
		MCPServers: map[string]plain{e.Name: plainEntry(e)}}
	return writeAll(dir, map[string]any{"gemini-extension.json": ext}, p.Files)
}

// readme is a plugin's README: what it is, and what it needs; e is the
// server as the plugin starts it.
func readme(p Plugin, e Entry, kind string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.Name)
	if p.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", p.Description)
	}
	fmt.Fprintf(&b, "This %s adds the %s MCP server (Model Context Protocol), so that the assistant can call its tools while you work, ", kind, p.Name)
	b.WriteString("with your approval as the assistant asks for it. Once installed, the tools are listed with the assistant's other tools. ")
	fmt.Fprintf(&b, "The assistant starts it as `%s`", strings.Join(append([]string{e.Command}, e.Args...), " "))
	if !strings.ContainsAny(p.Command, `/\`) {
		fmt.Fprintf(&b, ", so `%s` must be installed and on your PATH", p.Command)
	}
	b.WriteString(".")
	if p.Command == "mcpship" {
		b.WriteString(" Install mcpship from https://github.com/mcpship/mcpship#install.")
	}
	b.WriteString("\n")
	if p.Repository != "" {
		fmt.Fprintf(&b, "\nSource: %s\n", p.Repository)
	}
	return b.String()
}

// writeAll checks every file, then writes them under dir: values are
// encoded as JSON unless they are []byte, and files are copied as they
// are. Nothing is written when a name is unsafe.
func writeAll(dir string, gen map[string]any, files map[string][]byte) error {
	out := map[string][]byte{}
	for name, v := range gen {
		if b, ok := v.([]byte); ok {
			out[name] = b
			continue
		}
		b, err := marshal(v, "", "  ")
		if err != nil {
			return err
		}
		out[name] = b
	}
	for name, b := range files {
		if _, ok := out[name]; ok {
			return fmt.Errorf("the file %s is written by the plugin itself; name yours otherwise", name)
		}
		out[name] = b
	}
	for _, name := range slices.Sorted(maps.Keys(out)) {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(name)), out[name]); err != nil {
			return err
		}
	}
	return nil
}
