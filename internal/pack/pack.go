// Package pack makes MCP Bundles (package [mcpb]) of a command-line tool's
// MCP server, one per platform: mcpship with a tool manifest, or a Go app
// that serves itself (a cliadapter app). It takes the platform binaries from
// a GoReleaser dist directory ([Dist]), from release archives checked
// against their checksums.txt ([Release]), from given files ([Files]) or
// from the running mcpship ([Host]).
//
// macOS is served by one bundle whose binary is universal (arm64 and amd64
// joined, as Apple ships its own programs): a bundle's platform overrides
// are keyed by operating system only, so one macOS bundle cannot choose a
// binary by CPU, and two would make every Mac user pick the right download.
// Linux and Windows get a bundle per CPU.
package pack

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpship/mcpship/internal/manifest"
	"github.com/mcpship/mcpship/internal/mcpb"
)

// Options say what to bundle.
type Options struct {
	// Manifest is the tool manifest that the bundled mcpship serves. Or:
	Manifest string
	// App is the name of a program that serves its own tools when run
	// with AppArgs (default "mcp"), such as a cliadapter app; its binaries
	// are bundled instead of mcpship's.
	App     string
	AppArgs []string

	// Binaries are mcpship's executables (with Manifest) or the app's.
	Binaries Binaries

	Name        string // machine-readable name; also starts the file names
	Version     string // semantic version; a leading "v" is dropped
	Description string // one line
	Author      string // "Name" or "Name <email>"
	Homepage    string // URL
	Repository  string // URL of the git repository
	License     string // SPDX identifier
	Icon        string // PNG file

	// Programs bundle the author's own command-line programs: the
	// program as a manifest command names it (command[0]) maps to a file
	// pattern, relative to the manifest's directory, in which {os},
	// {arch} and {exe} stand for the platform (Go's names; {exe} is
	// ".exe" on Windows). For the macOS bundle, {arch} "all" is tried
	// first, then arm64 and amd64 are joined.
	Programs map[string]string
	// Settings are session defaults (serve --set) that the user sets when
	// installing: "NAME=VALUE" defaults to VALUE, "NAME" is required.
	Settings []string
	// Env are environment variables the user sets when installing, given
	// to the server. With Manifest, the manifest's passEnv are added.
	Env []string
	// Secrets names settings and variables to keep secret, besides those
	// whose names say so (KEY, TOKEN, SECRET, PASSWORD, ...).
	Secrets []string
}

// Bundle is one bundle written.
type Bundle struct {
	File     string // the path written
	Platform Platform
	SHA256   string // hex
	Size     int64
	Manifest *mcpb.Manifest
}

// nameRE is what a bundle's name may hold: it starts the file names.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// Write makes a bundle per platform of o.Binaries and writes them to dir
// as NAME_VERSION_OS_ARCH.mcpb (ARCH "all" for the universal macOS
// bundle). Everything is checked and built before the first file is
// written, so that bad input writes nothing.
func Write(dir string, o Options) ([]Bundle, error) {
	built, err := build(o)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// Every bundle goes to a temporary file first, and only when all are
	// written do they take their names, so that a failure (a full disk, a
	// folder in the way) leaves the bundles of an earlier run as they were.
	temps := make([]string, 0, len(built))
	defer func() {
		for _, f := range temps {
			os.Remove(f)
		}
	}()
	for i := range built {
		b := &built[i]
		b.File = filepath.Join(dir, b.File)
		if fi, err := os.Lstat(b.File); err == nil && !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("write %s: it is not a file (%s); remove it or choose another --out", b.File, fi.Mode().Type())
		}
		temp, err := writeTemp(b.File, b.data)
		if err != nil {
			return nil, err
		}
		temps = append(temps, temp)
	}
	for i, b := range built {
		if err := os.Rename(temps[i], b.File); err != nil {
			return nil, fmt.Errorf("write %s: %w", b.File, err)
		}
	}
	temps = nil
	out := make([]Bundle, len(built))
	for i, b := range built {
		out[i] = b.Bundle
	}
	return out, nil
}

type built struct {
	Bundle
	data []byte
}

