// Package clihelp is the one style of help and usage errors of mcpship's
// commands, which are urfave/cli v2 commands: a flag that takes a value
// shows an upper-case placeholder of what it takes (FILE, DIR, N,
// DURATION), a repeatable flag is written once and says "(repeatable)",
// and a mistake on the command line is an error with exit code 64 that
// names a flag as it is written, --frob (the flag package says -frob).
package clihelp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/clitool"
)

// ExitUsage is the exit code of a usage error (EX_USAGE of BSD's
// sysexits.h).
const ExitUsage = 64

// FlagError returns err, an error of parsing flags, as a usage error
// (exit code [ExitUsage]) that writes a long flag --NAME, as mcpship's
// help does, not -NAME.
func FlagError(err error) error {
	return cli.Exit(clitool.LongFlags(err.Error()), ExitUsage)
}

// OnUsageError is [FlagError] as a command's OnUsageError.
func OnUsageError(_ *cli.Context, err error, _ bool) error { return FlagError(err) }

// placeholders name what a flag takes by the flag's name, the same for
// the same flag in every command. A flag not listed here shows its type
// (N, DURATION) or its name in upper case; one whose usage has a
// placeholder in back quotes shows that.
var placeholders = map[string]string{
	"backup":        "FILE",
	"client":        "CLIENT",
	"config":        "KEY=VALUE",
	"description":   "TEXT",
	"env":           "NAME=VALUE",
	"log-level":     "LEVEL",
	"manifest":      "FILE",
	"manifest-path": "PATH",
	"project":       "DIR",
	"registry":      "URL",
	"scope":         "SCOPE",
	"sha256":        "HEX",
	"transport":     "TRANSPORT",
}

// FlagString writes a flag in help, in place of urfave/cli's
// cli.FlagStringer: "--name PLACEHOLDER, -n PLACEHOLDER", a tab, then the
// usage with its default. A flag that can be given more than once is
// written once, its usage saying "(repeatable)"; a switch shows no
// "(default: false)".
func FlagString(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	ph, usage := unquote(df.GetUsage())
	if !df.TakesValue() {
		ph = ""
	} else if ph == "" || strings.ToUpper(ph) != ph {
		ph = placeholder(f)
	}
	if sf, ok := f.(cli.DocGenerationSliceFlag); ok && sf.IsSliceFlag() && !strings.Contains(usage, "(repeatable") {
		usage += " (repeatable)"
	}
	def := df.GetDefaultText()
	if _, isBool := f.(*cli.BoolFlag); isBool && def == "false" {
		def = ""
	}
	if def != "" {
		usage += " (default: " + def + ")"
	}
	var names []string
	for _, n := range f.Names() {
		dash := "--"
		if len(n) == 1 {
			dash = "-"
		}
		if ph != "" {
			n += " " + ph
		}
		names = append(names, dash+n)
	}
	return strings.Join(names, ", ") + "\t" + strings.TrimSpace(usage)
}

// placeholder is what f takes, when its usage does not say.
func placeholder(f cli.Flag) string {
	name := f.Names()[0]
	if p, ok := placeholders[name]; ok {
		return p
	}
	switch f.(type) {
	case *cli.DurationFlag:
		return "DURATION"
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.Float64Flag:
		return "N"
	}
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// unquote returns the placeholder in back quotes in usage, and usage
// without the quotes, as urfave/cli reads it.
func unquote(usage string) (string, string) {
	i := strings.IndexByte(usage, '`')
	if i < 0 {
		return "", usage
	}
	j := strings.IndexByte(usage[i+1:], '`')
	if j < 0 {
		return "", usage
	}
	name := usage[i+1 : i+1+j]
	return name, usage[:i] + name + usage[i+1+j+1:]
}

// CommandHelpTemplate returns urfave/cli's command help template with the
// flags cmd has now written in this style, its --help flag last (unless
// cmd.HideHelp): the help of a command that runs in an app that does not
// set cli.FlagStringer to [FlagString], as mcpship does for all of its
// own.
func CommandHelpTemplate(cmd *cli.Command) string {
	tmpl := cli.CommandHelpTemplate
	i := strings.Index(tmpl, "{{if .VisibleFlagCategories}}")
	if i < 0 {
		return "" // a template of another shape: urfave/cli's own help
	}
	flags := cmd.VisibleFlags()
	if !cmd.HideHelp && cli.HelpFlag != nil && !slices.ContainsFunc(flags, func(f cli.Flag) bool { return f.Names()[0] == cli.HelpFlag.Names()[0] }) {
		flags = append(flags, cli.HelpFlag)
	}
	if len(flags) == 0 {
		return tmpl[:i] + "\n"
	}
	var b strings.Builder
	b.WriteString(tmpl[:i] + "\n\nOPTIONS:")
	for _, f := range flags {
		fmt.Fprintf(&b, "\n   {{%s}}", strconv.Quote(FlagString(f)))
	}
	b.WriteString("\n")
	return b.String()
}
