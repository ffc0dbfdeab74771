package register

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
)

// A Program is the server that init registers: this program, run with
// Args, which serves MCP over stdio. Package registercmd's Program, for
// apps, is converted into this one.
type Program struct {
	// Name is the server's name in the config files (the default of
	// --name) and the program's name in help, where --client then points
	// to "NAME list". Default: the app's Name, found when a command runs.
	Name string
	// Args follow the program's path in the registered command, such as
	// ["mcp"] or ["serve"].
	Args []string
	// Flags are more flags of init, for the program, such as mcpship's
	// --manifest. They cannot be used with a command after "--".
	Flags []cli.Flag
	// FlagArgs, if set, returns the arguments that follow Args, from
	// Flags, for the config file d. An error that is a cli.ExitCoder with
	// code 64 is a usage error. Default: each of Flags that is set, passed
	// on as --NAME (a bool flag that is true) or --NAME=VALUE.
	FlagArgs func(c *cli.Context, d Dest) ([]string, error)
}

// A Dest is a config file init registers a program in.
type Dest struct {
	Client  string // the assistant, such as "claude-code"
	Scope   string // "project", "user" or "local"
	Project string // absolute directory of the project
}

// Init returns the "init" command, which registers p with AI assistants:
// by default for Claude Code in the project, as the absolute path of the
// running binary followed by p.Args. After "--", it registers any stdio
// server command instead.
func Init(p Program) *cli.Command {
	return Styled(&cli.Command{
		Name:      "init",
		Usage:     "register " + p.short() + " (or any stdio or remote server) with AI assistants",
		ArgsUsage: "[-- COMMAND ARGS...]",
		Description: "Adds a server entry to each assistant's config file, keeping every other byte of the file,\n" +
			"after a backup. By default it registers " + p.long() + " for Claude Code in the project.\n\n" +
			"With --url it registers a remote server, one that speaks MCP over streamable HTTP, in each\n" +
			"client's own remote entry, with the headers of --header. A token in the variable that\n" +
			"--bearer-token-env names is sent as \"Authorization: Bearer\" and written only as the client's\n" +
			"reference to that variable (such as ${TOKEN}), never as its value; a client whose file has no\n" +
			"such reference, or holds no remote server, is refused with the reason.",
		Flags: append(append([]cli.Flag{
			clientFlag(p.Name, "to configure"),
			&cli.BoolFlag{Name: "all", Usage: "every client whose config location exists on this machine"},
			scopeFlag(),
			p.nameFlag(),
		}, p.Flags...), append([]cli.Flag{
			&cli.GenericFlag{Name: "env", Value: &envFlag{}, Usage: "environment variable for the server, NAME=VALUE (repeatable)"},
			&cli.StringFlag{Name: "url", Usage: "register the remote MCP server at this http(s) URL instead of a command"},
			&cli.GenericFlag{Name: "header", Value: &listValue{}, Usage: "HTTP header for the remote server, \"NAME: VALUE\" (repeatable; with --url)"},
			&cli.StringFlag{Name: "bearer-token-env", Usage: "environment variable that holds the remote server's bearer token (with --url)"},
			&cli.StringFlag{Name: "command", Usage: "path of the " + p.binary() + " to register (default: this binary)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the diff and write nothing"},
			&cli.BoolFlag{Name: "force", Usage: "replace a different server registered under the same name"},
		}, CommonFlags()...)...),
		OnUsageError: onUsageError,
		Action:       func(c *cli.Context) error { return runInit(c, p) },
	})
}

func runInit(c *cli.Context, p Program) error {
	tt := TargetsFrom(c)
	env, o, targets, err := setup(tt)
	if err != nil {
		return err
	}
	base, err := p.server(c)
	if err != nil {
		return err
	}
	if base.URL != "" {
		return initRemote(tt, o, targets, base)
	}
	// Every entry is worked out before any file is written, so that a
	// mistake in the flags changes nothing.
	servers := map[*installer.Target]installer.Entry{}
	warnings := map[*installer.Target][]string{}
	for _, t := range targets {
		s := base
		if c.NArg() == 0 {
			more, err := p.flagArgs(c, Dest{Client: t.Assistant.Name, Scope: string(t.Scope), Project: env.ProjectDir})
			if err != nil {
				return err
			}
			s.Args = append(slices.Clip(s.Args), more...)
		}
		servers[t] = s
		if t.Scope == installer.ScopeProject {
			warnings[t] = append(secretWarnings(t, s), pathWarnings(t, s)...)
		}
	}
	return each(tt, targets, base.Name, warnings, func(t *installer.Target) (*installer.Change, error) {
		return t.Add(servers[t], o)
	})
}

