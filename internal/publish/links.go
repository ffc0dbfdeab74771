package publish

import (
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// An Entry is a stdio server as an assistant starts it: what "mcpship
// init" registers, and what every link and plugin carries.
type Entry struct {
	Name        string            // the server's name in the assistant
	Description string            // one line, for the assistants that show one
	Command     string            // the program, usually a bare name found on PATH
	Args        []string          // its arguments
	Env         map[string]string // environment variables set for it
}

// A Link installs a server in one assistant when opened.
type Link struct {
	Client string `json:"client"` // the assistant's name, as "mcpship init --client" takes it
	Title  string `json:"title"`  // the assistant's product name
	// URL is an https:// address, which GitHub keeps in a README; it opens
	// the assistant through the vendor's redirect page.
	URL string `json:"url"`
	// Deeplink is the assistant's own URL, which GitHub strips from links.
	Deeplink string `json:"deeplink"`
	Badge    string `json:"badge"` // the image URL of the vendor's install button
}

// A OneLiner is a shell command that registers a server through an
// assistant's own command-line interface, for every project of the user.
type OneLiner struct {
	Client string `json:"client"`
	Title  string `json:"title"`
	Line   string `json:"line"` // for a POSIX shell
}

// gooseCommands are the only programs a Goose install link may start
// (block/goose ui/desktop/src/components/settings/extensions/deeplink.ts).
var gooseCommands = []string{"cu", "docker", "jbang", "npx", "uvx", "goosed", "npx.cmd"}

// Links returns the install links for e: Cursor, VS Code, VS Code
// Insiders, LM Studio and, when e starts a program its links allow,
// Goose.
func Links(e Entry) []Link {
	plain := mustJSON(plainEntry(e))
	b64 := base64.StdEncoding.EncodeToString(plain)
	nameConfig := "name=" + encodeComponent(e.Name) + "&config=" + encodeComponent(b64)

	vsQuery := encodeComponent(string(mustJSON(vscodeEntry(e))))
	vscode := "vscode:mcp/install?" + vsQuery
	insiders := "vscode-insiders:mcp/install?" + vsQuery

	links := []Link{
		{"cursor", "Cursor", "https://cursor.com/en/install-mcp?" + nameConfig,
			"cursor://anysphere.cursor-deeplink/mcp/install?" + nameConfig,
			"https://cursor.com/deeplink/mcp-install-dark.svg"},
		{"vscode", "VS Code", "https://vscode.dev/redirect?url=" + encodeComponent(vscode), vscode,
			"https://img.shields.io/badge/VS_Code-Install_Server-0098FF?style=flat-square&logo=visualstudiocode&logoColor=white"},
		{"vscode-insiders", "VS Code Insiders", "https://insiders.vscode.dev/redirect?url=" + encodeComponent(insiders), insiders,
			"https://img.shields.io/badge/VS_Code_Insiders-Install_Server-24bfa5?style=flat-square&logo=visualstudiocode&logoColor=white"},
		{"lmstudio", "LM Studio", "https://lmstudio.ai/install-mcp?" + nameConfig,
			"lmstudio://add_mcp?" + nameConfig,
			"https://files.lmstudio.ai/deeplink/mcp-install-light.svg"},
	}
	if slices.Contains(gooseCommands, e.Command) {
		q := "cmd=" + encodeComponent(e.Command)
		for _, a := range e.Args {
			q += "&arg=" + encodeComponent(a)
		}
		q += "&id=" + encodeComponent(e.Name) + "&name=" + encodeComponent(e.Name)
		if e.Description != "" {
			q += "&description=" + encodeComponent(e.Description)
		}
		// Goose asks the user for each variable's value; the link names
		// the variable and shows the value as its description.
		for _, k := range slices.Sorted(maps.Keys(e.Env)) {
			q += "&env=" + encodeComponent(k+"="+e.Env[k])
		}
		q += "&timeout=300"
		links = append(links, Link{"goose", "Goose", "https://block.github.io/goose/extension?" + q,
			"goose://extension?" + q, "https://block.github.io/goose/img/extension-install-dark.svg"})
	}
	return links
}

// OneLiners returns the commands that register e through Claude Code's,
// Codex's, Gemini CLI's and VS Code's command lines, each for every
// project of the user.
func OneLiners(e Entry) []OneLiner {
	claude := "claude mcp add-json --scope user " + shellQuote(e.Name) + " " +
		shellQuote(string(mustJSON(stdioEntry{"stdio", plainEntry(e)})))

	codex := "codex mcp add " + shellQuote(e.Name)
	gemini := "gemini mcp add --scope user"
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		codex += " --env " + shellQuote(k+"="+e.Env[k])
		gemini += " -e " + shellQuote(k+"="+e.Env[k])
	}
	argv := shellJoin(append([]string{e.Command}, e.Args...))
	codex += " -- " + argv
	// Gemini CLI takes the command before "--" and its arguments after.
	gemini += " " + shellQuote(e.Name) + " " + shellQuote(e.Command)
	if len(e.Args) > 0 {
		gemini += " -- " + shellJoin(e.Args)
	}

	return []OneLiner{
		{"claude-code", "Claude Code", claude},
		{"codex", "Codex", codex},
		{"gemini", "Gemini CLI", gemini},
		{"vscode", "VS Code", "code --add-mcp " + shellQuote(string(mustJSON(vscodeEntry(e))))},
	}
}

// WriteMarkdown writes e's install links as README buttons and its
// one-liners as a shell block, ready to paste into a README.
func WriteMarkdown(w io.Writer, e Entry) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Install %s\n\n", e.Name)
	links := Links(e)
	for _, l := range links {
		fmt.Fprintf(&b, "[![Install in %s](%s)](%s)\n", l.Title, l.Badge, l.URL)
	}
	if !slices.ContainsFunc(links, func(l Link) bool { return l.Client == "goose" }) {
		fmt.Fprintf(&b, "\nGoose: its install links may start only %s, so add %s in Goose's settings as a command-line extension running `%s`.\n",
			strings.Join(gooseCommands[:len(gooseCommands)-1], ", "), e.Name, shellJoin(append([]string{e.Command}, e.Args...)))
	}
	b.WriteString("\nOr from a terminal:\n\n```sh\n")
	for _, o := range OneLiners(e) {
		fmt.Fprintf(&b, "# %s\n%s\n", o.Title, o.Line)
	}
	b.WriteString("```\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// plain is the {"command", "args", "env"} entry of Cursor, LM Studio and
// Claude Desktop, in that order.
type plain struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// stdioEntry adds "type": "stdio" before it (Claude Code, VS Code).
type stdioEntry struct {
	Type string `json:"type"`
	plain
}

// vscodeEntry is VS Code's "code --add-mcp" object: the name, then the
// entry of its mcp.json.
func vscodeEntry(e Entry) any {
	return struct {
		Name string `json:"name"`
		stdioEntry
	}{e.Name, stdioEntry{"stdio", plainEntry(e)}}
}

func plainEntry(e Entry) plain {
	args := e.Args
	if args == nil {
		args = []string{}
	}
	return plain{e.Command, args, e.Env}
}

// mustJSON encodes v, which is made of strings, without HTML escaping.
func mustJSON(v any) []byte {
	b, err := marshal(v, "", "")
	if err != nil {
		panic(err) // strings, slices and maps of strings always encode
	}
	return b[:len(b)-1] // the encoder's newline
}

// encodeComponent escapes s as JavaScript's encodeURIComponent does (a
// little more: it also escapes !'()*), which is how the assistants'
// documentation builds their links.
func encodeComponent(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// shellQuote quotes s for a POSIX shell, leaving plain words as they are.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
