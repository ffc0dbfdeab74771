package register

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/internal/installed"
)

// What "mcpship add" shares with init, doctor and remove: the same flags
// for the files to change, the same safe edit, the same handshake.

// TargetFlags are init's --client, --project and --force, for a command
// that registers a server as init does with [Register]; it adds its own
// --scope (project, user or local).
func TargetFlags() []cli.Flag {
	return []cli.Flag{
		clientFlag("mcpship", "to configure"),
		&cli.StringFlag{Name: "project", Usage: "project directory for project and local scopes (default: the current directory)"},
		&cli.BoolFlag{Name: "force", Usage: "replace a different server registered under the same name"},
	}
}

// Register adds e to the config files that tt chooses (read from a
// command's [TargetFlags] by [TargetsFrom]), through the same edit as init
// (backup, atomic write, ledger), printing a line per file. An entry
// already there under e's name is replaced when replace(it) says so or
// tt.Force; otherwise that file is refused. If any file is refused, the
// entries Register added are taken out again (an entry it replaced is put
// back from its backup), so that nothing stays registered, and the error
// is returned.
func Register(tt Targets, e installer.Entry, replace func(old installer.Entry) bool) error {
	tt.All = false
	_, o, targets, err := setup(tt)
	if err != nil {
		return err
	}
	// A client whose file cannot hold e (a remote server it takes no
	// remote entry for) changes nothing anywhere.
	var refused []string
	for _, t := range targets {
		if err := t.Assistant.Check(e); err != nil {
			refused = append(refused, fmt.Sprintf("%s: %v", t.Assistant.Name, err))
		}
	}
	if len(refused) > 0 {
		return errors.New(strings.Join(refused, "\n") + "\nnothing was registered; leave those clients out of --client")
	}
	may := map[*installer.Target]bool{}
	warnings := map[*installer.Target][]string{}
	for _, t := range targets {
		regs, _, err := t.Servers(o.StateDir)
		if err != nil {
			return explain(t, err)
		}
		for _, r := range regs {
			if r.Name == e.Name && replace != nil && replace(r.Entry) {
				may[t] = true
			}
		}
		if t.Scope == installer.ScopeProject {
			warnings[t] = secretWarnings(t, e)
		}
	}
	var done []*installer.Change
	byChange := map[*installer.Change]*installer.Target{}
	err = each(tt, targets, e.Name, warnings, func(t *installer.Target) (*installer.Change, error) {
		to := o
		to.Force = o.Force || may[t]
		ch, err := t.Add(e, to)
		if err == nil && (ch.Action == "added" || ch.Action == "replaced") {
			done = append(done, ch)
			byChange[ch] = t
		}
		return ch, err
	})
	if err == nil {
		return nil
	}
	for _, ch := range done {
		t := byChange[ch]
		var undo *installer.Change
		var uerr error
		if ch.Action == "replaced" && ch.Backup != "" {
			undo, uerr = t.Restore(ch.Backup, o)
		} else {
			undo, uerr = t.Remove(e.Name, o)
		}
		if uerr != nil {
			fmt.Fprintf(tt.Stderr, "%s: could not take %q out of %s again: %v; remove it with '%s remove --name %s --client %s --scope %s'\n",
				tt.Program, e.Name, t.File, uerr, tt.Program, e.Name, t.Assistant.Name, t.Scope)
			continue
		}
		fmt.Fprintf(tt.Stderr, "%s: undone: %s %s %s: %s\n", tt.Program, undo.Client, undo.Scope, undo.File, undo.Action)
	}
	return err
}

// A Use is an entry of a config file.
type Use struct {
	Client, Scope, File string
	Entry               installer.Entry
}

// Uses returns the entries, in every assistant's user file and the
// project and local files of the project directory ("" for the current
// one), for which is reports true. Files that cannot be read are passed
// over.
func Uses(project string, is func(installer.Entry) bool) ([]Use, error) {
	env, err := installer.OSEnv(project)
	if err != nil {
		return nil, err
	}
	state, err := env.StateDir()
	if err != nil {
		return nil, err
	}
	var uses []Use
	for _, cl := range installer.Assistants() {
		for _, s := range cl.Scopes() {
			t, err := cl.Target(env, s)
			if err != nil {
				continue
			}
			regs, _, err := t.Servers(state)
			if err != nil {
				continue
			}
			for _, r := range regs {
				if is(r.Entry) {
					uses = append(uses, Use{Client: cl.Name, Scope: string(s), File: t.File, Entry: r.Entry})
				}
			}
		}
	}
	return uses, nil
}

// installedAs returns the record of the install e comes from, if any.
func installedAs(records []*installed.Record, e installer.Entry) *installed.Record {
	for _, r := range records {
		if r.Name == e.Name && (e.Command == r.Command || installed.Uses(r.Dir, e.Command, e.Args)) {
			return r
		}
	}
	return nil
}

