package installer

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpship/mcpship/internal/loopback"
)

// An Entry is one server entry of an assistant's config: a stdio MCP
// server as the assistant starts it (or, read back, a remote or disabled one).
type Entry struct {
	Name    string            `json:"name"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`

	// URL is a remote server's endpoint. An entry with a URL and no
	// Command is written as a remote server, with its Headers, in the
	// clients whose files can hold one; Type "sse" says it speaks the
	// older SSE transport rather than streamable HTTP. The URL must be
	// https, or http to a loopback address (127.0.0.0/8, ::1 or
	// localhost).
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// TokenEnv names the environment variable that holds a bearer token
	// for the remote server. The entry sends "Authorization: Bearer" and
	// the variable's value, written as the client's own reference to the
	// variable (such as ${TOKEN}, or Codex's bearer_token_env_var), never
	// as the token itself; read back, it is such a header, or Codex's key.
	TokenEnv string `json:"tokenEnv,omitempty"`

	// Read from files; never written.
	Cwd      string `json:"cwd,omitempty"`
	Disabled bool   `json:"disabled,omitempty"` // "disabled": true or "enabled": false
	// Type is the entry's "type" as written ("stdio", "http", Goose's
	// "builtin", ...), or Zed's "source" ("extension", "custom").
	Type string `json:"type,omitempty"`
}

// Check reports what makes s impossible to write to any config file: no
// name, no command or URL, a URL that is not http or https, a header that
// HTTP does not allow, text that is not UTF-8.
func (s Entry) Check() error { return s.check() }

func (s Entry) check() error {
	if s.Name == "" {
		return errors.New("the server name is empty")
	}
	if s.Command == "" && s.URL == "" {
		return errors.New("the server command is empty")
	}
	if s.Command == "" {
		u, err := url.Parse(s.URL)
		switch {
		case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
			return fmt.Errorf("the server address %q is not an http or https URL", s.URL)
		case u.Scheme == "http" && !loopback.Host(u.Hostname()):
			return fmt.Errorf("the server address %q is plain http to %s, which is not this machine's loopback address; use https://", s.URL, u.Hostname())
		}
	}
	for k := range s.Env {
		if err := checkEnvName(k); err != nil {
			return err
		}
	}
	for k, v := range s.Headers {
		if err := checkHeader(k, v); err != nil {
			return err
		}
		if s.TokenEnv != "" && strings.EqualFold(k, "Authorization") {
			return fmt.Errorf("an Authorization header and a bearer token from $%s are both given; give one of them", s.TokenEnv)
		}
	}
	if s.TokenEnv != "" && !isEnvName(s.TokenEnv) {
		return fmt.Errorf("%q is not an environment variable name (letters, digits and _, not starting with a digit)", s.TokenEnv)
	}
	strs := append([]string{s.Name, s.Command, s.URL}, s.Args...)
	for k, v := range s.Env {
		strs = append(strs, k, v)
	}
	for k, v := range s.Headers {
		strs = append(strs, k, v)
	}
	for _, x := range strs {
		if !utf8.ValidString(x) {
			return fmt.Errorf("%q is not valid UTF-8, which config files cannot hold", x)
		}
	}
	return nil
}

// checkEnvName refuses the name of an environment variable that no
// process environment can hold as one variable: empty, with "=" (which
// would end the name there), or with a control character or a space.
func checkEnvName(k string) error {
	if k == "" || strings.ContainsFunc(k, func(r rune) bool { return r == '=' || r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("%q cannot name an environment variable: a name is not empty and has no '=', space or control character", k)
	}
	return nil
}

// checkHeader refuses an HTTP header whose name is not a token or whose
// value has a control character other than a tab (CR LF would start
// another header).
func checkHeader(k, v string) error {
	if k == "" || strings.ContainsFunc(k, func(r rune) bool { return r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) }) {
		return fmt.Errorf("%q cannot name an HTTP header: a name is a token of letters, digits and !#$%%&'*+-.^_`|~", k)
	}
	if strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
		return fmt.Errorf("the value of the header %s has a control character (such as a line break), which HTTP does not allow", k)
	}
	return nil
}

