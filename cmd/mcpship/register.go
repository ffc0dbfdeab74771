package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/manifest"
	"github.com/mcpship/mcpship/internal/register"
)

// registerCommands are init, remove, restore, list and doctor. init
// registers "mcpship serve", with the project's manifest.
func registerCommands() []*cli.Command {
	self := register.Program{
		Name: "mcpship",
		Args: []string{"serve"},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "manifest", Usage: "manifest for mcpship serve; '' for none (default: mcpship.json in the project, if present, for the project and local scopes)"},
		},
		FlagArgs: manifestArgs,
	}
	return []*cli.Command{
		register.Init(self),
		register.Remove(self),
		register.Restore(),
		register.List(),
		register.Doctor(nil),
		register.Tools(),
		register.Call(),
		completionCommand(),
	}
}

// manifestArgs returns serve's --manifest for init into d: --manifest,
// else the project's mcpship.json for the project and local scopes. A
// user-scope entry serves every project, so it does not take one
// project's manifest unless named. The manifest must pass 'mcpship
// manifest check', or serve would exit 64 when the assistant starts it.
func manifestArgs(c *cli.Context, d register.Dest) ([]string, error) {
	file := c.String("manifest")
	detected := ""
	switch {
	case c.IsSet("manifest") && file == "":
		return nil, nil // --manifest '': no manifest
	case file == "":
		p := filepath.Join(d.Project, "mcpship.json")
		if _, err := os.Stat(p); err != nil {
			return nil, nil
		}
		if d.Scope == "user" {
			fmt.Fprintf(c.App.ErrWriter, "%s: %s user: not serving the project's %s, since the user scope is for every project; name it with --manifest to serve it everywhere\n", c.App.Name, d.Client, p)
			return nil, nil
		}
		file, detected = p, " (found in the project; --manifest '' registers without it)"
	}
	if _, err := os.Stat(file); err != nil {
		return nil, usagef("--manifest %s: no such file; give the path of a manifest, or --manifest '' for none", file)
	}
	if _, err := loadManifests([]string{file}, nil); err != nil {
		return nil, fmt.Errorf("%w%s", err, detected)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	return manifest.ServeArgs(abs)[1:], nil // after init's "serve"
}
