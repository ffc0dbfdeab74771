package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/pack"
)

func packCommand() *cli.Command {
	return &cli.Command{
		Name:  "pack",
		Usage: "make MCP Bundles (.mcpb) that install the server in one step, one per platform",
		Description: "Writes OUT/NAME_VERSION_OS_ARCH.mcpb for each platform: mcpship and the manifest (--manifest),\n" +
			"or a program that serves its own tools (--app), with the tools listed, the session defaults\n" +
			"(--set) and environment variables (--env, and the manifest's passEnv) as settings the user fills\n" +
			"in when installing; names with KEY, TOKEN, SECRET, PASSWORD... (and --secret) are kept secret.\n" +
			"macOS gets one bundle with a universal (arm64 + amd64) binary; Linux and Windows one per CPU.\n" +
			"The binaries come from a GoReleaser dist directory (--dist), from release archives checked\n" +
			"against their checksums.txt (--release), from files (--binary), or are this mcpship (the default,\n" +
			"for this machine only). Nothing is written unless every bundle can be made.\n" +
			"With a GitHub --repository it also writes the MCP Registry's server.json; --claude-plugin and\n" +
			"--gemini-extension write a Claude Code plugin and a Gemini CLI extension.\n" +
			"docs/publish.md describes the bundles and a GoReleaser recipe.",
		ArgsUsage: " ",
		Flags: append([]cli.Flag{
			&cli.GenericFlag{Name: "manifest", Value: &oneFlag{why: "a bundle serves one manifest; merge their tools into one, or pack each on its own"},
				Usage: "bundle mcpship serving the tools `FILE` declares"},
			&cli.StringFlag{Name: "app", Usage: "bundle the program `NAME` instead, which serves its own tools (a cliadapter app)"},
			&cli.GenericFlag{Name: "app-arg", Value: &listFlag{}, Usage: "`ARG` that makes the app serve MCP over stdio (repeatable; default: mcp)"},
			&cli.StringFlag{Name: "out", Usage: "write the bundles into `DIR` (required)"},
			&cli.StringFlag{Name: "dist", Usage: "take the binaries from the GoReleaser dist `DIR` (ID_OS_ARCH directories)"},
			&cli.StringFlag{Name: "release", Usage: "take the binaries from the release archives in `DIR`, checked against its checksums.txt"},
			&cli.GenericFlag{Name: "binary", Value: &listFlag{}, Usage: "take the binary for a platform from a file: `OS/ARCH=FILE` (repeatable)"},
			&cli.StringFlag{Name: "name", Usage: "the bundle's name (default: the app's name, or the manifest's directory name)"},
			&cli.StringFlag{Name: "version", Usage: "the bundle's semantic version (required; default: --dist's metadata.json, the manifest's \"version\", or the git tag of HEAD)"},
			&cli.StringFlag{Name: "description", Usage: "one line saying what the tools do (required; default: the manifest's \"description\")"},
			&cli.StringFlag{Name: "author", Usage: "`\"NAME <EMAIL>\"` or NAME (required; default: the manifest's \"author\", or git config user.name and user.email)"},
			&cli.StringFlag{Name: "homepage", Usage: "`URL` of the project's page"},
			&cli.StringFlag{Name: "repository", Usage: "`URL` of the git repository"},
			&cli.StringFlag{Name: "license", Usage: "SPDX license `ID`"},
			&cli.StringFlag{Name: "icon", Usage: "PNG `FILE` shown by the host (512x512 recommended)"},
			&cli.GenericFlag{Name: "program", Value: &listFlag{}, Usage: "bundle the program a manifest command runs: `PROGRAM=PATTERN`, PATTERN a file relative to the manifest with {os}, {arch} and {exe} (repeatable)"},
			&cli.GenericFlag{Name: "set", Value: &listFlag{}, Usage: "a session default the user can change: `NAME=VALUE`, or NAME for one the user must give (repeatable)"},
			&cli.StringSliceFlag{Name: "env", Usage: "an environment `VAR` the user sets, given to the server (repeatable; the manifest's passEnv are added)"},
			&cli.StringSliceFlag{Name: "secret", Usage: "keep the setting or variable `NAME` secret (repeatable)"},
		}, publishFlags()...),
		OnUsageError: usageError,
		Action:       packAction,
	}
}