func isEnvName(s string) bool {
	for i, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// same reports whether a and b start the same process, or reach the
// same remote server.
func (a Entry) same(b Entry) bool {
	return a.Command == b.Command && slices.Equal(a.Args, b.Args) &&
		maps.Equal(a.Env, b.Env) && a.Cwd == b.Cwd &&
		a.URL == b.URL && maps.Equal(a.Headers, b.Headers) && a.TokenEnv == b.TokenEnv
}

// IsMcpship reports whether the server's command is an mcpship binary.
func (s Entry) IsMcpship() bool {
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(s.Command, `\`, "/")))
	return base == "mcpship" || base == "mcpship.exe"
}

func envFields(env map[string]string) []field {
	fs := make([]field, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		fs = append(fs, field{k, env[k]})
	}
	return fs
}

func args(s Entry) []string {
	if s.Args == nil {
		return []string{}
	}
	return s.Args
}

// plainShape is {"command", "args", "env"}, the Claude Desktop shape most
// clients copied.
func plainShape(s Entry) []field {
	e := []field{{"command", s.Command}, {"args", args(s)}}
	if len(s.Env) > 0 {
		e = append(e, field{"env", envFields(s.Env)})
	}
	return e
}

// stdioShape adds "type": "stdio" (Claude Code, VS Code).
func stdioShape(s Entry) []field {
	return append([]field{{"type", "stdio"}}, plainShape(s)...)
}

// copilotShape is GitHub Copilot CLI's: type local, and the tools allowed.
func copilotShape(s Entry) []field {
	return append(append([]field{{"type", "local"}}, plainShape(s)...), field{"tools", []string{"*"}})
}

// opencodeShape has the command and its arguments in one array.
func opencodeShape(s Entry) []field {
	e := []field{{"type", "local"}, {"command", append([]string{s.Command}, s.Args...)}}
	if len(s.Env) > 0 {
		e = append(e, field{"environment", envFields(s.Env)})
	}
	return append(e, field{"enabled", true})
}

// gooseShape is an entry of Goose's extensions.
func gooseShape(s Entry) []field {
	return []field{
		{"name", s.Name}, {"cmd", s.Command}, {"args", args(s)}, {"enabled", true},
		{"envs", envFields(s.Env)}, {"type", "stdio"}, {"timeout", 300},
	}
}

// continueShape is an item of Continue's mcpServers list.
func continueShape(s Entry) []field {
	return append([]field{{"name", s.Name}}, plainShape(s)...)
}

// serverOf reads an entry of any client's shape.
func serverOf(name string, v map[string]any) Entry {
	s := Entry{Name: name}
	str := func(k string) string { x, _ := v[k].(string); return x }
	list := func(x any) []string {
		a, _ := x.([]any)
		out := make([]string, 0, len(a))
		for _, e := range a {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	switch c := v["command"].(type) {
	case string:
		s.Command = c
	case []any: // opencode
		if l := list(c); len(l) > 0 {
			s.Command, s.Args = l[0], l[1:]
		}
	case map[string]any: // Zed's older {"command": {"path", "args", "env"}}
		inner := serverOf(name, c)
		s.Command, _ = c["path"].(string)
		s.Args, s.Env = inner.Args, inner.Env
	}
	if s.Command == "" {
		s.Command = str("cmd") // goose
	}
	if a, ok := v["args"]; ok {
		s.Args = list(a)
	}
	if s.Args == nil {
		s.Args = []string{}
	}
	strs := func(x any) map[string]string {
		m, ok := x.(map[string]any)
		if !ok || len(m) == 0 {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, x := range m {
			out[k], _ = x.(string)
		}
		return out
	}
	for _, k := range []string{"env", "environment", "envs"} {
		if m := strs(v[k]); m != nil {
			s.Env = m
		}
	}
	for _, k := range []string{"headers", "http_headers"} { // http_headers: Codex
		if m := strs(v[k]); m != nil {
			s.Headers = m
		}
	}
	s.TokenEnv = str("bearer_token_env_var") // Codex
	s.Cwd = str("cwd")
	for _, k := range []string{"url", "httpUrl", "serverUrl", "uri"} { // uri: Goose
		if s.URL == "" {
			s.URL = str(k)
		}
	}
	s.Disabled = v["disabled"] == true || v["enabled"] == false
	s.Type = str("type")
	if s.Type == "" {
		s.Type = str("source") // Zed
	}
	if _, ok := v["settings"]; ok && s.Type == "" && s.Command == "" && s.URL == "" {
		s.Type = "extension" // Zed's older extension entries hold only settings
	}
	return s
}

// NotStdio says why a client does not start s as a local command that
// speaks MCP on its standard input and output: it is disabled, remote, or
// run by the client itself. It returns "" when the client starts s, also
// when s has no command and so cannot be started.
func (s Entry) NotStdio() string {
	local := s.Type == "" || s.Type == "stdio" || s.Type == "local" || s.Type == "custom"
	switch {
	case s.Disabled:
		return "disabled in the config"
	case local && s.Command != "":
		return ""
	case s.URL != "":
		return "a remote server at " + s.URL
	case local:
		return ""
	case s.Type == "builtin" || s.Type == "platform":
		return fmt.Sprintf("built into the client (type %q)", s.Type)
	case s.Type == "extension":
		return "a Zed extension's server, which Zed starts through the extension"
	}
	return fmt.Sprintf("type %q, not a local command", s.Type)
}
