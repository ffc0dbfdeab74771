package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/atomicfile"
	"github.com/mcpship/mcpship/internal/wrap"
)

func wrapCommand() *cli.Command {
	return &cli.Command{
		Name:      "wrap",
		Usage:     "draft a manifest from a program's own --help",
		ArgsUsage: "-- PROGRAM [SUBCOMMAND...]",
		Description: "Runs PROGRAM --help (then -h, then help) directly, never through a shell, with stdin\n" +
			"closed and a timeout, reads the help of its subcommands too, and writes a manifest with one\n" +
			"tool per command: flags become typed inputs, positional arguments inputs after \"--\".\n" +
			"A tool is read-only only when its help says it only reads; every other tool is drafted as\n" +
			"\"readOnly\": false and listed for review. Commands that do not return (servers, shells) or run\n" +
			"what they are given, and inputs that take code or commands, are left out and listed; --allow\n" +
			"adds them. It prints what it recognised, what it guessed and what it could not read; the\n" +
			"draft is a draft: check it, then try it with mcpship serve.\n" +
			"Nothing is written when the program is not found, its help cannot be read, or FILE exists\n" +
			"(unless --force). docs/wrap.md describes what each help layout gives.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "mcpship.json", Usage: "write the manifest to `FILE`"},
			&cli.BoolFlag{Name: "force", Usage: "overwrite FILE if it exists"},
			&cli.StringSliceFlag{Name: "allow", Usage: "draft the `COMMAND` (\"db migrate\") although it may not return or runs what it is given, and offer its inputs that run code or commands (repeatable)"},
			&cli.IntFlag{Name: "max-depth", Value: 3, Usage: "read subcommands this many levels deep"},
			&cli.IntFlag{Name: "max-runs", Value: 100, Usage: "run the program for help at most this many times"},
			&cli.DurationFlag{Name: "timeout", Value: wrapTimeout, Usage: "give each help run this long"},
			&cli.DurationFlag{Name: "total-time", Value: wrapTotal, Usage: "give all help runs together this long"},
		},
		OnUsageError: usageError,
		Action:       runWrap,
	}
}

const (
	wrapTimeout = 5e9  // 5s
	wrapTotal   = 60e9 // 60s
)

func runWrap(c *cli.Context) error {
	argv := c.Args().Slice()
	if len(argv) == 0 {
		return usagef("wrap needs a program: mcpship wrap -- PROGRAM [SUBCOMMAND...]")
	}
	for _, n := range []string{"max-depth", "max-runs"} {
		if c.Int(n) < 1 {
			return usagef("--%s must be at least 1, got %d", n, c.Int(n))
		}
	}
	for _, n := range []string{"timeout", "total-time"} {
		if c.Duration(n) <= 0 {
			return usagef("--%s must be positive, got %v", n, c.Duration(n))
		}
	}
	out := c.String("output")
	if _, err := os.Lstat(out); err == nil && !c.Bool("force") {
		return cli.Exit(fmt.Sprintf("%s exists; nothing was written. Give another file with -o, or --force to overwrite it", out), exitFailure)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return cli.Exit(fmt.Sprintf("cannot check %s: %v; nothing was written", out, err), exitFailure)
	}
	if fi, err := os.Stat(filepath.Dir(out)); err != nil || !fi.IsDir() {
		return cli.Exit(fmt.Sprintf("cannot write %s: directory %s does not exist; create it first. Nothing was written", out, filepath.Dir(out)), exitFailure)
	}
	res, err := wrap.Draft(c.Context, argv, wrap.Options{
		Allow:       c.StringSlice("allow"),
		MaxDepth:    c.Int("max-depth"),
		MaxRuns:     c.Int("max-runs"),
		Timeout:     c.Duration("timeout"),
		TotalTime:   c.Duration("total-time"),
		ManifestDir: filepath.Dir(out),
	})
	if err != nil {
		return cli.Exit(fmt.Sprintf("wrap %s: %v; nothing was written", strings.Join(argv, " "), err), exitFailure)
	}
	write := atomicfile.WriteNew
	if c.Bool("force") {
		write = atomicfile.Write
	}
	if err := write(out, res.Manifest, 0o644); errors.Is(err, fs.ErrExist) {
		return cli.Exit(fmt.Sprintf("%s appeared while drafting; nothing was written. Give --force to overwrite it", out), exitFailure)
	} else if err != nil {
		return cli.Exit(fmt.Sprintf("writing %s: %v; nothing was written", out, err), exitFailure)
	}
	report(c.App.ErrWriter, res)
	fmt.Fprintf(c.App.Writer, "%s: drafted %s: %s\n", out, plural(len(res.Tools), "tool"), strings.Join(res.Tools, ", "))
	fmt.Fprintf(c.App.Writer, "next: read it, then try it: mcpship tools -- mcpship serve --manifest %s\n", out)
	return nil
}

// report prints what the draft recognised, guessed, could not read and
// left out, on standard error.
func report(w io.Writer, res *wrap.Result) {
	for _, part := range []struct {
		title string
		lines []string
	}{
		{"recognised", res.Recognised},
		{"guessed (check these)", res.Guessed},
		{"could not read", res.Unread},
		{"drafted as not read-only: review", res.Review},
		{"left out (may not return, run code or commands, or write in a read-only tool)", res.LeftOut},
	} {
		if len(part.lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", part.title)
		for _, l := range part.lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}
