// Command mcpship serves command-line tools as MCP tools over stdio and
// registers that server with AI assistants.
//
// Run "mcpship help" for the commands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/addcmd"
	"github.com/mcpship/mcpship/internal/clihelp"
	"github.com/mcpship/mcpship/release"
)

// Exit codes, after BSD sysexits.h.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 64 // EX_USAGE: the command line was wrong
)

// usagef returns a usage error: the caller's mistake on the command line,
// exit code 64. Every exit code goes through cli.Exit (a [cli.ExitCoder]);
// there is no other mechanism.
func usagef(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), exitUsage)
}

// usageError makes a flag parsing error a usage error, naming the flag
// as --NAME.
func usageError(_ *cli.Context, err error, _ bool) error {
	return clihelp.FlagError(err)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run executes the command line args and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newAppWith(stdin, stdout, stderr, commandsFor(args))
	if words, ok := completing(args); ok {
		setCompletion(app, words)
		if len(words) > 0 && words[len(words)-1] == "--" {
			args = append(slices.Clone(args[:len(args)-2]), completionFlag) // "--" begins a flag here, it ends none
		}
	} else if words != nil || len(args) > 1 && args[len(args)-1] == completionFlag {
		return exitOK // completing a server's command after "--": nothing to offer, nothing run
	}
	args = interspersed(app, args)
	// serve tells "--" with nothing after it from no "--" at all.
	app.Metadata = map[string]any{"dashes": slices.Contains(args, "--")}
	err := app.Run(args)
	if err == nil {
		return exitOK
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "mcpship: %s\n", msg)
	}
	code := exitCode(err)
	if code == exitUsage {
		fmt.Fprintln(stderr, "Run 'mcpship help' for usage.")
	}
	return code
}

// exitCode maps an error returned by the app to the process exit code.
func exitCode(err error) int {
	var ec cli.ExitCoder
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ec):
		return ec.ExitCode()
	}
	return exitFailure
}

func init() {
	cli.FlagStringer = clihelp.FlagString // one help style for every command
	cli.VersionPrinter = func(c *cli.Context) {
		fmt.Fprintln(c.App.Writer, release.Current().String())
	}
}

// commandsFor returns the commands to build for args: every command, or
// serve alone when args run it. An assistant starts serve for every
// session, and what serve shows (its help, errors and completions) never
// names the other commands, so their flags are not built for it.
func commandsFor(args []string) []*cli.Command {
	if len(args) > 1 && args[1] == "serve" {
		return []*cli.Command{serveCommand()}
	}
	return append([]*cli.Command{
		serveCommand(),
		manifestCommand(),
		wrapCommand(),
		versionCommand(),
		addcmd.Command(),
		linksCommand(),
		packCommand(),
	}, registerCommands()...)
}

// newAppWith builds the app with only the given commands. serve's
// in-process tools call it afresh for every call (see cliadapter) with
// just the commands they serve, so it must not touch globals.
func newAppWith(stdin io.Reader, stdout, stderr io.Writer, cmds []*cli.Command) *cli.App {
	return &cli.App{
		Name:    "mcpship",
		Usage:   "ship a command-line tool as an MCP server and register it with AI assistants",
		Version: release.Current().Version,
		Reader:  stdin,
		Writer:  stdout,
		// The scripts of "mcpship completion" ask for completions with
		// --generate-bash-completion.
		EnableBashCompletion: true,
		ErrWriter:            stderr,
		// Errors are printed once, by run, with the right exit code.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   usageError,
		// A value is one value: a --manifest path or an --allow-origin
		// may hold a comma, and repeating the flag gives more.
		DisableSliceFlagSeparator: true,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("unknown command %q", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		Commands: cmds,
	}
}
