// Package addcmd is the "add" command: it installs an MCP server from an
// .mcpb bundle (a file, an https URL, or the bundle the MCP registry
// lists for a server) or from a registry entry's npm, PyPI or OCI
// package, and registers it with AI assistants as init does.
//
// A bundle is checked before anything in it runs ([mcpb.Open]: SHA-256,
// archive, manifest), unpacked into a folder of its own
// ([installed.Root]/NAME/VERSION), and its server must answer the MCP
// handshake ([register.Check]) before any config file is changed; if
// any step fails, nothing stays unpacked or registered.
package addcmd

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/internal/clihelp"
	"github.com/mcpship/mcpship/internal/installed"
	"github.com/mcpship/mcpship/internal/mcpb"
	"github.com/mcpship/mcpship/internal/probe"
	"github.com/mcpship/mcpship/internal/publish"
	"github.com/mcpship/mcpship/internal/register"
	"github.com/mcpship/mcpship/internal/registry"
	"github.com/urfave/cli/v2"
)

const exitUsage = 64

func usagef(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), exitUsage)
}

// Command returns the "add" command.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "install an MCP server from a bundle or the MCP registry and register it with AI assistants",
		ArgsUsage: "SOURCE",
		Description: "SOURCE is an .mcpb bundle (a file, or an https:// URL), or a server's name in the MCP\n" +
			"registry, such as io.github.owner/server, optionally with @VERSION (default: the latest).\n\n" +
			"From the registry, add takes the bundle built for this system, else an npm, PyPI or OCI\n" +
			"package run with npx, uvx or docker (whichever is installed), with its environment variables.\n" +
			"A bundle's SHA-256 must match the registry's fileSha256 (or --sha256), and its manifest.json\n" +
			"must pass the MCPB specification's checks, before anything in it runs. It is unpacked into\n" +
			"a folder of its own per server and version (see docs/add.md), its settings (user_config)\n" +
			"take their defaults, --config values, or are asked for on a terminal (secrets unechoed).\n\n" +
			"The server must then answer the MCP handshake before any config file is changed; if any\n" +
			"step fails, nothing stays unpacked or registered. Adding a newer version replaces the\n" +
			"entries and the folder of the older one.",
		Flags: append(register.TargetFlags(),
			&cli.StringFlag{Name: "scope", Value: "user", Usage: "project, user or local: where the configs refer to the server installed for this user"},
			&cli.StringFlag{Name: "name", Usage: "server name in the configs (default: the last part of the registry name, or the bundle's name)"},
			&cli.GenericFlag{Name: "config", Value: &configFlag{}, Usage: "a setting of the server, KEY=VALUE (repeatable; a list setting takes one per value)"},
			&cli.StringFlag{Name: "registry", Value: registry.DefaultURL, Usage: "MCP registry to look names up in"},
			&cli.StringFlag{Name: "sha256", Usage: "SHA-256 the bundle file or URL must have (hex)"},
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "time the server has to answer the handshake check"},
		),
		OnUsageError: clihelp.OnUsageError,
		Action:       run,
	}
}

// An install is what add registers, and how to undo its files.
type install struct {
	entry    installer.Entry
	record   *installed.Record
	unpacked string // a folder add created, removed on failure
	pending  string // the version marked pending (installed.MarkPending), unmarked at the end
}

func run(c *cli.Context) error {
	// An interrupt cancels the download, the unpacking or the check, and
	// what add made so far is removed; a second one stops add at once.
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }()
	// What add prints and returns passes through the secrets it learns:
	// a server's stderr that echoes its arguments, a URL's password.
	sec := &secrets{}
	c.Context = context.WithValue(ctx, secretsKey{}, sec)
	w, ew := c.App.Writer, c.App.ErrWriter
	c.App.Writer, c.App.ErrWriter = sec.writer(w), sec.writer(ew)
	defer func() { c.App.Writer, c.App.ErrWriter = w, ew }()
	err := add(c)
	if err != nil && ctx.Err() != nil {
		return cli.Exit("add: interrupted; nothing was installed", 130)
	}
	return sec.error(err)
}

