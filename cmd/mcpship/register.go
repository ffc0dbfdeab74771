package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
)

// envFlag collects repeated --env K=V values without splitting on commas.
type envFlag struct{ vals []string }

func (e *envFlag) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return usagef("--env %q: want NAME=VALUE", v)
	}
	e.vals = append(e.vals, v)
	return nil
}

func (e *envFlag) String() string { return strings.Join(e.vals, " ") }

func clientFlag() cli.Flag {
	return &cli.StringFlag{Name: "client", Value: "claude-code", Usage: "assistants to configure, comma-separated (see 'mcpship list')"}
}

func scopeFlag() cli.Flag {
	return &cli.StringFlag{Name: "scope", Value: "project", Usage: "project, user or local"}
}

func commonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "project", Usage: "project directory for project and local scopes (default: the current directory)"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON for machines"},
	}
}

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

func removeCommand() *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Usage:     "remove a server from AI assistants' config files",
		ArgsUsage: " ",
		Flags: append([]cli.Flag{
			clientFlag(),
			scopeFlag(),
			&cli.StringFlag{Name: "name", Value: "mcpship", Usage: "server name in the config"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the diff and write nothing"},
		}, commonFlags()...),
		OnUsageError: commandUsageError,
		Action:       runRemove,
	}
}

func restoreCommand() *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Usage:     "put back a config file from one of mcpship's backups",
		ArgsUsage: " ",
		Description: "Lists the backups of the file, newest first, and restores --backup or else the newest,\n" +
			"after backing up the file as it is now.",
		Flags: append([]cli.Flag{
			clientFlag(),
			scopeFlag(),
			&cli.StringFlag{Name: "backup", Usage: "backup file to restore (default: the newest)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the diff and write nothing"},
		}, commonFlags()...),
		OnUsageError: commandUsageError,
		Action:       runRestore,
	}
}

func listCommand() *cli.Command {
	return &cli.Command{
		Name:         "list",
		Usage:        "show every assistant's config files and the servers registered in them",
		ArgsUsage:    " ",
		Flags:        commonFlags(),
		OnUsageError: commandUsageError,
		Action:       runList,
	}
}

// setup returns the environment, options and targets a command works on.
func setup(c *cli.Context, all bool) (installer.Env, installer.Options, []*installer.Target, error) {
	env, err := installer.OSEnv(c.String("project"))
	if err != nil {
		return env, installer.Options{}, nil, err
	}
	state, err := env.StateDir()
	if err != nil {
		return env, installer.Options{}, nil, err
	}
	o := installer.Options{StateDir: state, DryRun: c.Bool("dry-run"), Force: c.Bool("force")}
	scope := installer.Scope(c.String("scope"))
	switch scope {
	case installer.ScopeProject, installer.ScopeUser, installer.ScopeLocal:
	default:
		return env, o, nil, usagef("--scope %q: want project, user or local", scope)
	}
	var targets []*installer.Target
	if all {
		if c.IsSet("client") {
			return env, o, nil, usagef("--all and --client cannot be used together")
		}
		for _, cl := range installer.Clients() {
			if t, err := cl.Target(env, scope); err == nil && t.Present(env) {
				targets = append(targets, t)
			}
		}
		if len(targets) == 0 {
			return env, o, nil, fmt.Errorf("no client with a %s config was found on this machine; name one with --client", scope)
		}
		return env, o, targets, nil
	}
	for _, name := range strings.Split(c.String("client"), ",") {
		cl, err := installer.LookupClient(strings.TrimSpace(name))
		if err != nil {
			return env, o, nil, usageError{err.Error()}
		}
		t, err := cl.Target(env, scope)
		if err != nil {
			if len(cl.Scopes()) > 0 && !hasScope(cl, scope) {
				return env, o, nil, usageError{err.Error()}
			}
			return env, o, nil, err
		}
		targets = append(targets, t)
	}
	return env, o, targets, nil
}

func hasScope(c *installer.Client, s installer.Scope) bool {
	for _, x := range c.Scopes() {
		if x == s {
			return true
		}
	}
	return false
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

func runRemove(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("remove takes no arguments, got %q", c.Args().First())
	}
	_, o, targets, err := setup(c, false)
	if err != nil {
		return err
	}
	name := c.String("name")
	return each(c, targets, func(t *installer.Target) (*installer.Change, error) { return t.Remove(name, o) })
}

func runRestore(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("restore takes no arguments, got %q", c.Args().First())
	}
	_, o, targets, err := setup(c, false)
	if err != nil {
		return err
	}
	return each(c, targets, func(t *installer.Target) (*installer.Change, error) {
		if !c.Bool("json") {
			bs, err := t.Backups(o.StateDir)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(c.App.Writer, "backups of %s, newest first:\n", t.File)
			for _, b := range bs {
				fmt.Fprintf(c.App.Writer, "  %s\n", b.Path)
			}
		}
		return t.Restore(c.String("backup"), o)
	})
}

