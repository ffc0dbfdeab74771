package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/manifest"
	"github.com/mcpship/mcpship/internal/publish"
)

func linksCommand() *cli.Command {
	return &cli.Command{
		Name:      "links",
		Usage:     "print install links, README buttons and one-line install commands for a server, as Markdown",
		ArgsUsage: "[-- COMMAND ARGS...]",
		Description: "Prints a Markdown block for a README: install buttons for Cursor, VS Code, VS Code Insiders,\n" +
			"LM Studio and Goose (where its links allow the command), and the commands that register the server\n" +
			"with Claude Code, Codex, Gemini CLI and VS Code. Each installs what 'mcpship init' registers:\n" +
			"'mcpship serve --manifest FILE', run as --command (default: mcpship, found on the user's PATH).\n" +
			"After \"--\", the links install that command instead, such as a Go app's 'myapp mcp'.",
		Flags: []cli.Flag{
			&cli.GenericFlag{Name: "manifest", Value: &oneFlag{why: "the links serve one manifest; merge their tools into one, or make links for each"}, Usage: "manifest the server serves (checked as 'mcpship manifest check' does)"},
			&cli.StringFlag{Name: "manifest-path", Usage: "the manifest's path on the users' machines (default: --manifest, made absolute)"},
			&cli.StringFlag{Name: "name", Value: "mcpship", Usage: "server name in the assistants' configs"},
			&cli.StringFlag{Name: "command", Value: "mcpship", Usage: "the mcpship the links run: a bare name is found on the user's PATH"},
			&cli.StringFlag{Name: "description", Usage: "one line about the server, for the assistants that show one"},
			&cli.GenericFlag{Name: "env", Value: &pairs{}, Usage: "environment variable for the server, NAME=VALUE (repeatable)"},
			&cli.StringFlag{Name: "registry-name", Usage: "the server's `NAME` in the MCP Registry: also print 'mcpship add NAME', which installs its bundle"},
			&cli.BoolFlag{Name: "json", Usage: "print the links and commands as JSON"},
		},
		OnUsageError: usageError,
		Action:       runLinks,
	}
}

func runLinks(c *cli.Context) error {
	e, err := linkEntry(c)
	if err != nil {
		return err
	}
	if !c.Bool("json") {
		if err := publish.WriteMarkdown(c.App.Writer, e); err != nil {
			return err
		}
		if name := c.String("registry-name"); name != "" {
			if publish.CheckName(name) != nil {
				return usagef("--registry-name %q is not a name in the MCP Registry, such as io.github.OWNER/NAME", name)
			}
			_, err := fmt.Fprintf(c.App.Writer, "\nOr, with mcpship, the bundle from the MCP Registry, for the assistants you name:\n\n```sh\nmcpship add %s --client claude-code,cursor,vscode\n```\n", name)
			return err
		}
		return nil
	}
	enc := json.NewEncoder(c.App.Writer)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Links    []publish.Link     `json:"links"`
		Commands []publish.OneLiner `json:"commands"`
	}{publish.Links(e), publish.OneLiners(e)})
}

// linkEntry is the server the links install, from the flags.
func linkEntry(c *cli.Context) (publish.Entry, error) {
	e := publish.Entry{Name: c.String("name"), Description: c.String("description"), Command: c.String("command")}
	if e.Name == "" {
		return e, usagef("--name must not be empty")
	}
	if e.Command == "" {
		return e, usagef("--command must not be empty")
	}
	if v := c.Generic("env").(*pairs).vals; len(v) > 0 {
		e.Env = map[string]string{}
		for _, kv := range v {
			k, val, _ := strings.Cut(kv, "=")
			e.Env[k] = val
		}
	}
	file := c.String("manifest")
	if c.NArg() > 0 {
		for _, f := range []string{"manifest", "manifest-path", "command"} {
			if c.IsSet(f) {
				return e, usagef("--%s is for mcpship serve; it cannot be used with a command after --", f)
			}
		}
		e.Command, e.Args = c.Args().First(), c.Args().Tail()
		return e, nil
	}
	if file == "" {
		return e, usagef("links needs --manifest FILE, or the server's command after --")
	}
	if _, err := loadManifests([]string{file}, nil); err != nil {
		return e, err
	}
	path := c.String("manifest-path")
	if path == "" {
		abs, err := filepath.Abs(file)
		if err != nil {
			return e, err
		}
		path = abs
		// The links go into a README for others: a path on the author's
		// machine only works for users who have the file at that place.
		fmt.Fprintf(c.App.ErrWriter, "mcpship links: warning: every link and command runs the manifest at %s, a path on this machine, "+
			"which your users will not have; pass --manifest-path with the path where they install it "+
			"(or give the server's own command after --)\n", path)
	}
	e.Args = manifest.ServeArgs(path)
	return e, nil
}

// pairs collects repeated NAME=VALUE flags without splitting on commas.
type pairs struct{ vals []string }

func (p *pairs) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return usagef("%q: want NAME=VALUE", v)
	}
	p.vals = append(p.vals, v)
	return nil
}

func (p *pairs) String() string { return strings.Join(p.vals, " ") }
