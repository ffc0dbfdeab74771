package register

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
)

// Run runs one of the commands [Commands] returns, "init", "remove" or
// "doctor", for a program built on another command-line package, such as
// Cobra or urfave/cli v3 (packages cobraadapter and cliv3adapter do this
// for their apps). args are the arguments that follow the command's name;
// Run parses them itself, and "--help" prints the command's help. prog is
// the program's name in messages, and the default of p.Name. Output goes
// to stdout and stderr; the error, if any, is for the program to print,
// and its ExitCode method, when it has one, gives the exit status (64 for
// a mistake on the command line).
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