// writeTemp writes data to a new temporary file beside file and returns
// its name.
func writeTemp(file string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(file), ".mcpb-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", file, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write %s: %w", file, err)
	}
	return f.Name(), nil
}

// server is what the bundles run: mcpship and a manifest, or an app.
type server struct {
	exe      string // executable's name, without .exe
	args     []string
	manifest []byte // the manifest file, as bundled (nil for an app)
	tools    []mcpb.Tool
	needs    []string         // programs that must be on PATH
	needsAt  []string         // programs that must be at their full path
	programs map[string][]int // program -> tools whose command[0] it is
	tm       *manifest.Manifest
}

func build(o Options) ([]built, error) {
	o.Version = strings.TrimPrefix(o.Version, "v")
	author, err := check(o)
	if err != nil {
		return nil, err
	}
	var srv *server
	if o.Manifest != "" {
		srv, err = manifestServer(o.Manifest, o.Programs)
	} else {
		if len(o.Programs) > 0 {
			return nil, errors.New("programs are bundled with a manifest only; an app is its own program")
		}
		srv, err = appServer(o.App, o.AppArgs, o.Binaries)
	}
	if err != nil {
		return nil, err
	}
	sh, err := share(o, srv, author)
	if err != nil {
		return nil, err
	}
	bins, err := o.Binaries.forBundles()
	if err != nil {
		return nil, err
	}
	var out []built
	for _, p := range bins.platforms() {
		b, err := buildOne(o, srv, sh, p, bins[p])
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// check refuses options that make no bundle, saying every problem at
// once, and returns the parsed author.
func check(o Options) (mcpb.Author, error) {
	var problems []string
	if !nameRE().MatchString(o.Name) {
		problems = append(problems, fmt.Sprintf("name %q must be letters, digits, '.', '_' or '-' (it starts the file names)", o.Name))
	}
	if o.Description == "" {
		problems = append(problems, "a description is required")
	}
	author, err := parseAuthor(o.Author)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if (o.Manifest == "") == (o.App == "") {
		problems = append(problems, "give either a manifest or an app")
	}
	if len(o.Binaries) == 0 {
		problems = append(problems, "no binaries to bundle")
	}
	if len(problems) > 0 {
		return author, errors.New(strings.Join(problems, "; "))
	}
	return author, nil
}

// shared is what the bundles of every platform have in common.
type shared struct {
	manifest *mcpb.Manifest // without its server
	icon     []byte
	args     []string          // the server's arguments
	env      map[string]string // and environment
}

// share works out what the bundles of every platform have in common.
func share(o Options, srv *server, author mcpb.Author) (*shared, error) {
	base := &mcpb.Manifest{
		ManifestVersion: mcpb.ManifestVersion,
		Name:            o.Name,
		Version:         o.Version,
		Description:     o.Description,
		Author:          author,
		Homepage:        o.Homepage,
		License:         o.License,
		Tools:           srv.tools,
	}
	if len(srv.needs)+len(srv.needsAt) > 0 {
		base.Description = strings.TrimSpace(o.Description)
		if !strings.HasSuffix(base.Description, ".") {
			base.Description += "."
		}
		needs := srv.needsAt
		if len(srv.needs) > 0 {
			needs = append([]string{strings.Join(srv.needs, " and ") + " on PATH"}, needs...)
		}
		base.Description += " Needs " + strings.Join(needs, " and ") + "."
	}
	if o.Repository != "" {
		base.Repository = &mcpb.Repository{Type: "git", URL: o.Repository}
	}
	var icon []byte
	if o.Icon != "" {
		var err error
		if icon, err = os.ReadFile(o.Icon); err != nil {
			return nil, fmt.Errorf("icon: %w", err)
		}
		base.Icon = "icon.png"
	}
	u, err := userConfig(o, srv)
	if err != nil {
		return nil, err
	}
	base.UserConfig = u.config
	return &shared{manifest: base, icon: icon, args: u.args, env: u.env}, nil
}

// buildOne makes the bundle of platform p, whose binary is bin.
func buildOne(o Options, srv *server, sh *shared, p Platform, bin []byte) (built, error) {
	m := *sh.manifest
	exe := "server/" + p.exe(srv.exe)
	m.Server = mcpb.Server{Type: "binary", EntryPoint: exe, MCPConfig: &mcpb.MCPConfig{
		Command: "${__dirname}/" + exe,
		Args:    append(slices.Clone(srv.args), sh.args...),
		Env:     sh.env,
	}}
	m.Compatibility = &mcpb.Compatibility{Platforms: []string{mcpb.Platform(p.OS)}}
	files := []mcpb.File{{Name: exe, Data: bin, Mode: 0o755}}
	if sh.icon != nil {
		files = append(files, mcpb.File{Name: "icon.png", Data: sh.icon})
	}
	if srv.manifest != nil {
		more, err := manifestFiles(o, srv, p)
		if err != nil {
			return built{}, err
		}
		files = append(files, more...)
	}
	var buf bytes.Buffer
	if err := mcpb.Write(&buf, &m, files); err != nil {
		return built{}, err
	}
	sum := sha256.Sum256(buf.Bytes())
	return built{Bundle: Bundle{
		File:     fmt.Sprintf("%s_%s_%s.mcpb", o.Name, o.Version, p),
		Platform: p,
		SHA256:   hex.EncodeToString(sum[:]),
		Size:     int64(buf.Len()),
		Manifest: &m,
	}, data: buf.Bytes()}, nil
}

func parseAuthor(s string) (mcpb.Author, error) {
	if strings.TrimSpace(s) == "" {
		return mcpb.Author{}, errors.New(`an author is required ("Name" or "Name <email>")`)
	}
	if strings.Contains(s, "<") {
		a, err := mail.ParseAddress(s)
		if err != nil {
			return mcpb.Author{}, fmt.Errorf(`author %q is not "Name <email>": %v`, s, err)
		}
		return mcpb.Author{Name: a.Name, Email: a.Address}, nil
	}
	return mcpb.Author{Name: strings.TrimSpace(s)}, nil
}

// manifestServer loads and checks the manifest, and works out which
// programs its tools run.
func manifestServer(file string, programs map[string]string) (*server, error) {
	m, err := manifest.Load(file)
	if err != nil {
		var probs *manifest.Problems
		if errors.As(err, &probs) {
			return nil, fmt.Errorf("invalid manifest %s (run 'mcpship manifest check %s'):\n%v", file, file, err)
		}
		return nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	srv := &server{
		exe:      "mcpship",
		args:     manifest.ServeArgs("${__dirname}/server/mcpship.json"),
		manifest: data,
		programs: map[string][]int{},
	}
	for i, t := range m.Tools {
		srv.tools = append(srv.tools, mcpb.Tool{Name: t.Name, Description: t.Description})
		prog := t.Command[0]
		if _, bundled := programs[prog]; !bundled {
			if filepath.IsAbs(prog) || strings.HasPrefix(prog, "/") {
				// A program at its full path on the user's machine.
				if !slices.Contains(srv.needsAt, prog) {
					srv.needsAt = append(srv.needsAt, prog)
				}
				continue
			}
			if strings.ContainsAny(prog, `/\`) {
				return nil, fmt.Errorf("tool %s runs %s, a file beside the manifest: bundle it for each platform with --program '%s=PATTERN'", t.Name, prog, prog)
			}
			if !slices.Contains(srv.needs, prog) {
				srv.needs = append(srv.needs, prog)
			}
			continue
		}
		srv.programs[prog] = append(srv.programs[prog], i)
	}
	for prog := range programs {
		if _, used := srv.programs[prog]; !used {
			return nil, fmt.Errorf("--program %s: no tool of %s runs %q", prog, file, prog)
		}
	}
	srv.tm = m
	return srv, nil
}

// DefaultName is the name a bundle gets when none is given: the app's
// name, or the name of the manifest's directory.
func DefaultName(o Options) string {
	if o.App != "" {
		return o.App
	}
	abs, err := filepath.Abs(o.Manifest)
	if err != nil {
		return ""
	}
	return filepath.Base(filepath.Dir(abs))
}
