// Package mcpb writes and reads MCP Bundles: the .mcpb zip files that
// Claude Desktop and other hosts install in one step. A bundle holds a
// manifest.json that says how to start the server, and the files it needs.
//
// [Manifest] is manifest.json in the MCPB specification
// (https://github.com/modelcontextprotocol/mcpb, MANIFEST.md), version
// [ManifestVersion]; [Manifest.Check] applies the rules the specification
// states and [ParseManifest] decodes and checks one. [Write] writes a
// bundle that is the same, byte for byte, for the same inputs. On the
// host's side, [Open] checks a bundle, [Bundle.Unpack] installs it and
// [Manifest.Launch] gives the command that starts its server.
//
// Decoding keeps the fields this package models and ignores the others
// (prompts, icons, _meta, ...), so bundles made by other tools can be read
// too.
package mcpb

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// ManifestVersion is the manifest_version this package writes: the current
// version of the specification.
const ManifestVersion = "0.3"

// Platforms are the operating systems a bundle can name, in the spelling of
// Node's process.platform, which the specification uses.
var Platforms = []string{"darwin", "linux", "win32"}

// Manifest is a bundle's manifest.json.
type Manifest struct {
	ManifestVersion string      `json:"manifest_version"`
	Name            string      `json:"name"`                   // machine-readable name
	DisplayName     string      `json:"display_name,omitempty"` // shown to people
	Version         string      `json:"version"`                // semantic version
	Description     string      `json:"description"`            // one line
	LongDescription string      `json:"long_description,omitempty"`
	Author          Author      `json:"author"`
	Repository      *Repository `json:"repository,omitempty"`
	Homepage        string      `json:"homepage,omitempty"`
	Documentation   string      `json:"documentation,omitempty"`
	Support         string      `json:"support,omitempty"`
	Icon            string      `json:"icon,omitempty"` // a PNG in the bundle, or an https URL
	Server          Server      `json:"server"`
	Tools           []Tool      `json:"tools,omitempty"`
	ToolsGenerated  bool        `json:"tools_generated,omitempty"` // the server may list more tools
	Keywords        []string    `json:"keywords,omitempty"`
	License         string      `json:"license,omitempty"`
	// Compatibility limits where the bundle runs; nil means anywhere.
	Compatibility *Compatibility `json:"compatibility,omitempty"`
	// UserConfig are the settings the host asks the user for, by key;
	// mcp_config refers to them as ${user_config.KEY}.
	UserConfig map[string]UserConfig `json:"user_config,omitempty"`
}

// Author says who made the bundle.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Repository is where the source lives.
type Repository struct {
	Type string `json:"type"` // "git"
	URL  string `json:"url"`
}

// Server says how a host runs the bundle's MCP server.
type Server struct {
	// Type is "binary" for a compiled executable; also "node", "python"
	// or "uv".
	Type string `json:"type"`
	// EntryPoint is the server's main file, a slash-separated path inside
	// the bundle.
	EntryPoint string `json:"entry_point"`
	// MCPConfig is the command the host runs. Its strings may use the
	// variables that [Manifest.Launch] substitutes.
	MCPConfig *MCPConfig `json:"mcp_config,omitempty"`
}

// MCPConfig is the command that starts the server over stdio.
type MCPConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// PlatformOverrides replace Command, Args or Env (those set) on one
	// platform, keyed by an entry of [Platforms]: by operating system
	// only, never by CPU.
	PlatformOverrides map[string]Override `json:"platform_overrides,omitempty"`
}

// Override is the part of an [MCPConfig] that differs on one platform.
type Override struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// Tool names one tool the server provides, for the host to show before
// it starts the server.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Compatibility limits where the bundle runs.
type Compatibility struct {
	ClaudeDesktop string   `json:"claude_desktop,omitempty"` // a semver range
	Platforms     []string `json:"platforms,omitempty"`      // entries of [Platforms]
}

