package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/manifest"
	"github.com/mcpship/mcpship/mcp"
)

func manifestCommand() *cli.Command {
	return &cli.Command{
		Name:  "manifest",
		Usage: "work with manifests: JSON files that declare command-line programs as tools",
		Subcommands: []*cli.Command{{
			Name:      "check",
			Usage:     "check manifests and report every problem with its place",
			ArgsUsage: "FILE...",
			Description: "Prints FILE:LINE:COL: JSON.PATH: MESSAGE for each problem on standard error and\n" +
				"exits 1 when any manifest is invalid; prints a line per valid manifest on standard output.\n" +
				"Programs not found on this machine's PATH are reported as warnings.\n" +
				"The format is described in docs/manifest.md.",
			OnUsageError: usageError,
			Action:       checkManifests,
		}},
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("unknown manifest command %q", c.Args().First())
			}
			return cli.ShowSubcommandHelp(c)
		},
	}
}

func checkManifests(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("manifest check needs at least one FILE")
	}
	bad := 0
	for _, file := range c.Args().Slice() {
		m, err := manifest.Load(file)
		if err != nil {
			bad++
			fmt.Fprintln(c.App.ErrWriter, err)
			continue
		}
		if w := m.Warnings(); w != nil {
			fmt.Fprintln(c.App.ErrWriter, w)
		}
		names := m.ToolNames()
		fmt.Fprintf(c.App.Writer, "%s: ok, %s: %s\n", file, plural(len(names), "tool"), strings.Join(names, ", "))
	}
	if bad > 0 {
		return cli.Exit(fmt.Sprintf("%d of %d manifests are invalid", bad, c.NArg()), exitFailure)
	}
	return nil
}

// loadManifests loads the manifests given to serve and applies the --set
// defaults. Every problem is a usage error: serve must not start.
func loadManifests(files, sets []string) ([]*manifest.Manifest, error) {
	var ms []*manifest.Manifest
	var msgs []string
	for _, file := range files {
		m, err := manifest.Load(file)
		var probs *manifest.Problems
		switch {
		case errors.As(err, &probs):
			msgs = append(msgs, fmt.Sprintf("invalid manifest %s (%s; run 'mcpship manifest check %s'):\n%v", file, plural(len(probs.List), "problem"), file, err))
		case err != nil:
			msgs = append(msgs, err.Error())
		default:
			ms = append(ms, m)
		}
	}
	if len(msgs) > 0 {
		return nil, usagef("%s", strings.Join(msgs, "\n"))
	}
	for _, set := range sets {
		name, value, ok := strings.Cut(set, "=")
		if !ok || name == "" {
			return nil, usagef("--set %q: write it as INPUT=VALUE or TOOL.INPUT=VALUE", set)
		}
		n := 0
		for _, m := range ms {
			k, err := m.SetDefault(name, value)
			if err != nil {
				return nil, usagef("%v", err)
			}
			n += k
		}
		if n == 0 {
			return nil, usagef("--set %s: no tool has an input named %q; see the manifest's \"inputs\"", set, name)
		}
	}
	return ms, nil
}

func addManifestTools(srv *mcp.Server, ms []*manifest.Manifest) error {
	for _, m := range ms {
		if err := m.AddTools(srv); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}

// listFlag is a repeatable flag whose values are never split on commas.
type listFlag []string

// Set implements flag.Value: each use of the flag adds one value.
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// String implements flag.Value.
func (l *listFlag) String() string { return strings.Join(*l, " ") }

// oneFlag is a flag given at most once: a second value is a usage error
// instead of replacing the first without a word. why says what to do.
type oneFlag struct {
	value, why string
	set        bool
}

// Set implements flag.Value.
func (o *oneFlag) Set(v string) error {
	if o.set {
		return fmt.Errorf("given twice (%q, then %q): %s", o.value, v, o.why)
	}
	o.value, o.set = v, true
	return nil
}

// String implements flag.Value.
func (o *oneFlag) String() string { return o.value }