func add(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("add takes one SOURCE: an .mcpb file, an https:// URL of one, or a registry name such as io.github.owner/server[@VERSION]")
	}
	src := c.Args().First()
	if n := c.String("name"); c.IsSet("name") {
		if err := installed.CheckName("--name", n); err != nil {
			return usagef("%v", err)
		}
	}
	if err := checkTargets(c); err != nil {
		return err
	}
	root, err := installed.Root()
	if err != nil {
		return err
	}
	unlock, err := installed.Lock(root)
	if err != nil {
		return fmt.Errorf("locking %s against another add: %w", root, err)
	}
	defer unlock()
	sweep(c, root, "")
	var in *install
	sec := secretsOf(c)
	switch {
	case strings.HasPrefix(src, "https://"):
		sec.addURL(src)
		in, err = fromURL(c, root, src, c.String("sha256"), &installed.Record{Source: sec.record(src), URL: sec.record(src)})
	case strings.Contains(src, "://"):
		return usagef("%s: only https:// URLs are downloaded", installed.Redact(src))
	case strings.HasSuffix(strings.ToLower(src), ".mcpb") || isFile(src):
		abs, _ := filepath.Abs(src)
		in, err = fromBundle(c, root, abs, c.String("sha256"), &installed.Record{Source: abs})
	default:
		in, err = fromRegistry(c, root, src)
	}
	if err != nil {
		return err
	}
	return finish(c, root, in)
}

// finish checks the server, registers it and records it; on failure it
// removes the folder it unpacked.
func finish(c *cli.Context, root string, in *install) (err error) {
	defer func() {
		if err != nil && in.unpacked != "" {
			os.RemoveAll(in.unpacked)
			err = fmt.Errorf("%w\nnothing was installed: %s is removed", err, in.unpacked)
		}
		if in.pending != "" {
			installed.Unmark(root, in.entry.Name, in.pending)
			installed.Tidy(root, in.entry.Name)
		}
	}()
	fmt.Fprintf(c.App.ErrWriter, "%s: checking that the server answers the MCP handshake...\n", c.App.Name)
	var summary string
	var warnings []string
	switch {
	case in.entry.URL == "":
		summary, warnings, err = probe.Check(c.Context, in.entry, in.record.Dir, c.Duration("timeout"))
	case in.entry.Type != "sse":
		summary, err = probe.CheckRemote(c.Context, in.entry.URL, in.entry.Headers, c.Duration("timeout"))
	}
	switch {
	case err != nil:
		return err
	case summary == "":
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: not checked: mcpship checks streamable-HTTP servers only, and this one speaks SSE\n", c.App.Name)
	default:
		fmt.Fprintf(c.App.ErrWriter, "%s: ok: %s\n", c.App.Name, summary)
	}
	old, err := installed.Load(root, in.entry.Name)
	if err != nil {
		return err
	}
	// An entry of the same name that an earlier add wrote is replaced; any
	// other only with --force.
	sec := secretsOf(c)
	ours := func(e installer.Entry) bool {
		if old == nil {
			return false
		}
		sameURL := e.URL == old.URL || sec.record(e.URL) == old.URL // recorded without its secrets
		return e.Command == old.Command && sameURL || installed.Uses(old.Dir, e.Command, e.Args)
	}
	if err := register.Register(register.TargetsFrom(c), in.entry, ours); err != nil {
		return err
	}
	in.record.Name, in.record.Command, in.record.Time = in.entry.Name, in.entry.Command, time.Now().UTC()
	in.record.Scope = c.String("scope")
	if err := installed.Save(root, in.record); err != nil {
		return fmt.Errorf("registered, but recording the install in %s failed: %w", root, err)
	}
	in.unpacked = "" // kept from here on
	fmt.Fprintf(c.App.Writer, "installed %s\n", in.record.From())
	if old != nil && old.Dir != "" && old.Dir != in.record.Dir {
		retire(c, old)
	}
	// Last, so that it is what the user reads: a server that answers may
	// still fail every call, such as one whose program is not installed.
	for _, w := range warnings {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s answers, but its tools will fail until this is fixed: %s\n", c.App.Name, in.entry.Name, w)
	}
	if len(warnings) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "%s: then check it with '%s doctor --name %s'\n", c.App.Name, c.App.Name, in.entry.Name)
	}
	return nil
}

// retire deletes the folder of the version an add replaced, unless an
// entry that add did not replace still runs it.
func retire(c *cli.Context, old *installed.Record) {
	uses, err := register.Uses(c.String("project"), func(e installer.Entry) bool { return installed.Uses(old.Dir, e.Command, e.Args) })
	if err == nil && len(uses) == 0 {
		if err := os.RemoveAll(old.Dir); err == nil {
			fmt.Fprintf(c.App.Writer, "removed version %s: %s\n", old.Version, old.Dir)
			return
		}
	}
	var where []string
	for _, u := range uses {
		where = append(where, u.Client+" "+u.Scope)
	}
	fmt.Fprintf(c.App.ErrWriter, "%s: version %s stays in %s: still registered with %s; add the new version there too, then delete the folder\n",
		c.App.Name, old.Version, old.Dir, strings.Join(where, ", "))
}

