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
			&cli.StringFlag{Name: "manifest", Usage: "bundle mcpship serving the tools `FILE` declares"},
			&cli.StringFlag{Name: "app", Usage: "bundle the program `NAME` instead, which serves its own tools (a cliadapter app)"},
			&cli.GenericFlag{Name: "app-arg", Value: &listFlag{}, Usage: "`ARG` that makes the app serve MCP over stdio (repeatable; default: mcp)"},
			&cli.StringFlag{Name: "out", Usage: "write the bundles into `DIR`", Required: true},
			&cli.StringFlag{Name: "dist", Usage: "take the binaries from the GoReleaser dist `DIR` (ID_OS_ARCH directories)"},
			&cli.StringFlag{Name: "release", Usage: "take the binaries from the release archives in `DIR`, checked against its checksums.txt"},
			&cli.GenericFlag{Name: "binary", Value: &listFlag{}, Usage: "take the binary for a platform from a file: `OS/ARCH=FILE` (repeatable)"},
			&cli.StringFlag{Name: "name", Usage: "the bundle's name (default: the app's name, or the manifest's directory name)"},
			&cli.StringFlag{Name: "version", Usage: "the bundle's semantic version (default: from the dist directory's metadata.json)"},
			&cli.StringFlag{Name: "description", Usage: "one line saying what the tools do", Required: true},
			&cli.StringFlag{Name: "author", Usage: "`\"NAME <EMAIL>\"` or NAME", Required: true},
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
	if c.NArg() > 0 {
		return usagef("pack takes no arguments, got %q", c.Args().First())
	}
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
	if (o.Manifest == "") == (o.App == "") {
		return usagef("pack needs --manifest FILE or --app NAME (one of them)")
	}
	for _, p := range list(c, "program") {
		prog, pattern, ok := strings.Cut(p, "=")
		if !ok || prog == "" || pattern == "" {
			return usagef("--program %q: use PROGRAM=PATTERN", p)
		}
		if o.Programs == nil {
			o.Programs = map[string]string{}
		}
		o.Programs[prog] = pattern
	}
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
		return usagef("give the binaries one way: --dist, --release or --binary")
	case c.IsSet("dist"):
		o.Binaries, err = pack.Dist(c.String("dist"), exe)
		if err == nil && o.Version == "" {
			o.Version, err = pack.DistVersion(c.String("dist"))
		}
	case c.IsSet("release"):
		o.Binaries, err = pack.Release(c.String("release"), exe)
	case c.IsSet("binary"):
		paths := map[pack.Platform]string{}
		for _, b := range list(c, "binary") {
			plat, file, ok := strings.Cut(b, "=")
			p, perr := pack.ParsePlatform(plat)
			if !ok || perr != nil {
				return usagef("--binary %q: use OS/ARCH=FILE, such as linux/amd64=dist/mcpship", b)
			}
			paths[p] = file
		}
		o.Binaries, err = pack.Files(paths)
	case o.App != "":
		return usagef("--app needs the app's binaries: --dist, --release or --binary")
	default:
		o.Binaries, err = pack.Host()
	}
	if err != nil {
		return err
	}
	if o.Version == "" {
		return usagef("--version is required (it is read from --dist's metadata.json only)")
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

// list returns the values of a repeatable flag that keeps commas.
func list(c *cli.Context, name string) []string { return *c.Generic(name).(*listFlag) }
