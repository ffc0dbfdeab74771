package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/manifest"
	"github.com/mcpship/mcpship/internal/probe"
	"github.com/mcpship/mcpship/internal/register"
	"github.com/mcpship/mcpship/mcp"
)

// registerCommands are init, remove, restore, list and doctor. init
// registers "mcpship serve", with the project's manifest.
func registerCommands() []*cli.Command {
	self := register.Program{
		Name: "mcpship",
		Args: []string{"serve"},
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "manifest", KeepSpace: true, Usage: "manifest for mcpship serve (repeatable); '' for none (default: mcpship.json in the project, if present, for the project and local scopes)"},
		},
		FlagArgs: manifestArgs,
	}
	return []*cli.Command{
		register.Init(self),
		register.Remove(self),
		register.Restore(),
		register.List(),
		probe.Doctor(nil),
		probe.Tools(),
		probe.Call(),
		completionCommand(),
	}
}

// manifestArgs returns serve's --manifest for init into d: every
// --manifest, else the project's mcpship.json for the project and local
// scopes. A user-scope entry serves every project, so it does not take one
// project's manifest unless named. The manifests must pass 'mcpship
// manifest check' and serve together, or serve would exit 64 when the
// assistant starts it.
func manifestArgs(c *cli.Context, d register.Dest) ([]string, error) {
	files := c.StringSlice("manifest")
	detected := ""
	switch {
	case slices.Contains(files, "") && len(files) > 1:
		return nil, usagef("--manifest '' registers without a manifest; it cannot be given with other manifests")
	case slices.Contains(files, ""):
		return nil, nil // --manifest '': no manifest
	case len(files) == 0:
		p := filepath.Join(d.Project, "mcpship.json")
		if _, err := os.Stat(p); err != nil {
			return nil, nil
		}
		if d.Scope == "user" {
			fmt.Fprintf(c.App.ErrWriter, "%s: %s user: not serving the project's %s, since the user scope is for every project; name it with --manifest to serve it everywhere\n", c.App.Name, d.Client, p)
			return nil, nil
		}
		files, detected = []string{p}, " (found in the project; --manifest '' registers without it)"
	}
	for _, file := range files {
		if _, err := os.Stat(file); err != nil {
			return nil, usagef("--manifest %s: no such file; give the path of a manifest, or --manifest '' for none", file)
		}
	}
	ms, err := loadManifests(files, nil)
	if err == nil {
		// Tool names must be unique across the manifests, as serve adds them.
		err = addManifestTools(mcp.NewServer(mcp.Implementation{Name: "mcpship"}, nil), ms)
	}
	if err != nil {
		return nil, fmt.Errorf("%w%s", err, detected)
	}
	var args []string
	for _, file := range files {
		abs, err := filepath.Abs(file)
		if err != nil {
			return nil, err
		}
		args = append(args, manifest.ServeArgs(abs)[1:]...) // after init's "serve"
	}
	return args, nil
}
