package register

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/installer"
)

// targets sets up a home and a project of their own and returns the
// Targets of Claude Code and Cursor in the project.
func targets(t *testing.T) (Targets, *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("MCPSHIP_STATE_DIR", filepath.Join(home, "state"))
	var out bytes.Buffer
	return Targets{Clients: "claude-code,cursor", Scope: "project", Project: t.TempDir(), Program: "mcpship", Stdout: &out, Stderr: &out}, &out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

// TestRegisterUndoes: a file that refuses the entry leaves none of it in
// the others.
func TestRegisterUndoes(t *testing.T) {
	tt, out := targets(t)
	cursor := filepath.Join(tt.Project, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(cursor), 0o755); err != nil {
		t.Fatal(err)
	}
	const theirs = `{"mcpServers": {"srv": {"command": "theirs"}}}` + "\n"
	if err := os.WriteFile(cursor, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	e := installer.Entry{Name: "srv", Command: "ours", Args: []string{"mcp"}}

	err := Register(tt, e, nil)
	if err == nil || !strings.Contains(out.String(), `cursor project: `+cursor+`: a different server named "srv" is already registered`) {
		t.Fatalf("Register over another server: %v\n%s", err, out)
	}
	if got := readFile(t, filepath.Join(tt.Project, ".mcp.json")); strings.Contains(got, "ours") {
		t.Errorf("claude-code's file keeps the entry after cursor's refused it:\n%s", got)
	}
	if got := readFile(t, cursor); got != theirs {
		t.Errorf("cursor's file changed:\n%s", got)
	}
	if !strings.Contains(out.String(), "mcpship: undone: claude-code project") {
		t.Errorf("Register did not say what it undid:\n%s", out)
	}

	// replace says which entry may go: here, one that runs "theirs".
	err = Register(tt, e, func(old installer.Entry) bool { return old.Command == "theirs" })
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(tt.Project, ".mcp.json"), cursor} {
		if got := readFile(t, f); !strings.Contains(got, `"ours"`) {
			t.Errorf("%s does not hold the entry:\n%s", f, got)
		}
	}

	uses, err := Uses(tt.Project, func(e installer.Entry) bool { return e.Command == "ours" })
	if err != nil {
		t.Fatal(err)
	}
	var where []string
	for _, u := range uses {
		where = append(where, u.Client+" "+u.Scope)
	}
	if strings.Join(where, ", ") != "claude-code project, cursor project" {
		t.Errorf("Uses found the entry in %q", where)
	}
}

// TestRegisterRefusesUnknownClient: a client that is not known is a
// usage error, and nothing is written.
func TestRegisterRefusesUnknownClient(t *testing.T) {
	tt, _ := targets(t)
	tt.Clients = "claude-code,nope"
	err := Register(tt, installer.Entry{Name: "srv", Command: "ours"}, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown client "nope"`) {
		t.Fatalf("Register with an unknown client: %v", err)
	}
	if got := readFile(t, filepath.Join(tt.Project, ".mcp.json")); got != "" {
		t.Errorf("a file was written:\n%s", got)
	}
}