// offerPurge deletes the files "mcpship add" installed for the server
// name once no config file refers to them: with --purge, or if the user
// says yes on a terminal; otherwise it says how.
func offerPurge(c *cli.Context, name string) error {
	root, err := installed.Root()
	if err != nil {
		return nil // no install to offer
	}
	r, err := installed.Load(root, name)
	if err != nil {
		return err
	}
	if r == nil {
		return purgeLeftovers(c, root, name)
	}
	unlock, err := installed.Lock(root)
	if err != nil {
		return fmt.Errorf("locking %s against an add: %w", root, err)
	}
	defer unlock()
	// Any entry that runs a version of the server's, not only the one
	// recorded, keeps its files.
	where := filepath.Join(root, name)
	uses, err := Uses(c.String("project"), func(e installer.Entry) bool {
		return installedAs([]*installed.Record{r}, e) != nil || installed.Uses(where, e.Command, e.Args)
	})
	if err != nil {
		return err
	}
	if len(uses) > 0 {
		var in []string
		for _, u := range uses {
			in = append(in, u.Client+" "+u.Scope)
		}
		fmt.Fprintf(c.App.Writer, "%s's files stay in %s: it is still registered with %s\n", name, where, strings.Join(in, ", "))
		return nil
	}
	purge := c.Bool("purge")
	if !purge && r.Dir != "" {
		if !isTerminal(c.App.Reader) {
			fmt.Fprintf(c.App.Writer, "%s's files stay in %s; delete them with '%s remove --name %s --purge'\n", name, where, c.App.Name, name)
			return nil
		}
		fmt.Fprintf(c.App.ErrWriter, "Delete %s (%s)? [y/N] ", where, r.From())
		line, _ := bufio.NewReader(c.App.Reader).ReadString('\n')
		purge = strings.EqualFold(strings.TrimSpace(line), "y") || strings.EqualFold(strings.TrimSpace(line), "yes")
	}
	if !purge && r.Dir != "" {
		return nil
	}
	if err := installed.Delete(root, name); err != nil {
		return fmt.Errorf("deleting %s: %w", where, err)
	}
	if r.Dir != "" {
		fmt.Fprintf(c.App.Writer, "deleted %s\n", where)
	}
	return nil
}

// purgeLeftovers deletes, with --purge, what adds of the server name that
// were stopped left without a record (a folder unpacked, or being
// unpacked), unless an entry still runs it; without --purge it says how.
func purgeLeftovers(c *cli.Context, root, name string) error {
	where := filepath.Join(root, name)
	if _, err := os.Lstat(where); err != nil || installed.CheckName("server name", name) != nil {
		return nil // nothing there
	}
	if !c.Bool("purge") {
		fmt.Fprintf(c.App.Writer, "%s holds files of %s but no record of an install (an add that was stopped?); delete them with '%s remove --name %s --purge'\n",
			where, name, c.App.Name, name)
		return nil
	}
	unlock, err := installed.Lock(root)
	if err != nil {
		return fmt.Errorf("locking %s against an add: %w", root, err)
	}
	defer unlock()
	uses, err := Uses(c.String("project"), func(e installer.Entry) bool { return installed.Uses(where, e.Command, e.Args) })
	if err != nil {
		return err
	}
	removed, err := installed.Sweep(root, name, func(dir string) bool {
		return slices.ContainsFunc(uses, func(u Use) bool { return installed.Uses(dir, u.Entry.Command, u.Entry.Args) })
	})
	for _, d := range removed {
		fmt.Fprintf(c.App.Writer, "deleted %s, which an add that was stopped left\n", d)
	}
	if err != nil {
		return fmt.Errorf("deleting what an add that was stopped left in %s: %w", where, err)
	}
	if _, serr := os.Lstat(where); serr == nil {
		var in []string
		for _, u := range uses {
			in = append(in, u.Client+" "+u.Scope)
		}
		why := "it holds files mcpship did not unpack"
		if len(in) > 0 {
			why = "it is still registered with " + strings.Join(in, ", ")
		}
		return fmt.Errorf("%s has no record of an install and stays: %s; delete it yourself if it is not wanted", where, why)
	}
	return nil
}

// isTerminal reports whether r is a terminal, to ask on.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// installedScope makes the scope that "mcpship add" wrote name's entries
// in the default of --scope.
func installedScope(c *cli.Context, name string) error {
	if c.IsSet("scope") {
		return nil
	}
	root, err := installed.Root()
	if err != nil {
		return nil
	}
	if r, _ := installed.Load(root, name); r != nil && r.Scope != "" {
		return c.Set("scope", r.Scope)
	}
	return nil
}
