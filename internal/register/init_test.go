package register

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
)

// run runs a host app that has init, remove and doctor for "demo mcp",
// with a --loud flag that adds "--loud", and returns what it printed.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	p := Program{
		Args:  []string{"mcp"},
		Flags: []cli.Flag{&cli.BoolFlag{Name: "loud"}},
		FlagArgs: func(c *cli.Context, _ Dest) ([]string, error) {
			if c.Bool("loud") {
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
		Commands:       []*cli.Command{Init(p), Remove(p), Doctor(&p)},
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
	p := Program{Args: []string{"mcp"}, Flags: []cli.Flag{
		&cli.BoolFlag{Name: "allow-write"},
		&cli.BoolFlag{Name: "quiet"},
		&cli.StringFlag{Name: "profile", Value: "dev"},
	}}
	cmds := Commands(p)
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
