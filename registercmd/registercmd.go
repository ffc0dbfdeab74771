// Package registercmd gives a program that serves its own commands over
// MCP the commands that register it with AI assistants: init, which adds
// it to an assistant's config file, remove, which takes it out again, and
// doctor, which starts it as the assistant would and checks that it
// answers. An app on urfave/cli v2 (see package
// [github.com/mcpship/mcpship/cliadapter]) adds them with [Commands]; a
// program on another command-line package, such as Cobra or urfave/cli
// v3, runs them with [Run].
//
// Every change to a config file keeps the rest of the file byte for byte,
// takes a backup first, and --dry-run prints the diff instead. Mistakes on
// the command line are errors whose ExitCode method returns 64 (EX_USAGE);
// other failures are plain errors, exit code 1 by convention.
package registercmd

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/probe"
	"github.com/mcpship/mcpship/internal/register"
)

// A Program is the MCP server that init registers: the running program's
// own binary, run with Args, which serves MCP over stdio.
type Program struct {
	// Name is the server's name in the config files (the default of
	// --name) and the program's name in help, where --client then points
	// to "NAME list". Default: the app's name, found when a command runs.
	Name string
	// Args follow the program's path in the registered command, such as
	// ["mcp"] or ["serve"].
	Args []string
	// Flags are more flags of init, for the registered program, such as
	// --allow-write. They cannot be used with a command after "--".
	Flags []Flag
	// FlagArgs, if set, returns the arguments that follow Args in the
	// entry init writes to dest. flags holds the value of each of Flags
	// given on init's command line, by name ("true" or "false" for a
	// [Flag.Bool] flag). An error whose ExitCode method returns 64 is a
	// mistake on the command line. Default: each flag in flags, passed on
	// as --NAME for a Bool flag that is true, else as --NAME=VALUE.
	FlagArgs func(dest Dest, flags map[string]string) ([]string, error)
}

// A Flag is a flag of init that is passed on to the registered program
// (see [Program.FlagArgs]).
type Flag struct {
	Name  string // without the dashes, such as "allow-write"
	Usage string // help text
	Bool  bool   // a switch, passed on as --NAME; otherwise it takes a value, passed on as --NAME=VALUE
}

// A Dest is a config file that init registers a [Program] in: one
// assistant's, in one scope.
type Dest struct {
	Client  string // the assistant, as --client names it, such as "claude-code"
	Scope   string // "project", "user" or "local"
	Project string // absolute directory of the project
}

// Commands returns [Init], [Remove] and [Doctor] for p: what an app that
// serves its own commands over MCP adds to itself to register its server,
// take it out again and check it answers. For a server with
// --allow-write:
//
//	app.Commands = append(app.Commands, registercmd.Commands(registercmd.Program{
//		Args:  []string{"mcp"},
//		Flags: []registercmd.Flag{{Name: "allow-write", Bool: true, Usage: "register 'mcp --allow-write'"}},
//	})...)
func Commands(p Program) []*cli.Command {
	return []*cli.Command{Init(p), Remove(p), Doctor(p)}
}

// Init returns the "init" command, which registers p with AI assistants:
// by default for Claude Code in the project, as the absolute path of the
// running binary followed by p.Args and the arguments of [Program.FlagArgs].
// After "--", it registers any stdio server command instead.
func Init(p Program) *cli.Command { return register.Init(p.engine()) }

// Remove returns the "remove" command, which takes the server registered
// under p's name (or --name) out of assistants' config files.
func Remove(p Program) *cli.Command { return register.Remove(p.engine()) }

// Doctor returns the "doctor" command, which starts the server registered
// under p's name (or --name) as the assistants would and checks that it
// answers.
func Doctor(p Program) *cli.Command {
	e := p.engine()
	return probe.Doctor(&e)
}

// Run runs one of the commands [Commands] returns, "init", "remove" or
// "doctor", for a program built on another command-line package, such as
// Cobra or urfave/cli v3 (packages
// [github.com/mcpship/mcpship/cobraadapter] and
// [github.com/mcpship/mcpship/cliv3adapter] do this for their apps). args
// are the arguments that follow the command's name; Run parses them
// itself, and "--help" prints the command's help. prog is the program's
// name in messages, and the default of p.Name. Output goes to stdout and
// stderr; the error, if any, is for the program to print, and its
// ExitCode method, when it has one, gives the exit status (64 for a
// mistake on the command line).
func Run(ctx context.Context, p Program, prog, command string, args []string, stdout, stderr io.Writer) error {
	cmds := Commands(p)
	known := false
	for _, c := range cmds {
		known = known || c.Name == command
	}
	if !known {
		return fmt.Errorf("registercmd.Run: no command %q; want init, remove or doctor", command)
	}
	app := &cli.App{
		Name:            prog,
		Commands:        cmds,
		Reader:          os.Stdin,
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		HideVersion:     true,
		ExitErrHandler:  func(*cli.Context, error) {}, // the caller reports it
	}
	return app.RunContext(ctx, append([]string{prog, command}, args...))
}

// engine converts p into the program of the registration engine, whose
// flags are urfave/cli's.
func (p Program) engine() register.Program {
	e := register.Program{Name: p.Name, Args: p.Args}
	for _, f := range p.Flags {
		if f.Bool {
			e.Flags = append(e.Flags, &cli.BoolFlag{Name: f.Name, Usage: f.Usage})
		} else {
			e.Flags = append(e.Flags, &cli.StringFlag{Name: f.Name, Usage: f.Usage})
		}
	}
	if p.FlagArgs != nil {
		e.FlagArgs = func(c *cli.Context, d register.Dest) ([]string, error) {
			set := map[string]string{}
			for _, f := range p.Flags {
				if c.IsSet(f.Name) {
					set[f.Name] = fmt.Sprint(c.Value(f.Name))
				}
			}
			return p.FlagArgs(Dest{Client: d.Client, Scope: d.Scope, Project: d.Project}, set)
		}
	}
	return e
}
