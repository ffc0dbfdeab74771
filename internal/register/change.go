package register

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/internal/clihelp"
)

// The flags and helpers shared by init, remove, restore and list.

// exitUsage is the exit code of a command-line mistake (EX_USAGE).
const exitUsage = 64

// Usagef is a usage error, exit code 64, with the message format makes.
func Usagef(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), exitUsage)
}

// onUsageError makes a flag parsing error a usage error, naming the flag
// as --NAME.
func onUsageError(_ *cli.Context, err error, _ bool) error {
	return clihelp.FlagError(err)
}

// Styled gives cmd the help of mcpship's own commands also in an app
// that does not set cli.FlagStringer (registercmd's): FILE, DIR and N
// placeholders, a repeatable flag written once.
func Styled(cmd *cli.Command) *cli.Command {
	cmd.CustomHelpTemplate = clihelp.CommandHelpTemplate(cmd)
	return cmd
}

// envFlag collects repeated --env K=V values without splitting on commas.
type envFlag struct{ vals []string }

func (e *envFlag) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return Usagef("--env %q: want NAME=VALUE", v)
	}
	e.vals = append(e.vals, v)
	return nil
}

func (e *envFlag) String() string { return strings.Join(e.vals, " ") }

// listValue collects a repeatable flag's values whole: an HTTP header's
// value may hold commas, which urfave/cli's slice flags split at unless
// the app turns that off.
type listValue []string

func (l *listValue) Set(v string) error { *l = append(*l, v); return nil }

func (l *listValue) String() string { return strings.Join(*l, " ") }

// clientFlag is --client, for the assistants whose files a command
// changes ("to configure"). Its help points to "PROG list" when prog is
// not "".
func clientFlag(prog, what string) cli.Flag {
	hint := "(a wrong name lists the known ones)"
	if prog != "" {
		hint = "(see '" + prog + " list')"
	}
	return &cli.StringFlag{Name: "client", Value: "claude-code", Usage: "assistants " + what + ", comma-separated " + hint}
}

func scopeFlag() cli.Flag {
	return &cli.StringFlag{Name: "scope", Usage: "project, user or local (default: each client's own, project where it has one)"}
}

func CommonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "project", Usage: "project directory for project and local scopes (default: the current directory)"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON for machines"},
	}
}

// NoArgs is a usage error when the command was given arguments.
func NoArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return Usagef("%s takes no arguments, got %q", c.Command.Name, c.Args().First())
	}
	return nil
}

// Targets are the config files a command changes and how, as its flags
// choose them (see [TargetsFrom]), and where it reports.
type Targets struct {
	// Clients are the assistants, comma-separated, as --client gives
	// them; "" for Claude Code, or with All for none.
	Clients string
	// All chooses every client whose config location exists (--all).
	All bool
	// Scope is "project", "user" or "local"; "" for each client's own
	// default. ScopeSet says --scope was given, so that "" is a mistake.
	Scope    string
	ScopeSet bool
	// Project is the directory of the project and local scopes; "" for
	// the current directory.
	Project string
	// DryRun prints the diffs and writes nothing; Force replaces a
	// different server of the same name; JSON prints the changes as JSON.
	DryRun, Force, JSON bool
	// Program names the program in messages, such as "mcpship".
	Program string
	// Stdout and Stderr take the lines per file and the warnings.
	Stdout, Stderr io.Writer
}

// TargetsFrom reads the [Targets] that c's flags choose: --client,
// --all, --scope, --project, --dry-run, --force and --json, each of them
// that the command has.
func TargetsFrom(c *cli.Context) Targets {
	return Targets{
		Clients:  given(c, "client"),
		All:      c.Bool("all"),
		Scope:    c.String("scope"),
		ScopeSet: c.IsSet("scope"),
		Project:  c.String("project"),
		DryRun:   c.Bool("dry-run"),
		Force:    c.Bool("force"),
		JSON:     c.Bool("json"),
		Program:  c.App.Name,
		Stdout:   c.App.Writer,
		Stderr:   c.App.ErrWriter,
	}
}

// given returns the value of the flag name if it was given, else "".
func given(c *cli.Context, name string) string {
	if c.IsSet(name) {
		return c.String(name)
	}
	return ""
}

