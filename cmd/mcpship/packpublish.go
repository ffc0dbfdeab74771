package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/manifest"
	"github.com/mcpship/mcpship/internal/pack"
	"github.com/mcpship/mcpship/internal/publish"
)

// publishFlags are pack's flags for what carries the bundles to their
// users besides the bundles themselves: the MCP Registry's server.json, a
// Claude Code plugin and a Gemini CLI extension (package publish).
func publishFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "registry-name", Usage: "the server's `NAME` in the MCP Registry's server.json, such as io.github.OWNER/NAME (default: from a GitHub --repository)"},
		&cli.StringFlag{Name: "download-url", Usage: "the `URL` users download the bundles from, their file names appended (default: REPOSITORY/releases/download/vVERSION/)"},
		&cli.StringFlag{Name: "server-json", Usage: "write the MCP Registry's server.json to `FILE`, updating it if it exists (default: OUT/server.json)"},
		&cli.StringFlag{Name: "image", Usage: "list the container image `REF` (REGISTRY/NAMESPACE/REPOSITORY[:TAG], tag default: the version) in server.json; it serves HTTP as mcpship's release image does (docs/deploy.md)"},
		&cli.StringFlag{Name: "go-package", Usage: "with --app: the package `PATH` 'go install' takes, listed in server.json (default: read from the app's binaries)"},
		&cli.StringFlag{Name: "claude-plugin", Usage: "also write a Claude Code plugin into `DIR`"},
		&cli.StringFlag{Name: "gemini-extension", Usage: "also write a Gemini CLI extension into `DIR`"},
	}
}

// A publication is what pack writes besides the bundles, worked out and
// checked before any bundle is written.
type publication struct {
	serverJSON string         // "" for none
	server     publish.Server // without the bundles' packages
	downloads  string         // the bundles' URL, but for their file names
	plugin     publish.Plugin
}

// planPublication reads pack's publishing flags for o. It refuses, before
// anything is written, a server.json that cannot be written: an existing
// file that is not JSON or names another server, a description the
// registry would refuse.
func planPublication(c *cli.Context, o pack.Options) (*publication, error) {
	o.Version = strings.TrimPrefix(o.Version, "v")
	d := publish.DefaultsFor(o.Repository, o.Name, o.Version)
	p := &publication{downloads: d.DownloadURL}
	name := d.RegistryName
	if n := c.String("registry-name"); n != "" {
		name = n
	}
	if u := c.String("download-url"); u != "" {
		p.downloads = u
	}
	switch {
	case name != "" && p.downloads != "":
		if err := p.planServerJSON(c, o, name, d.Repository); err != nil {
			return nil, err
		}
	case c.IsSet("server-json") || c.IsSet("registry-name") || c.IsSet("download-url") || c.IsSet("image"):
		return nil, usagef("server.json needs --registry-name and --download-url, or a GitHub --repository to take them from")
	default:
		fmt.Fprintf(c.App.ErrWriter, "%s pack: note: no server.json is written without a GitHub --repository, or --registry-name and --download-url\n", c.App.Name)
	}
	return p, p.planPlugin(c, o, d.Repository)
}

// planServerJSON checks the server.json of the server name and where it
// goes: --server-json, else OUT/server.json.
func (p *publication) planServerJSON(c *cli.Context, o pack.Options, name, repo string) error {
	p.serverJSON = c.String("server-json")
	if p.serverJSON == "" {
		p.serverJSON = filepath.Join(c.String("out"), "server.json")
	}
	if u, err := url.Parse(p.downloads); err != nil || u.Scheme != "https" || u.Host == "" {
		return usagef("--download-url %q: want the https:// address the bundles are downloaded from", p.downloads)
	}
	if !strings.HasSuffix(p.downloads, "/") {
		p.downloads += "/"
	}
	p.server = publish.Server{Name: name, Description: o.Description, Version: o.Version,
		Repository: repo, WebsiteURL: o.Homepage}
	if o.App != "" {
		if pkg, err := goPackage(c, o, name); err != nil {
			fmt.Fprintf(c.App.ErrWriter, "%s pack: server.json lists no Go package: %v\n", c.App.Name, err)
		} else {
			p.server.Packages = []publish.Package{pkg}
		}
	}
	if ref := c.String("image"); ref != "" {
		img, err := publish.OCIPackage(ref, o.Version)
		if err != nil {
			return usagef("--image: %v", err)
		}
		p.server.Packages = append(p.server.Packages, img)
	}
	old, err := os.ReadFile(p.serverJSON)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if _, err := publish.ServerJSON(old, p.server); err != nil {
		return fmt.Errorf("%s: %w", p.serverJSON, err)
	}
	return nil
}

