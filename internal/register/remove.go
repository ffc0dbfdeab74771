package register

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
)

// Remove returns the "remove" command, which takes the server registered
// as p's name (or --name) out of assistants' config files.
func Remove(p Program) *cli.Command {
	return Styled(&cli.Command{
		Name:      "remove",
		Usage:     "remove a server from AI assistants' config files",
		ArgsUsage: " ",
		Flags: append([]cli.Flag{
			clientFlag(p.Name, "to remove it from"),
			scopeFlag(),
			p.nameFlag(),
			&cli.BoolFlag{Name: "dry-run", Usage: "print the diff and write nothing"},
			&cli.BoolFlag{Name: "purge", Usage: "also delete the files 'mcpship add' installed for the server, without asking"},
		}, CommonFlags()...),
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if err := NoArgs(c); err != nil {
				return err
			}
			name := p.ServerName(c)
			if err := installedScope(c, name); err != nil {
				return err
			}
			tt := TargetsFrom(c)
			_, o, targets, err := setup(tt)
			if err != nil {
				return err
			}
			err = each(tt, targets, name, nil, func(t *installer.Target) (*installer.Change, error) { return t.Remove(name, o) })
			if err != nil || o.DryRun {
				return err
			}
			return offerPurge(c, name)
		},
	})
}

// Restore returns the "restore" command, which puts back a config file
// from one of the backups that init, remove and restore take.
func Restore() *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Usage:     "put back a config file from one of mcpship's backups",
		ArgsUsage: " ",
		Description: "Lists the backups of the file, newest first, and restores --backup or else the newest,\n" +
			"after backing up the file as it is now.",
		Flags: append([]cli.Flag{
			clientFlag("mcpship", "whose files to restore"), // the backups are mcpship's
			scopeFlag(),
			&cli.StringFlag{Name: "backup", Usage: "backup file to restore (default: the newest)"},
			&cli.BoolFlag{Name: "force", Usage: "restore a backup that does not parse or was taken of another file; write a read-only file"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the diff and write nothing"},
		}, CommonFlags()...),
		OnUsageError: onUsageError,
		Action:       runRestore,
	}
}

func runRestore(c *cli.Context) error {
	if err := NoArgs(c); err != nil {
		return err
	}
	tt := TargetsFrom(c)
	_, o, targets, err := setup(tt)
	if err != nil {
		return err
	}
	return each(tt, targets, "", nil, func(t *installer.Target) (*installer.Change, error) {
		if !c.Bool("json") {
			bs, err := t.Backups(o.StateDir)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(c.App.Writer, "backups of %s, newest first:\n", t.File)
			for _, b := range bs {
				fmt.Fprintf(c.App.Writer, "  %s\n", b.Path)
			}
			if len(bs) == 0 {
				fmt.Fprintln(c.App.Writer, "  (none)")
			}
		}
		return t.Restore(c.String("backup"), o)
	})
}