// short and long name the registered command in help text.
func (p Program) short() string {
	if p.Name == "" {
		return "this program"
	}
	return strings.Join(append([]string{p.Name}, p.Args...), " ")
}

func (p Program) long() string {
	if p.Name == "" {
		return "this program, run as '" + strings.Join(append([]string{"<its path>"}, p.Args...), " ") + "',"
	}
	return "'" + p.short() + "'"
}

// binary names the program's binary in help text.
func (p Program) binary() string {
	if p.Name == "" {
		return "binary"
	}
	return p.Name + " binary"
}

func (p Program) nameFlag() cli.Flag {
	if p.Name == "" {
		return &cli.StringFlag{Name: "name", Usage: "server name in the config (default: this program's name)"}
	}
	return &cli.StringFlag{Name: "name", Value: p.Name, Usage: "server name in the config"}
}

// ServerName returns the server name: --name (whose default is p.Name), else
// the app's name.
func (p Program) ServerName(c *cli.Context) string {
	if n := c.String("name"); n != "" || c.IsSet("name") {
		return n
	}
	return c.App.Name
}

// server builds the server init registers, but for the arguments of
// p.FlagArgs, which depend on the file.
func (p Program) server(c *cli.Context) (installer.Entry, error) {
	s := installer.Entry{Name: p.ServerName(c)}
	if s.Name == "" {
		return s, Usagef("--name must not be empty")
	}
	if c.IsSet("url") {
		return p.remoteServer(c, s)
	}
	for _, f := range []string{"header", "bearer-token-env"} {
		if c.IsSet(f) {
			return s, Usagef("--%s is for a remote server: give its address with --url", f)
		}
	}
	if v := c.Generic("env").(*envFlag).vals; len(v) > 0 {
		s.Env = map[string]string{}
		for _, kv := range v {
			k, val, _ := strings.Cut(kv, "=")
			s.Env[k] = val
		}
	}
	prog := strings.Join(append([]string{c.App.Name}, p.Args...), " ")
	if c.NArg() > 0 {
		if err := p.notWithCommand(c, prog); err != nil {
			return s, err
		}
		s.Command, s.Args = absIfPath(c.Args().First()), c.Args().Tail()
		return s, checkCommand(c, s.Command, "the command after --")
	}
	s.Command = absIfPath(c.String("command"))
	s.Args = append([]string{}, p.Args...)
	if s.Command != "" && !strings.ContainsAny(s.Command, `/\`) {
		return s, onPath(c, s.Command)
	}
	if s.Command != "" {
		return s, checkCommand(c, s.Command, "--command")
	}
	exe, err := os.Executable()
	if err != nil {
		return s, fmt.Errorf("finding the %s binary: %w; name it with --command", c.App.Name, err)
	}
	s.Command = exe
	return s, checkCommand(c, s.Command, "this "+c.App.Name+" binary")
}

// checkCommand refuses a command that cannot start when an assistant
// runs it: a path that is not an executable file, or a binary of "go
// run", which does not last. what names where the command came from. A
// bare name is left for the client to find on its PATH.
func checkCommand(c *cli.Context, cmd, what string) error {
	if !strings.ContainsAny(cmd, `/\`) {
		return nil
	}
	if why := goRunBinary(cmd); why != "" {
		return fmt.Errorf("%s, %s, is %s, so no assistant could start it; "+
			"build or install it ('go build', 'go install') and run init from that binary, or name one with --command", what, cmd, why)
	}
	fi, err := os.Stat(cmd)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Usagef("%s, %s, does not exist; give the path of an installed program (or a bare name the client finds on its PATH)", what, cmd)
	case err != nil:
		return Usagef("%s, %s: %v; give the path of a program the client can start", what, cmd, errors.Unwrap(err))
	case !fi.Mode().IsRegular():
		return Usagef("%s, %s, is not a file but a %s; give the path of a program", what, cmd, kind(fi.Mode()))
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return Usagef("%s, %s, is not executable (mode %v); make it so with 'chmod +x %s', or give another path", what, cmd, fi.Mode().Perm(), cmd)
	}
	return nil
}

// onPath checks --command NAME, a bare name, which the client looks up on
// the PATH it starts with: one not on this PATH, or set on it for this
// shell alone, is found by no client started from elsewhere, and init
// warns and says how to make it last. A NAME found there that is not this
// binary is another copy, perhaps another version, and init says so.
func onPath(c *cli.Context, name string) error {
	path, err := exec.LookPath(name)
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: --command %s is not found on this PATH, so a client started from here would not find it either; "+
			"put its directory on PATH in your shell's profile (a client started from the desktop may not read it: see its docs), "+
			"or leave --command out to register the absolute path of this binary\n", c.App.Name, name)
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	a, aerr := os.Stat(path)
	b, berr := os.Stat(exe)
	if aerr == nil && berr == nil && !os.SameFile(a, b) {
		fmt.Fprintf(c.App.ErrWriter, "%s: note: --command %s is %s on this PATH, not this binary (%s)\n", c.App.Name, name, path, exe)
	}
	return nil
}

// goRunBinary says why path, if it is where "go run" puts the binary it
// builds, is gone soon, or returns "". "go run" links the binary in
// its work directory, .../go-build*/b001/exe/NAME under the temporary
// directory, deleted when it exits; since Go 1.24 it also keeps it in
// the build cache (GOCACHE/HH/HASH-d/NAME, HH the first two hex digits of
// the 64 of HASH) and runs it from there the next time, until the cache
// is trimmed of what went unused or a new build goes to another HASH.
func goRunBinary(path string) string {
	dir := filepath.Dir(path)
	if hash, ok := strings.CutSuffix(filepath.Base(dir), "-d"); ok && len(hash) == 64 && isHex(hash) &&
		filepath.Base(filepath.Dir(dir)) == hash[:2] {
		return "a binary of 'go run' in Go's build cache, deleted when the cache is trimmed and replaced by another path at the next build"
	}
	if filepath.Base(dir) != "exe" {
		return ""
	}
	for d := filepath.Dir(dir); d != filepath.Dir(d); d = filepath.Dir(d) {
		if strings.HasPrefix(filepath.Base(d), "go-build") {
			return "a temporary binary of 'go run', deleted when it exits"
		}
	}
	return ""
}

func isHex(s string) bool {
	return strings.Trim(s, "0123456789abcdef") == ""
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// flagArgs returns p.FlagArgs, or by default each of p.Flags that is set.
func (p Program) flagArgs(c *cli.Context, d Dest) ([]string, error) {
	if p.FlagArgs != nil {
		return p.FlagArgs(c, d)
	}
	var args []string
	for _, f := range p.Flags {
		name := f.Names()[0]
		switch {
		case !c.IsSet(name):
		case isBool(f):
			if c.Bool(name) {
				args = append(args, "--"+name)
			}
		default:
			args = append(args, fmt.Sprintf("--%s=%v", name, c.Value(name)))
		}
	}
	return args, nil
}

func isBool(f cli.Flag) bool {
	_, ok := f.(*cli.BoolFlag)
	return ok
}

// notWithCommand is a usage error when a flag for the program is given
// with a command after "--".
func (p Program) notWithCommand(c *cli.Context, prog string) error {
	var names []string
	for _, f := range p.Flags {
		names = append(names, "--"+f.Names()[0])
	}
	names = append(names, "--command")
	for _, n := range names {
		if !c.IsSet(n[2:]) {
			continue
		}
		if len(names) == 1 {
			return Usagef("--command is for %s; it cannot be used with a command after --", prog)
		}
		last := len(names) - 1
		return Usagef("%s and %s are for %s; they cannot be used with a command after --",
			strings.Join(names[:last], ", "), names[last], prog)
	}
	return nil
}

// absIfPath makes a command that names a file (it has a separator)
// absolute; a bare name is left for the client to find on PATH.
func absIfPath(cmd string) string {
	if strings.ContainsAny(cmd, `/\`) {
		if abs, err := filepath.Abs(cmd); err == nil {
			return abs
		}
	}
	return cmd
}
