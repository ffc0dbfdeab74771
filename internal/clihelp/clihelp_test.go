package clihelp

import (
	"errors"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

func TestFlagError(t *testing.T) {
	for in, want := range map[string]string{
		"flag provided but not defined: -frob":                  "flag provided but not defined: --frob",
		"flag provided but not defined: -x":                     "flag provided but not defined: -x",
		"flag needs an argument: -client":                       "flag needs an argument: --client",
		`invalid value "-5s -a" for flag -timeout: parse error`: `invalid value "-5s -a" for flag --timeout: parse error`,
		`invalid boolean value "maybe" for -json: parse error`:  `invalid boolean value "maybe" for --json: parse error`,
		`Required flag "name" not set`:                          `Required flag "name" not set`,
	} {
		err := FlagError(errors.New(in))
		var ec cli.ExitCoder
		if !errors.As(err, &ec) || ec.ExitCode() != 64 || err.Error() != want {
			t.Errorf("FlagError(%q) = %q (%v), want %q, exit 64", in, err, err, want)
		}
	}
}

func TestFlagString(t *testing.T) {
	for _, c := range []struct {
		f    cli.Flag
		want string
	}{
		{&cli.StringFlag{Name: "client", Value: "claude-code", Usage: "assistants"}, "--client CLIENT\tassistants (default: \"claude-code\")"},
		{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE`"}, "--output FILE, -o FILE\twrite to FILE"},
		{&cli.StringFlag{Name: "transport", Usage: "only `stdio` today"}, "--transport TRANSPORT\tonly stdio today"},
		{&cli.BoolFlag{Name: "force", Usage: "overwrite"}, "--force\toverwrite"},
		{&cli.DurationFlag{Name: "timeout", Value: time.Second, Usage: "time"}, "--timeout DURATION\ttime (default: 1s)"},
		{&cli.IntFlag{Name: "parallel", Value: 4, Usage: "at once"}, "--parallel N\tat once (default: 4)"},
		{&cli.StringSliceFlag{Name: "allow", Usage: "draft `COMMAND`"}, "--allow COMMAND\tdraft COMMAND (repeatable)"},
		{&cli.StringSliceFlag{Name: "secret", Usage: "keep `NAME` secret (repeatable)"}, "--secret NAME\tkeep NAME secret (repeatable)"},
		{&cli.StringFlag{Name: "go-package", Usage: "the package"}, "--go-package GO_PACKAGE\tthe package"},
	} {
		if got := FlagString(c.f); got != c.want {
			t.Errorf("FlagString(%s) = %q, want %q", c.f.Names()[0], got, c.want)
		}
	}
}