// UserConfig is one setting the host asks the user for.
type UserConfig struct {
	// Type is "string", "number", "boolean", "directory" or "file".
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required,omitempty"`
	// Default is a string, number, boolean, or (with Multiple) a list of
	// strings.
	Default any `json:"default,omitempty"`
	// Multiple lets a directory or file setting hold several paths.
	Multiple bool `json:"multiple,omitempty"`
	// Sensitive masks a string setting and has the host store it securely.
	Sensitive bool     `json:"sensitive,omitempty"`
	Min       *float64 `json:"min,omitempty"` // for numbers
	Max       *float64 `json:"max,omitempty"` // for numbers
}

var (
	manifestVersions = []string{"0.2", "0.3", "0.4"}
	serverTypes      = []string{"binary", "node", "python", "uv"}
	configTypes      = []string{"string", "number", "boolean", "directory", "file"}
	// semverRE is the regular expression of semver.org.
	semverRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
	})
	// varRE matches a ${...} variable in mcp_config.
	varRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]*)\}`) })
)

// Check reports what makes m an invalid manifest: a missing required field,
// a value outside the ones the specification lists, a version that is not
// semantic, a URL that is not absolute, a path that leaves the bundle, or a
// ${user_config.KEY} in mcp_config with no such key. The error lists every
// problem, one per line, each with its JSON path.
func (m *Manifest) Check() error {
	var c checker
	if !slices.Contains(manifestVersions, m.ManifestVersion) {
		c.addf("manifest_version", "is %q; use %q", m.ManifestVersion, ManifestVersion)
	}
	c.required("name", m.Name)
	c.required("version", m.Version)
	if m.Version != "" && !semverRE().MatchString(m.Version) {
		c.addf("version", "%q is not a semantic version such as 1.2.3", m.Version)
	}
	c.required("description", m.Description)
	c.required("author.name", m.Author.Name)
	if m.Author.Email != "" {
		if _, err := mail.ParseAddress(m.Author.Email); err != nil {
			c.addf("author.email", "%q is not an email address", m.Author.Email)
		}
	}
	c.url("author.url", m.Author.URL)
	if r := m.Repository; r != nil {
		c.required("repository.type", r.Type)
		c.required("repository.url", r.URL)
		c.url("repository.url", r.URL)
	}
	c.url("homepage", m.Homepage)
	c.url("documentation", m.Documentation)
	c.url("support", m.Support)
	if m.Icon != "" && !strings.HasPrefix(m.Icon, "https://") {
		c.path("icon", m.Icon)
		if !strings.HasSuffix(strings.ToLower(m.Icon), ".png") {
			c.addf("icon", "%q is not a .png file", m.Icon)
		}
	}
	c.server(&m.Server, m.UserConfig)
	for i, t := range m.Tools {
		c.required(fmt.Sprintf("tools[%d].name", i), t.Name)
	}
	if cp := m.Compatibility; cp != nil {
		for i, p := range cp.Platforms {
			c.platform(fmt.Sprintf("compatibility.platforms[%d]", i), p)
		}
	}
	for _, key := range sortedKeys(m.UserConfig) {
		c.userConfig("user_config."+key, m.UserConfig[key])
	}
	if len(c.problems) == 0 {
		return nil
	}
	return fmt.Errorf("invalid bundle manifest:\n\t%s", strings.Join(c.problems, "\n\t"))
}

type checker struct{ problems []string }

func (c *checker) addf(at, format string, args ...any) {
	c.problems = append(c.problems, at+": "+fmt.Sprintf(format, args...))
}

func (c *checker) required(at, v string) {
	if v == "" {
		c.addf(at, "required")
	}
}

func (c *checker) url(at, v string) {
	if v == "" {
		return
	}
	if u, err := url.Parse(v); err != nil || !u.IsAbs() || u.Host == "" {
		c.addf(at, "%q is not an absolute URL", v)
	}
}

// path checks a path inside the bundle.
func (c *checker) path(at, p string) {
	if err := checkName(p); err != nil {
		c.addf(at, "%v", err)
	}
}

func (c *checker) platform(at, p string) {
	if !slices.Contains(Platforms, p) {
		c.addf(at, "%q is not a platform; use one of %s", p, strings.Join(Platforms, ", "))
	}
}

func (c *checker) server(s *Server, uc map[string]UserConfig) {
	if !slices.Contains(serverTypes, s.Type) {
		c.addf("server.type", "%q is not a server type; use one of %s", s.Type, strings.Join(serverTypes, ", "))
	}
	c.required("server.entry_point", s.EntryPoint)
	if s.EntryPoint != "" {
		c.path("server.entry_point", s.EntryPoint)
	}
	mc := s.MCPConfig
	if mc == nil {
		if s.Type != "uv" {
			c.addf("server.mcp_config", "required")
		}
		return
	}
	c.required("server.mcp_config.command", mc.Command)
	refs := func(at string, strs ...string) {
		for _, s := range strs {
			for _, v := range varRE().FindAllStringSubmatch(s, -1) {
				key, ok := strings.CutPrefix(v[1], "user_config.")
				if _, found := uc[key]; ok && !found {
					c.addf(at, "%s names no user_config key", v[0])
				}
			}
		}
	}
	refsOf := func(at, command string, args []string, env map[string]string) {
		refs(at+".command", command)
		refs(at+".args", args...)
		for _, k := range sortedKeys(env) {
			refs(at+".env."+k, env[k])
		}
	}
	refsOf("server.mcp_config", mc.Command, mc.Args, mc.Env)
	for _, p := range sortedKeys(mc.PlatformOverrides) {
		at := "server.mcp_config.platform_overrides." + p
		c.platform(at, p)
		o := mc.PlatformOverrides[p]
		refsOf(at, o.Command, o.Args, o.Env)
	}
}

func (c *checker) userConfig(at string, u UserConfig) {
	if !slices.Contains(configTypes, u.Type) {
		c.addf(at+".type", "%q is not a setting type; use one of %s", u.Type, strings.Join(configTypes, ", "))
	}
	c.required(at+".title", u.Title)
	c.required(at+".description", u.Description)
	if u.Default != nil && !defaultFits(u) {
		c.addf(at+".default", "%v does not fit a %s setting (multiple: %t)", u.Default, u.Type, u.Multiple)
	}
	if u.Multiple && u.Type != "directory" && u.Type != "file" {
		c.addf(at+".multiple", "only directory and file settings take several values")
	}
	if u.Sensitive && u.Type != "string" {
		c.addf(at+".sensitive", "only string settings are sensitive")
	}
	if (u.Min != nil || u.Max != nil) && u.Type != "number" {
		c.addf(at, "min and max are for number settings")
	}
	if u.Min != nil && u.Max != nil && *u.Min > *u.Max {
		c.addf(at, "min %v is above max %v", *u.Min, *u.Max)
	}
}

// defaultFits reports whether u's default has the JSON type u.Type calls for.
func defaultFits(u UserConfig) bool {
	switch d := u.Default.(type) {
	case string:
		return u.Type != "number" && u.Type != "boolean"
	case float64, int, int64:
		return u.Type == "number"
	case bool:
		return u.Type == "boolean"
	case []string:
		return u.Multiple
	case []any:
		for _, e := range d {
			if _, ok := e.(string); !ok {
				return false
			}
		}
		return u.Multiple
	}
	return false
}

// checkName refuses a bundle path that is empty, absolute, not clean, or
// leaves the bundle.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty path")
	case strings.Contains(name, `\`):
		return fmt.Errorf("path %q has a backslash; use /", name)
	case path.IsAbs(name) || (len(name) > 1 && name[1] == ':'):
		return fmt.Errorf("path %q is absolute; give it relative to the bundle's root", name)
	case path.Clean(name) != name || name == "." || name == ".." || strings.HasPrefix(name, "../"):
		return fmt.Errorf("path %q is not a clean path inside the bundle", name)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ParseManifest decodes a manifest.json and checks it with
// [Manifest.Check]. Fields this package does not model are ignored.
func ParseManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest.json is not a bundle manifest: %w", err)
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return &m, nil
}