// each applies f to every target, printing a line (or JSON) per change.
// A failure is reported and the other targets are still done.
func each(c *cli.Context, targets []*installer.Target, f func(*installer.Target) (*installer.Change, error)) error {
	var changes []*installer.Change
	var errs []error
	for _, t := range targets {
		ch, err := f(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		changes = append(changes, ch)
		if !c.Bool("json") {
			printChange(c.App.Writer, ch)
		}
	}
	if c.Bool("json") {
		if changes == nil {
			changes = []*installer.Change{}
		}
		if err := printJSON(c.App.Writer, changes); err != nil {
			return err
		}
	}
	switch {
	case len(errs) == 1 && len(targets) == 1:
		return errs[0]
	case len(errs) > 0:
		for _, err := range errs {
			fmt.Fprintf(c.App.ErrWriter, "mcpship: %v\n", err)
		}
		return fmt.Errorf("%d of %d config files could not be changed (see above)", len(errs), len(targets))
	}
	return nil
}

func printChange(w io.Writer, ch *installer.Change) {
	if ch.DryRun && ch.Diff != "" {
		fmt.Fprint(w, ch.Diff)
	}
	where := fmt.Sprintf("%s %s %s", ch.Client, ch.Scope, ch.File)
	var what string
	switch ch.Action {
	case "added", "replaced", "removed":
		what = fmt.Sprintf("%s %q", ch.Action, ch.Name)
	case "unchanged":
		what = fmt.Sprintf("%q is already registered; nothing written", ch.Name)
		if ch.Name == "" {
			what = "already identical to the backup; nothing written"
		}
	case "absent":
		what = fmt.Sprintf("no server named %q; nothing written", ch.Name)
	case "restored":
		what = "restored from " + ch.RestoredFrom
	}
	if ch.DryRun && ch.Diff != "" {
		what = "dry run, would have " + what + "; nothing written"
	} else if ch.Backup != "" {
		what += " (backup: " + ch.Backup + ")"
	} else if ch.Created && ch.Diff != "" {
		what += " (new file)"
	}
	fmt.Fprintf(w, "%s: %s\n", where, what)
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// listed is one row of mcpship list.
type listed struct {
	Client  string                   `json:"client"`
	Scope   installer.Scope          `json:"scope"`
	File    string                   `json:"file"`
	Exists  bool                     `json:"exists"`
	Servers []installer.Registration `json:"servers"`
	Error   string                   `json:"error,omitempty"`
}

func runList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("list takes no arguments, got %q", c.Args().First())
	}
	env, err := installer.OSEnv(c.String("project"))
	if err != nil {
		return err
	}
	state, err := env.StateDir()
	if err != nil {
		return err
	}
	rows := []listed{}
	bad := 0
	for _, cl := range installer.Clients() {
		for _, s := range cl.Scopes() {
			t, err := cl.Target(env, s)
			if err != nil {
				rows = append(rows, listed{Client: cl.Name, Scope: s, Error: err.Error()})
				bad++
				continue
			}
			regs, exists, err := t.Servers(state)
			r := listed{Client: cl.Name, Scope: s, File: t.File, Exists: exists, Servers: regs}
			if err != nil {
				r.Error = err.Error()
				bad++
			}
			if r.Servers == nil {
				r.Servers = []installer.Registration{}
			}
			rows = append(rows, r)
		}
	}
	w := c.App.Writer
	if c.Bool("json") {
		if err := printJSON(w, rows); err != nil {
			return err
		}
	} else {
		for _, r := range rows {
			state := fmt.Sprintf("%d servers", len(r.Servers))
			switch {
			case r.Error != "":
				state = "error: " + r.Error
			case !r.Exists:
				state = "no file"
			case len(r.Servers) == 1:
				state = "1 server"
			}
			fmt.Fprintf(w, "%-14s %-7s %s (%s)\n", r.Client, r.Scope, r.File, state)
			for _, s := range r.Servers {
				mark := "      "
				if s.Ours {
					mark = "[ours]"
				}
				fmt.Fprintf(w, "    %s %s %s\n", mark, s.Name, commandLine(s.Server))
			}
		}
	}
	if bad > 0 {
		return errors.New(plural(bad, "config file") + " could not be read (see above)")
	}
	return nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// commandLine shows a server's command for people, quoting words with
// spaces or quotes.
func commandLine(s installer.Server) string {
	words := append([]string{s.Command}, s.Args...)
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\"'\\") {
			words[i] = strconv.Quote(w)
		}
	}
	return strings.Join(words, " ")
}