// checkTargets refuses a --client or --scope that names no config file,
// before anything is downloaded or unpacked.
func checkTargets(c *cli.Context) error {
	env, err := installer.OSEnv(c.String("project"))
	if err != nil {
		return err
	}
	scope := installer.Scope(c.String("scope"))
	for _, name := range strings.Split(c.String("client"), ",") {
		a, err := installer.LookupAssistant(strings.TrimSpace(name))
		if err != nil {
			return usagef("%v", err)
		}
		if _, err := a.Target(env, scope); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}

func isFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// fromRegistry looks src (NAME[@VERSION]) up in the registry and
// prepares the package Choose picks.
func fromRegistry(c *cli.Context, root, src string) (*install, error) {
	name, version, _ := strings.Cut(src, "@")
	if publish.CheckName(name) != nil {
		return nil, usagef("%q is neither an .mcpb file, an https:// URL, nor a registry name such as io.github.owner/server[@VERSION]", src)
	}
	rc := &registry.Client{BaseURL: c.String("registry")}
	r, err := rc.Server(c.Context, name, version)
	if err != nil {
		return nil, err
	}
	s := &r.Server
	if o := r.Meta.Official; o != nil && o.Status == "deprecated" {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: the registry marks %s %s deprecated%s\n", c.App.Name, s.Name, s.Version, prefixed(": ", registry.Printable(o.StatusMessage, 300)))
	}
	rec := &installed.Record{Server: s.Name, Version: s.Version, Source: s.Name + "@" + s.Version, Registry: strings.TrimRight(c.String("registry"), "/")}
	entryName := cmp.Or(c.String("name"), safeName(path.Base(s.Name)))
	if err := installed.CheckName("server name", entryName); err != nil {
		return nil, usagef("the registry's name %s gives the %v; choose one with --name", s.Name, err)
	}
	p, err := s.Choose(runtime.GOOS, runtime.GOARCH, func(l string) bool { _, err := exec.LookPath(l); return err == nil })
	if err != nil {
		r := s.Remote()
		if r == nil {
			return nil, err
		}
		values, err := inputValues(c, r.Needs(), "remote server "+r.URL)
		if err != nil {
			return nil, err
		}
		u, headers, err := r.Endpoint(values)
		if err != nil {
			return nil, err
		}
		secretsOf(c).addURL(u)
		fmt.Fprintf(c.App.ErrWriter, "%s: %s %s has no package to run here; it is the remote server %s\n", c.App.Name, s.Name, s.Version, u)
		rec.Kind, rec.URL = "remote", secretsOf(c).record(u)
		e := installer.Entry{Name: entryName, URL: u, Headers: nilIfEmpty(headers)}
		if r.Type == "sse" {
			e.Type = "sse"
		}
		return &install{entry: e, record: rec}, nil
	}
	rec.Kind = p.RegistryType
	if p.RegistryType == "mcpb" {
		if p.FileSHA256 == "" {
			return nil, fmt.Errorf("the registry gives no fileSha256 for the bundle %s of %s, so it cannot be verified; refusing it", p.Identifier, s.Name)
		}
		secretsOf(c).addURL(p.Identifier)
		if !strings.HasPrefix(p.Identifier, "https://") {
			return nil, fmt.Errorf("the bundle of %s is at %q, not an https:// URL; refusing it", s.Name, p.Identifier)
		}
		rec.URL = secretsOf(c).record(p.Identifier)
		return fromURL(c, root, p.Identifier, p.FileSHA256, rec)
	}
	values, err := inputValues(c, p.Needs(), p.RegistryType+" package "+p.Identifier)
	if err != nil {
		return nil, err
	}
	l, err := p.Launch(values)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c.App.ErrWriter, "%s: %s %s is the %s package %s\n", c.App.Name, s.Name, s.Version, p.RegistryType, p.Identifier)
	return &install{entry: installer.Entry{Name: entryName, Command: l.Command, Args: l.Args, Env: nilIfEmpty(l.Env)}, record: rec}, nil
}

// fromURL downloads the bundle at u, then installs it as fromBundle does.
func fromURL(c *cli.Context, root, u, sha string, rec *installed.Record) (*install, error) {
	file, err := download(c.Context, u, mcpb.DefaultLimits.MaxBytes)
	if err != nil {
		return nil, err
	}
	defer os.Remove(file)
	return fromBundle(c, root, file, sha, rec)
}

