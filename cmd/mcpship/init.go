package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "register mcpship serve (or any stdio server) with AI assistants",
		ArgsUsage: "[-- COMMAND ARGS...]",
		Description: "Adds a server entry to each assistant's config file, keeping every other byte of the file,\n" +
			"after a backup. By default it registers 'mcpship serve' for Claude Code in the project.",
		Flags: append([]cli.Flag{
			clientFlag(),
			&cli.BoolFlag{Name: "all", Usage: "every client whose config location exists on this machine"},
			scopeFlag(),
			&cli.StringFlag{Name: "name", Value: "mcpship", Usage: "server name in the config"},
			&cli.StringFlag{Name: "manifest", Usage: "manifest for mcpship serve (default: mcpship.json in the project, if present)"},
			&cli.GenericFlag{Name: "env", Value: &envFlag{}, Usage: "environment variable for the server, NAME=VALUE (repeatable)"},
			&cli.StringFlag{Name: "command", Usage: "path of the mcpship binary to register (default: this binary)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the diff and write nothing"},
			&cli.BoolFlag{Name: "force", Usage: "replace a different server registered under the same name"},
		}, commonFlags()...),
		OnUsageError: commandUsageError,
		Action:       runInit,
	}
}

// server builds the server init registers.
func server(c *cli.Context, env installer.Env) (installer.Server, error) {
	s := installer.Server{Name: c.String("name")}
	if s.Name == "" {
		return s, usagef("--name must not be empty")
	}
	if v := c.Generic("env").(*envFlag).vals; len(v) > 0 {
		s.Env = map[string]string{}
		for _, kv := range v {
			k, val, _ := strings.Cut(kv, "=")
			s.Env[k] = val
		}
	}
	if c.NArg() > 0 {
		if c.IsSet("manifest") || c.IsSet("command") {
			return s, usagef("--manifest and --command are for mcpship serve; they cannot be used with a command after --")
		}
		s.Command, s.Args = absIfPath(c.Args().First()), c.Args().Tail()
		return s, nil
	}
	s.Command = absIfPath(c.String("command"))
	if s.Command == "" {
		exe, err := os.Executable()
		if err != nil {
			return s, fmt.Errorf("finding the mcpship binary: %w; name it with --command", err)
		}
		s.Command = exe
	}
	s.Args = []string{"serve"}
	manifest := c.String("manifest")
	if manifest == "" {
		if p := filepath.Join(env.ProjectDir, "mcpship.json"); env.Exists(p) {
			manifest = p
		}
	} else if !env.Exists(manifest) {
		return s, fmt.Errorf("--manifest %s: no such file", manifest)
	}
	if manifest != "" {
		abs, err := filepath.Abs(manifest)
		if err != nil {
			return s, err
		}
		s.Args = append(s.Args, "--manifest", abs)
	}
	return s, nil
}

// absIfPath makes a command that names a file (it has a separator)
// absolute; a bare name is left for the client to find on PATH.
func absIfPath(cmd string) string {
	if strings.ContainsAny(cmd, `/\`) {
		if abs, err := filepath.Abs(cmd); err == nil {
			return abs
		}
	}
	return cmd
}

func runInit(c *cli.Context) error {
	env, o, targets, err := setup(c, c.Bool("all"))
	if err != nil {
		return err
	}
	s, err := server(c, env)
	if err != nil {
		return err
	}
	return each(c, targets, func(t *installer.Target) (*installer.Change, error) { return t.Add(s, o) })
}