// planPlugin works out the Claude Code plugin and Gemini CLI extension,
// which pack writes with --claude-plugin and --gemini-extension.
func (p *publication) planPlugin(c *cli.Context, o pack.Options, repo string) error {
	p.plugin = publish.Plugin{
		Entry:      publish.Entry{Name: publish.PluginName(o.Name), Description: o.Description, Command: o.App, Args: appArgs(o)},
		Version:    o.Version,
		Author:     strings.TrimSpace(strings.Split(o.Author, "<")[0]),
		License:    o.License,
		Homepage:   o.Homepage,
		Repository: repo,
	}
	if o.Icon != "" && c.IsSet("claude-plugin") {
		icon, err := os.ReadFile(o.Icon)
		if err != nil {
			return err
		}
		p.plugin.Icon = icon
	}
	if p.plugin.Name == "" && (c.IsSet("claude-plugin") || c.IsSet("gemini-extension")) {
		return usagef("--name %q has no letters or digits to name a plugin after", o.Name)
	}
	if o.Manifest != "" {
		m, err := os.ReadFile(o.Manifest)
		if err != nil {
			return err
		}
		p.plugin.Command = "mcpship"
		p.plugin.Args = manifest.ServeArgs(publish.Root + "/mcpship.json")
		p.plugin.Files = map[string][]byte{"mcpship.json": m}
	}
	return nil
}

// appArgs are the arguments that make o's app serve MCP (pack's default: mcp).
func appArgs(o pack.Options) []string {
	if o.App == "" {
		return nil
	}
	if len(o.AppArgs) == 0 {
		return []string{"mcp"}
	}
	return o.AppArgs
}

// goPackage is the registry's Go package entry for o's app: --go-package,
// or the main package path recorded in its binaries.
func goPackage(c *cli.Context, o pack.Options, server string) (publish.Package, error) {
	pkg := c.String("go-package")
	if pkg == "" {
		pkg = o.Binaries.MainPackage()
	}
	if pkg == "" {
		return publish.Package{}, fmt.Errorf("the app's binaries do not record an importable package path; give it with --go-package")
	}
	return publish.GoPackage(server, pkg, "v"+o.Version, appArgs(o))
}

// write writes the publication for the bundles pack wrote and prints
// what it wrote, a line each.
func (p *publication) write(c *cli.Context, bundles []pack.Bundle) error {
	if p.serverJSON != "" {
		s := p.server
		s.Packages = nil
		for _, b := range bundles {
			s.Packages = append(s.Packages, publish.BundlePackage(p.downloads+filepath.Base(b.File), b.SHA256))
		}
		s.Packages = append(s.Packages, p.server.Packages...)
		if err := publish.WriteServerJSON(p.serverJSON, s); err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "%s\tserver.json of %s %s\n", p.serverJSON, s.Name, s.Version)
	}
	if dir := c.String("claude-plugin"); dir != "" {
		if err := publish.WriteClaudePlugin(dir, p.plugin); err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "%s\tClaude Code plugin %s\n", dir, p.plugin.Name)
	}
	if dir := c.String("gemini-extension"); dir != "" {
		if err := publish.WriteGeminiExtension(dir, p.plugin); err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "%s\tGemini CLI extension %s\n", dir, p.plugin.Name)
	}
	return nil
}