// fromBundle checks the bundle in file, resolves its settings and
// unpacks it.
func fromBundle(c *cli.Context, root, file, sha string, rec *installed.Record) (*install, error) {
	b, err := mcpb.Open(file, sha, nil)
	if err != nil {
		if rec.URL != "" {
			err = fmt.Errorf("the bundle downloaded from %s: %w", rec.URL, err)
		}
		return nil, err
	}
	defer b.Close()
	m := b.Manifest
	rec.Kind, rec.SHA256 = "mcpb", b.SHA256
	rec.Server, rec.Version = cmp.Or(rec.Server, m.Name), cmp.Or(rec.Version, m.Version)
	name := cmp.Or(c.String("name"), safeName(m.Name))
	if rec.Registry != "" && !c.IsSet("name") {
		name = safeName(path.Base(rec.Server))
	}
	if err := installed.CheckName("server name", name); err != nil {
		return nil, usagef("%v; choose one with --name", err)
	}
	if err := installed.CheckName("version", m.Version); err != nil {
		return nil, fmt.Errorf("the bundle's %v", err)
	}
	values, err := bundleValues(c, m)
	if err != nil {
		return nil, err
	}
	in := &install{record: rec}
	rec.Dir = installed.Dir(root, name, m.Version)
	how := "unpacked in"
	if old, _ := installed.Load(root, name); old != nil && old.Dir == rec.Dir && old.SHA256 == b.SHA256 && isDir(rec.Dir) {
		how = "already unpacked in" // the same bundle again: its folder is reused, and kept on failure
	} else {
		if isDir(rec.Dir) {
			return nil, fmt.Errorf("%s already holds another bundle of %s %s; remove it first ('%s remove --name %s --purge')",
				rec.Dir, m.Name, m.Version, c.App.Name, name)
		}
		// Marked first, so that the next add or remove --purge finds the
		// folder if this add is killed before it records the install.
		if err := installed.MarkPending(root, name, m.Version); err != nil {
			return nil, fmt.Errorf("marking %s as being installed: %w", rec.Dir, err)
		}
		in.pending = m.Version
		if err := b.Unpack(rec.Dir); err != nil {
			in.undo(root, name)
			return nil, fmt.Errorf("unpacking the bundle: %w", err)
		}
		in.unpacked = rec.Dir
		if err := c.Context.Err(); err != nil { // interrupted while unpacking
			in.undo(root, name)
			return nil, err
		}
	}
	l, err := m.Launch(rec.Dir, mcpb.Platform(runtime.GOOS), values)
	if err != nil {
		in.undo(root, name)
		return nil, err
	}
	in.entry = installer.Entry{Name: name, Command: l.Command, Args: l.Args, Env: nilIfEmpty(l.Env)}
	fmt.Fprintf(c.App.ErrWriter, "%s: verified %s %s (sha256 %s), %s %s\n", c.App.Name, m.Name, m.Version, b.SHA256, how, rec.Dir)
	return in, nil
}

// undo removes what fromBundle unpacked for the server name, and its
// pending mark.
func (in *install) undo(root, name string) {
	if in.unpacked != "" {
		os.RemoveAll(in.unpacked)
	}
	if in.pending != "" {
		installed.Unmark(root, name, in.pending)
	}
	installed.Tidy(root, name)
}

// sweep removes, under the lock, what adds that were stopped left under
// root for the server name ("" for every server), keeping any version
// folder an assistant's entry still runs, and says what it removed.
func sweep(c *cli.Context, root, name string) {
	var uses []register.Use
	loaded := false
	inUse := func(dir string) bool {
		if !loaded {
			uses, _ = register.Uses(c.String("project"), func(installer.Entry) bool { return true })
			loaded = true
		}
		return slices.ContainsFunc(uses, func(u register.Use) bool { return installed.Uses(dir, u.Entry.Command, u.Entry.Args) })
	}
	removed, err := installed.Sweep(root, name, inUse)
	for _, d := range removed {
		fmt.Fprintf(c.App.ErrWriter, "%s: removed %s, which an add that was stopped left\n", c.App.Name, d)
	}
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: cleaning what a stopped add left: %v\n", c.App.Name, err)
	}
}

func isDir(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir()
}

// safeName makes name a server name that can be a folder name.
func safeName(name string) string {
	s := regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(name, "-")
	return strings.Trim(s, "-.")
}

func nilIfEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}
