package registercmd_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/registercmd"
)

// The registration commands of an app whose "mcp" subcommand serves its
// tools, with --allow-write passed on to it: "wc init --allow-write"
// registers "wc mcp --allow-write".
func ExampleCommands() {
	app := &cli.App{Name: "wc"}
	app.Commands = append(app.Commands, registercmd.Commands(registercmd.Program{
		Args:  []string{"mcp"},
		Flags: []registercmd.Flag{{Name: "allow-write", Bool: true, Usage: "register 'wc mcp --allow-write'"}},
	})...)
	for _, c := range app.Commands {
		fmt.Println(c.Name)
		for _, f := range c.Flags {
			if f.Names()[0] == "allow-write" {
				fmt.Printf("  --allow-write: %s\n", f.(*cli.BoolFlag).Usage)
			}
		}
	}
	// Output:
	// init
	//   --allow-write: register 'wc mcp --allow-write'
	// remove
	// doctor
}

// Run is for a program on another command-line package: it parses the
// arguments itself, and a mistake in them is an error whose ExitCode
// method returns 64.
func ExampleRun() {
	p := registercmd.Program{Args: []string{"mcp"}}
	err := registercmd.Run(context.Background(), p, "wc", "remove", []string{"--scope", "everywhere"}, os.Stdout, os.Stdout)
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		fmt.Printf("exit %d: %v\n", ec.ExitCode(), err)
	}
	// Output:
	// exit 64: --scope "everywhere": want project, user or local
}
