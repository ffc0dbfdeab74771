package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
)

// The flags and helpers shared by init, remove, restore and list, and the
// remove and restore commands.

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
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
