package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/registercmd"
)

// registerCommands are init, remove, restore, list and doctor. init
// registers "mcpship serve", with the project's manifest.
func registerCommands() []*cli.Command {
	self := registercmd.Program{
		Name: "mcpship",
		Args: []string{"serve"},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "manifest", Usage: "manifest for mcpship serve (default: mcpship.json in the project, if present)"},
		},
		FlagArgs: manifestArgs,
	}
	return []*cli.Command{
		registercmd.Init(self),
		registercmd.Remove(self),
		registercmd.Restore(),
		registercmd.List(),
		registercmd.Doctor(nil),
	}
}

// manifestArgs returns serve's --manifest for init: --manifest, else the
// project's mcpship.json if there is one.
func manifestArgs(c *cli.Context, env installer.Env) ([]string, error) {
	manifest := c.String("manifest")
	if manifest == "" {
		if p := filepath.Join(env.ProjectDir, "mcpship.json"); env.Exists(p) {
			manifest = p
		}
	} else if !env.Exists(manifest) {
		return nil, fmt.Errorf("--manifest %s: no such file", manifest)
	}
	if manifest == "" {
		return nil, nil
	}
	abs, err := filepath.Abs(manifest)
	if err != nil {
		return nil, err
	}
	return []string{"--manifest", abs}, nil
}
