package registercmd_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/registercmd"
)

// run runs a host app that has init, remove and doctor for "demo mcp",
// with a --loud flag that adds "--loud", and returns what it printed.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	p := registercmd.Program{
		Args:  []string{"mcp"},
		Flags: []registercmd.Flag{{Name: "loud", Bool: true}},
		FlagArgs: func(_ registercmd.Dest, flags map[string]string) ([]string, error) {
			if flags["loud"] == "true" {
				return []string{"--loud"}, nil
			}
			return nil, nil
		},
	}
	var out bytes.Buffer
	app := &cli.App{
		Name:           "demo",
		Writer:         &out,
		ErrWriter:      &out,
		ExitErrHandler: func(*cli.Context, error) {},
		Commands:       []*cli.Command{registercmd.Init(p), registercmd.Remove(p), registercmd.Doctor(p)},
	}
	err := app.Run(append([]string{"demo"}, args...))
	return out.String(), err
}

func exitCode(err error) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return -1
}

func TestHostInit(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}

	out, err := run(t, "init", "--project", proj, "--loud", "--json")
	if err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	// run gathers stderr too: the warning that the project file gets this
	// test binary's absolute path comes before the JSON.
	warning, out, _ := strings.Cut(out, "\n[")
	out = "[" + out
	if !strings.Contains(warning, "is an absolute path on this machine") {
		t.Errorf("init of the absolute path %s into a project file did not warn: %q", exe, warning)
	}
	var changes []installer.Change
	if err := json.Unmarshal([]byte(out), &changes); err != nil || len(changes) != 1 || changes[0].Action != "added" || changes[0].Name != "demo" {
		t.Fatalf("init printed %s (%v), want one added change for demo", out, err)
	}
	var file struct {
		McpServers map[string]installer.Entry `json:"mcpServers"`
	}
	b, err := os.ReadFile(filepath.Join(proj, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	s := file.McpServers["demo"]
	if s.Command != exe || !reflect.DeepEqual(s.Args, []string{"mcp", "--loud"}) {
		t.Errorf("registered %q %q, want %q [mcp --loud]", s.Command, s.Args, exe)
	}

	out, err = run(t, "init", "--project", proj, "--loud", "--", "other")
	if exitCode(err) != 64 || !strings.Contains(err.Error(), "--loud and --command are for demo mcp; they cannot be used with a command after --") {
		t.Errorf("init --loud -- other: %v (exit %d)\n%s", err, exitCode(err), out)
	}
	for _, args := range [][]string{{"init", "--scope", "global"}, {"init", "--name", ""}, {"remove", "x"}, {"doctor", "--nosuch"}} {
		if _, err := run(t, args...); exitCode(err) != 64 {
			t.Errorf("%s: %v, want exit 64", strings.Join(args, " "), err)
		}
	}

	out, err = run(t, "remove", "--project", proj)
	if err != nil || !strings.Contains(out, `removed "demo"`) {
		t.Errorf("remove: %v\n%s", err, out)
	}
	out, err = run(t, "doctor", "--project", proj)
	if err != nil || !strings.Contains(out, `No MCP server named "demo" is registered here. Register it with 'demo init'.`) {
		t.Errorf("doctor: %v\n%s", err, out)
	}
}

// TestCommandsPassFlags checks Commands and that, without FlagArgs, the
// program's flags that are set are passed on to the registered command.
func TestCommandsPassFlags(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	p := registercmd.Program{Args: []string{"mcp"}, Flags: []registercmd.Flag{
		{Name: "allow-write", Bool: true},
		{Name: "quiet", Bool: true},
		{Name: "profile"},
	}}
	cmds := registercmd.Commands(p)
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if !reflect.DeepEqual(names, []string{"init", "remove", "doctor"}) {
		t.Fatalf("Commands: %v, want [init remove doctor]", names)
	}
	var out bytes.Buffer
	app := &cli.App{Name: "demo", Writer: &out, ErrWriter: &out, ExitErrHandler: func(*cli.Context, error) {}, Commands: cmds}
	if err := app.Run([]string{"demo", "init", "--project", proj, "--allow-write", "--quiet=false", "--profile", "prod"}); err != nil {
		t.Fatalf("init: %v\n%s", err, out.String())
	}
	var file struct {
		McpServers map[string]installer.Entry `json:"mcpServers"`
	}
	b, err := os.ReadFile(filepath.Join(proj, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if got, want := file.McpServers["demo"].Args, []string{"mcp", "--allow-write", "--profile=prod"}; !reflect.DeepEqual(got, want) {
		t.Errorf("registered args %q, want %q", got, want)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
func (e usageError) ExitCode() int { return 64 }

// TestFlagArgsGetsDest checks that FlagArgs is called for each config
// file with where it is and the flags given, by name, and that its usage
// error stops init before any file is written.
func TestFlagArgsGetsDest(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	var dests []registercmd.Dest
	p := registercmd.Program{
		Args:  []string{"mcp"},
		Flags: []registercmd.Flag{{Name: "profile"}, {Name: "fast", Bool: true}},
		FlagArgs: func(d registercmd.Dest, flags map[string]string) ([]string, error) {
			dests = append(dests, d)
			if flags["profile"] == "bad" {
				return nil, usageError{"--profile bad: no such profile"}
			}
			return []string{"--profile", flags["profile"], "--fast=" + flags["fast"], "--in=" + d.Scope}, nil
		},
	}
	runApp := func(args ...string) error {
		var out bytes.Buffer
		app := &cli.App{Name: "demo", Writer: &out, ErrWriter: &out, ExitErrHandler: func(*cli.Context, error) {}, Commands: registercmd.Commands(p)}
		return app.Run(append([]string{"demo"}, args...))
	}
	err := runApp("init", "--project", proj, "--client", "claude-code,cursor", "--profile", "bad")
	if exitCode(err) != 64 || !strings.Contains(err.Error(), "--profile bad: no such profile") {
		t.Errorf("init --profile bad: %v (exit %d), want the usage error of FlagArgs", err, exitCode(err))
	}
	if _, err := os.Stat(filepath.Join(proj, ".mcp.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("init --profile bad wrote .mcp.json (%v)", err)
	}
	dests = nil
	if err := runApp("init", "--project", proj, "--client", "claude-code,cursor", "--profile", "dev", "--fast"); err != nil {
		t.Fatal(err)
	}
	want := []registercmd.Dest{{Client: "claude-code", Scope: "project", Project: proj}, {Client: "cursor", Scope: "project", Project: proj}}
	if !reflect.DeepEqual(dests, want) {
		t.Errorf("FlagArgs was called for %+v, want %+v", dests, want)
	}
	b, err := os.ReadFile(filepath.Join(proj, ".cursor", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		McpServers map[string]installer.Entry `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if got, want := file.McpServers["demo"].Args, []string{"mcp", "--profile", "dev", "--fast=true", "--in=project"}; !reflect.DeepEqual(got, want) {
		t.Errorf("registered args %q, want %q", got, want)
	}
}
