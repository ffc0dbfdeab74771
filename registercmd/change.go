package registercmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
)

// The flags and helpers shared by init, remove, restore and list.

// exitUsage is the exit code of a command-line mistake (EX_USAGE).
const exitUsage = 64

func usagef(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), exitUsage)
}

// onUsageError makes a flag parsing error a usage error.
func onUsageError(_ *cli.Context, err error, _ bool) error {
	return cli.Exit(err.Error(), exitUsage)
}

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

// clientFlag is --client. Its help points to "PROG list" when prog is
// not "".
func clientFlag(prog string) cli.Flag {
	hint := "(a wrong name lists the known ones)"
	if prog != "" {
		hint = "(see '" + prog + " list')"
	}
	return &cli.StringFlag{Name: "client", Value: "claude-code", Usage: "assistants to configure, comma-separated " + hint}
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

// noArgs is a usage error when the command was given arguments.
func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("%s takes no arguments, got %q", c.Command.Name, c.Args().First())
	}
	return nil
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
			return env, o, nil, usagef("%v", err)
		}
		t, err := cl.Target(env, scope)
		if err != nil {
			if len(cl.Scopes()) > 0 && !hasScope(cl, scope) {
				return env, o, nil, usagef("%v", err)
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
			fmt.Fprintf(c.App.ErrWriter, "%s: %v\n", c.App.Name, err)
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
