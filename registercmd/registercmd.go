// Package registercmd gives a urfave/cli/v2 app that serves its own
// commands over MCP (see package cliadapter) the commands that register
// it with AI assistants: init, remove and doctor, from [Commands]. A
// program on another framework (Cobra, urfave/cli v3) runs the same three
// with [Run].
//
// Every change to a config file keeps the rest of the file byte for byte,
// takes a backup first, and --dry-run prints the diff instead. Mistakes on
// the command line are errors that carry exit code 64 (EX_USAGE); other
// failures are plain errors, exit code 1 by convention.
package registercmd

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/register"
)

// A Program is the server that init registers: this program, run with
// Args, which serves MCP over stdio.
type Program = register.Program

// A Dest is a config file init registers a program in.
type Dest = register.Dest

// Commands returns init, remove and doctor for p: what a program that
// serves its own commands over MCP adds to itself to register its
// server, take it out again and check it answers.
func Commands(p Program) []*cli.Command { return register.Commands(p) }

// Init returns the "init" command, which registers p with AI assistants.
func Init(p Program) *cli.Command { return register.Init(p) }

// Remove returns the "remove" command, which takes p out again.
func Remove(p Program) *cli.Command { return register.Remove(p) }

// Doctor returns the "doctor" command, which checks that p answers.
func Doctor(p *Program) *cli.Command { return register.Doctor(p) }

// Run runs one of the commands [Commands] returns, "init", "remove" or
// "doctor", for a program built on another command-line package.
func Run(ctx context.Context, p Program, prog, command string, args []string, stdout, stderr io.Writer) error {
	return register.Run(ctx, p, prog, command, args, stdout, stderr)
}