func packAction(c *cli.Context) error {
	o, err := packOptions(c)
	if err != nil {
		return err
	}
	distVersion, err := packBinaries(c, &o)
	if err != nil {
		return err
	}
	if o.Version == "" && distVersion != "" {
		o.Version = distVersion
		fmt.Fprintf(c.App.ErrWriter, "%s pack: note: version %q, from %s\n", c.App.Name, o.Version, filepath.Join(c.String("dist"), "metadata.json"))
	}
	for _, d := range pack.FillDefaults(&o) {
		fmt.Fprintf(c.App.ErrWriter, "%s pack: note: %s %q, from %s\n", c.App.Name, d.Field, d.Value, d.From)
	}
	if err := packRequired(o); err != nil {
		return err
	}
	if o.Name == "" {
		o.Name = pack.DefaultName(o)
	}
	pub, err := planPublication(c, o)
	if err != nil {
		return err
	}
	bundles, err := pack.Write(c.String("out"), o)
	if err != nil {
		return err
	}
	for _, b := range bundles {
		fmt.Fprintf(c.App.Writer, "%s\t%s\t%d bytes\tsha256:%s\n", b.File, b.Platform, b.Size, b.SHA256)
	}
	for _, b := range bundles {
		if b.Platform.OS == "darwin" && b.Platform.Arch != "all" {
			fmt.Fprintf(c.App.ErrWriter, "mcpship pack: warning: %s holds a macOS %s binary only, but a bundle cannot name a CPU: "+
				"it installs on every Mac and fails to start on the other CPU; build darwin/amd64 and darwin/arm64 to get one universal bundle\n",
				filepath.Base(b.File), b.Platform.Arch)
		}
	}
	return pub.write(c, bundles)
}

// packOptions reads pack's flags but for the binaries.
func packOptions(c *cli.Context) (pack.Options, error) {
	o := pack.Options{
		Manifest:    c.String("manifest"),
		App:         c.String("app"),
		AppArgs:     list(c, "app-arg"),
		Name:        c.String("name"),
		Version:     c.String("version"),
		Description: c.String("description"),
		Author:      c.String("author"),
		Homepage:    c.String("homepage"),
		Repository:  c.String("repository"),
		License:     c.String("license"),
		Icon:        c.String("icon"),
		Settings:    list(c, "set"),
		Env:         c.StringSlice("env"),
		Secrets:     c.StringSlice("secret"),
	}
	switch {
	case c.NArg() > 0:
		return o, usagef("pack takes no arguments, got %q", c.Args().First())
	case c.String("out") == "":
		return o, usagef("pack needs --out DIR, the directory to write the bundles into")
	case (o.Manifest == "") == (o.App == ""):
		return o, usagef("pack needs --manifest FILE or --app NAME (one of them)")
	}
	for _, p := range list(c, "program") {
		prog, pattern, ok := strings.Cut(p, "=")
		if !ok || prog == "" || pattern == "" {
			return o, usagef("--program %q: use PROGRAM=PATTERN", p)
		}
		if o.Programs == nil {
			o.Programs = map[string]string{}
		}
		o.Programs[prog] = pattern
	}
	return o, nil
}

// packRequired refuses o without a version, a description or an author,
// saying where each could come from.
func packRequired(o pack.Options) error {
	from := func(field, more string) string {
		if o.Manifest != "" {
			more += fmt.Sprintf(", or write %q in the manifest", field)
		}
		return more
	}
	switch {
	case o.Version == "":
		return usagef("--version is required: give it%s", from("version", ", tag the commit (git tag vX.Y.Z), or use --dist with GoReleaser's metadata.json"))
	case o.Description == "":
		return usagef("--description is required: give it%s", from("description", ""))
	case o.Author == "":
		return usagef("--author is required: give it%s", from("author", ", or set git config user.name"))
	}
	return nil
}

// packBinaries reads o's binaries from --dist, --release or --binary, or
// takes this mcpship's. It returns the version --dist's metadata.json
// records, if any.
func packBinaries(c *cli.Context, o *pack.Options) (string, error) {
	exe := "mcpship"
	if o.App != "" {
		exe = o.App
	}
	var err error
	sources := 0
	for _, f := range []string{"dist", "release", "binary"} {
		if c.IsSet(f) {
			sources++
		}
	}
	switch {
	case sources > 1:
		return "", usagef("give the binaries one way: --dist, --release or --binary")
	case c.IsSet("dist"):
		o.Binaries, err = pack.Dist(c.String("dist"), exe)
		if err == nil && o.Version == "" {
			version, verr := pack.DistVersion(c.String("dist"))
			if verr != nil {
				fmt.Fprintf(c.App.ErrWriter, "%s pack: note: %v\n", c.App.Name, verr)
			}
			return version, nil
		}
	case c.IsSet("release"):
		o.Binaries, err = pack.Release(c.String("release"), exe)
	case c.IsSet("binary"):
		paths := map[pack.Platform]string{}
		for _, b := range list(c, "binary") {
			plat, file, ok := strings.Cut(b, "=")
			p, perr := pack.ParsePlatform(plat)
			if !ok || perr != nil {
				return "", usagef("--binary %q: use OS/ARCH=FILE, such as linux/amd64=dist/mcpship", b)
			}
			paths[p] = file
		}
		o.Binaries, err = pack.Files(paths)
	case o.App != "":
		return "", usagef("--app needs the app's binaries: --dist, --release or --binary")
	default:
		o.Binaries, err = pack.Host()
	}
	return "", err
}

// list returns the values of a repeatable flag that keeps commas.
func list(c *cli.Context, name string) []string { return *c.Generic(name).(*listFlag) }
