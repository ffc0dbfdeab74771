package tests

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// TestLinksInstallWhatInitRegisters runs "mcpship links --json" and
// "mcpship init" for the same server, and checks that the Cursor, VS Code
// and LM Studio links carry exactly the entry init wrote to each of those
// assistants' user config.
func TestLinksInstallWhatInitRegisters(t *testing.T) {
	home := t.TempDir()
	manifest, err := filepath.Abs("../examples/rigor/mcpship.json")
	if err != nil {
		t.Fatal(err)
	}
	mcpship := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(binPath, args...)
		cmd.Dir = home
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mcpship %q: %v\n%s", args, err, stderr.Bytes())
		}
		return out
	}
	server := []string{"--name", "rigor", "--command", "mcpship", "--manifest", manifest, "--env", "RIGOR_HOME=/opt/rigor"}
	mcpship(append([]string{"init", "--client", "cursor,vscode,lmstudio", "--scope", "user"}, server...)...)
	var got struct {
		Links []struct{ Client, URL, Deeplink string }
	}
	if err := json.Unmarshal(mcpship(append([]string{"links", "--json"}, server...)...), &got); err != nil {
		t.Fatal(err)
	}

	entry := func(file string, container string) any {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(home, file))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		return doc[container]["rigor"]
	}
	want := map[string]any{
		"cursor":          entry(".cursor/mcp.json", "mcpServers"),
		"lmstudio":        entry(".lmstudio/mcp.json", "mcpServers"),
		"vscode":          entry(".config/Code/User/mcp.json", "servers"),
		"vscode-insiders": entry(".config/Code/User/mcp.json", "servers"),
	}
	checked := 0
	for _, l := range got.Links {
		w, ok := want[l.Client]
		if !ok {
			continue
		}
		checked++
		u, err := url.Parse(l.URL)
		if err != nil {
			t.Fatal(err)
		}
		var config []byte
		switch l.Client {
		case "cursor", "lmstudio":
			if config, err = base64.StdEncoding.DecodeString(u.Query().Get("config")); err != nil {
				t.Fatalf("%s: %v", l.URL, err)
			}
		default: // https://vscode.dev/redirect?url=vscode:mcp/install?<JSON>
			deep, err := url.Parse(u.Query().Get("url"))
			if err != nil || deep.String() != l.Deeplink {
				t.Fatalf("%s: the redirect does not carry the deeplink %s (%v)", l.URL, l.Deeplink, err)
			}
			q, err := url.QueryUnescape(deep.RawQuery)
			if err != nil {
				t.Fatal(err)
			}
			config = []byte(q)
		}
		var m map[string]any
		if err := json.Unmarshal(config, &m); err != nil {
			t.Fatalf("%s: %v in %s", l.Client, err, config)
		}
		delete(m, "name") // VS Code's link names the server inside
		if !reflect.DeepEqual(m, w) {
			t.Errorf("%s link installs %v\ninit registered %v", l.Client, m, w)
		}
	}
	if checked != len(want) {
		t.Errorf("checked %d links, want %d: %+v", checked, len(want), got.Links)
	}
}

// TestLinksWarnOfALocalManifestPath runs "mcpship links" without
// --manifest-path: the links then carry the manifest's absolute path on
// this machine, and links must say so on stderr, keeping stdout the
// Markdown; with --manifest-path it says nothing.
func TestLinksWarnOfALocalManifestPath(t *testing.T) {
	manifest, err := filepath.Abs("../examples/rigor/mcpship.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		warn bool
	}{
		{[]string{"links", "--manifest", manifest, "--name", "rigor"}, true},
		{[]string{"links", "--manifest", manifest, "--name", "rigor", "--manifest-path", "/opt/rigor/mcpship.json"}, false},
	} {
		cmd := exec.Command(binPath, c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mcpship %q: %v\n%s", c.args, err, stderr.Bytes())
		}
		warned := bytes.Contains(stderr.Bytes(), []byte("warning: every link and command runs the manifest at "+manifest))
		if warned != c.warn {
			t.Errorf("mcpship %q: warned %v, want %v; stderr:\n%s", c.args, warned, c.warn, stderr.Bytes())
		}
		if bytes.Contains(out, []byte("warning")) {
			t.Errorf("mcpship %q: the warning went to stdout, which goes into a README:\n%s", c.args, out)
		}
	}
}
