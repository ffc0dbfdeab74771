package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed returns args with the flags of the command they run moved
// before the command's positional arguments, keeping their order, so
// that "mcpship add SOURCE --client cursor" reads as "mcpship add
// --client cursor SOURCE": urfave/cli v2 stops reading flags at the first
// argument. A flag that takes a value keeps the word after it (unless
// written --flag=value). Everything from "--" on stays as it is, and so
// does a command line that asks for shell completions. With --help
// among the flags, the arguments are dropped: the command's help is
// shown, whatever it was given.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 || args[len(args)-1] == "--generate-bash-completion" {
		return args
	}
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		i++ // the app's own flags (--help, --version) take no value
	}
	if i == len(args) {
		return args
	}
	cmd := app.Command(args[i])
	for cmd != nil && i+1 < len(args) && subcommand(cmd, args[i+1]) != nil {
		i++
		cmd = subcommand(cmd, args[i])
	}
	i++
	if cmd == nil || cmd.SkipFlagParsing || i == len(args) {
		return args // nothing to move
	}
	if slices.Contains(inOrder, cmd.Name) {
		for _, a := range args[i:] {
			if a == "--" {
				break
			}
			if slices.Contains(cli.HelpFlag.Names(), strings.TrimLeft(a, "-")) && strings.HasPrefix(a, "-") {
				return append(slices.Clone(args[:i]), "--help")
			}
		}
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range append([]cli.Flag{cli.HelpFlag}, cmd.Flags...) {
		tv, ok := f.(cli.DocGenerationFlag)
		for _, n := range f.Names() {
			takesValue[n] = ok && tv.TakesValue()
		}
	}
	var flags, positional []string
	for j := i; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "--":
			positional = append(positional, args[j:]...)
			j = len(args)
		case a == "-" || !strings.HasPrefix(a, "-"):
			positional = append(positional, a)
		default:
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && j+1 < len(args) {
				j++
				flags = append(flags, args[j])
			}
		}
	}
	out := append(append([]string(nil), args[:i]...), flags...)
	for _, f := range flags {
		if slices.Contains(cli.HelpFlag.Names(), strings.TrimLeft(f, "-")) {
			return out // help for the command, not for a topic named by its arguments
		}
	}
	return append(out, positional...)
}

// inOrder are the commands whose flags go before their positional
// arguments, which are left where they are: call's flags go before TOOL
// (docs/tools.md), so that one after it is refused rather than moved.
// --help among the arguments still shows the command's help.
var inOrder = []string{"call"}

func subcommand(cmd *cli.Command, name string) *cli.Command {
	for _, sub := range cmd.Subcommands {
		if sub.HasName(name) {
			return sub
		}
	}
	return nil
}