// setup returns the environment, options and targets a command works on.
// Without a scope, each client gets its own default scope: project where
// it has one, else the one it has; a list of clients whose defaults
// differ says so on standard error.
func setup(tt Targets) (installer.Env, installer.Options, []*installer.Target, error) {
	env, err := installer.OSEnv(tt.Project)
	if err != nil {
		return env, installer.Options{}, nil, err
	}
	state, err := env.StateDir()
	if err != nil {
		return env, installer.Options{}, nil, err
	}
	o := installer.Options{StateDir: state, DryRun: tt.DryRun, Force: tt.Force}
	scope := installer.Scope(tt.Scope)
	switch scope {
	case "", installer.ScopeProject, installer.ScopeUser, installer.ScopeLocal:
	default:
		return env, o, nil, Usagef("--scope %q: want project, user or local", scope)
	}
	if tt.ScopeSet && scope == "" {
		return env, o, nil, Usagef("--scope is empty: want project, user or local")
	}
	// scopeOf is the scope used for cl: --scope, else cl's default.
	scopeOf := func(cl *installer.Assistant) installer.Scope {
		if scope != "" {
			return scope
		}
		return cl.Scopes()[0]
	}
	var targets []*installer.Target
	if tt.All {
		if tt.Clients != "" {
			return env, o, nil, Usagef("--all and --client cannot be used together")
		}
		for _, cl := range installer.Assistants() {
			// A file that mcpship itself created (an add for every
			// assistant) and nobody changed since is not the assistant's.
			if t, err := cl.Target(env, scopeOf(cl)); err == nil && t.Installed(env, state) {
				targets = append(targets, t)
			}
		}
		if len(targets) == 0 {
			where := "config"
			if scope != "" {
				where = string(scope) + " config"
			}
			return env, o, nil, fmt.Errorf("no client with a %s was found on this machine; name one with --client", where)
		}
	} else {
		clients := cmp.Or(tt.Clients, "claude-code")
		for _, name := range strings.Split(clients, ",") {
			cl, err := installer.LookupAssistant(strings.TrimSpace(name))
			if err != nil {
				return env, o, nil, Usagef("%v", err)
			}
			t, err := cl.Target(env, scopeOf(cl))
			if err != nil {
				if !hasScope(cl, scopeOf(cl)) {
					return env, o, nil, Usagef("%v; or leave --scope out to use each client's own", err)
				}
				return env, o, nil, err
			}
			targets = append(targets, t)
		}
	}
	if scope == "" && !tt.All && mixed(targets) {
		var each []string
		for _, t := range targets {
			each = append(each, fmt.Sprintf("%s %s", t.Assistant.Name, t.Scope))
		}
		fmt.Fprintf(tt.Stderr, "%s: no --scope given, so each client uses its own default: %s\n", tt.Program, strings.Join(each, ", "))
	}
	return env, o, targets, nil
}

// mixed reports whether the targets are in more than one scope.
func mixed(targets []*installer.Target) bool {
	for _, t := range targets {
		if t.Scope != targets[0].Scope {
			return true
		}
	}
	return false
}

func hasScope(c *installer.Assistant, s installer.Scope) bool {
	for _, x := range c.Scopes() {
		if x == s {
			return true
		}
	}
	return false
}

// A result is one file's outcome as --json prints it: the change, with
// any warnings, or for a file that was refused, "action": "refused" and
// the error.
type result struct {
	*installer.Change
	Warnings []string `json:"warnings,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// each applies f to every target, printing a line (or JSON) per file and
// the target's warnings, if any. A failure is reported and the other
// targets are still done. name is the server's name, for the JSON of a
// refused file.
func each(tt Targets, targets []*installer.Target, name string, warnings map[*installer.Target][]string, f func(*installer.Target) (*installer.Change, error)) error {
	results := []result{}
	var errs []error
	for _, t := range targets {
		ch, err := f(t)
		if err != nil {
			err = explain(t, err)
			errs = append(errs, err)
			results = append(results, result{Change: &installer.Change{Client: t.Assistant.Name, Scope: t.Scope, File: t.File, Name: name, Action: "refused"}, Error: err.Error()})
			continue
		}
		results = append(results, result{Change: ch, Warnings: warnings[t]})
		if !tt.JSON {
			printChange(tt.Stdout, ch)
		}
		for _, w := range warnings[t] {
			fmt.Fprintf(tt.Stderr, "%s: warning: %s\n", tt.Program, w)
		}
	}
	if tt.JSON {
		if err := PrintJSON(tt.Stdout, results); err != nil {
			return err
		}
	}
	switch {
	case len(errs) == 1 && len(targets) == 1:
		return errs[0]
	case len(errs) > 0:
		for _, err := range errs {
			fmt.Fprintf(tt.Stderr, "%s: %v\n", tt.Program, err)
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

func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
