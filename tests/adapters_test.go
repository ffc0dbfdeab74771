package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/mcp"
)

// exampleApps are the same app built on the three frameworks mcpship
// serves in-process.
var exampleApps = []struct{ name, path *string }{
	{ptr("goapp"), &goappPath},
	{ptr("cobraapp"), &cobraappPath},
	{ptr("cliv3app"), &cliv3appPath},
}

func ptr(s string) *string { return &s }

// TestAdapterExamples drives "APP mcp" of each example app over stdio,
// as an assistant would: the handshake, the tool list and its schemas
// (which must be the same on every framework), calls, and errors.
func TestAdapterExamples(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("alpha beta\nTODO gamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var first []byte
	for _, app := range exampleApps {
		name, path := *app.name, *app.path
		t.Run(name, func(t *testing.T) {
			c, err := mcp.StartCommand(exec.Command(path, "mcp"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := c.Close(); err != nil {
					t.Errorf("%s mcp exited with %v; stderr:\n%s", name, err, c.Stderr())
				}
			})
			ctx := context.Background()
			init, err := c.Initialize(ctx, "")
			if err != nil {
				t.Fatalf("initialize: %v; stderr:\n%s", err, c.Stderr())
			}
			if init.ServerInfo.Name != name || init.ServerInfo.Version != "0.1.0" {
				t.Errorf("serverInfo = %+v, want %s 0.1.0", init.ServerInfo, name)
			}

			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) != 2 || tools[0].Name != name+"_count" || tools[1].Name != name+"_find" {
				t.Fatalf("tools = %v, want count and find (touch needs --allow-write)", tools)
			}
			// The same app on each framework is the same list of tools.
			list, err := json.Marshal(tools)
			if err != nil {
				t.Fatal(err)
			}
			list = []byte(strings.ReplaceAll(string(list), name+"_", "APP_"))
			if first == nil {
				first = list
				want := `"by":{"default":"lines","description":"what to count: lines, words or bytes","enum":["lines","words","bytes"],"type":"string"}`
				if !strings.Contains(string(list), want) || !strings.Contains(string(list), `"required":["pattern"]`) {
					t.Errorf("tools/list lacks the enum of --by or the required --pattern:\n%s", list)
				}
			} else if string(list) != string(first) {
				t.Errorf("tools/list differs from goapp's:\n%s\ngoapp's:\n%s", list, first)
			}

			sc := ok(t, callTool(t, c, name+"_count", map[string]any{"by": "words", "files": []string{file}}))
			if fmt.Sprint(sc["counts"]) != fmt.Sprintf("map[%s:4]", file) {
				t.Errorf("count: %v", sc)
			}
			res := callTool(t, c, name+"_find", map[string]any{"pattern": "todo", "ignore-case": true, "files": []string{file}})
			if res.IsError || text(res) != file+":2:TODO gamma\n" {
				t.Errorf("find: %+v", res)
			}
			res = callTool(t, c, name+"_find", map[string]any{"pattern": "zzz", "files": []string{file}})
			if res.IsError || text(res) != "(no output)\n(exit status 1)" {
				t.Errorf("find with no match is a normal result (exit 1): %+v", res)
			}
			isError(t, callTool(t, c, name+"_count", map[string]any{"files": []string{"--by=bytes"}}),
				name+" count exited with status 2: open --by=bytes: no such file or directory")
			isError(t, callTool(t, c, name+"_count", map[string]any{"by": "chars"}), `"chars"`)
			isError(t, callTool(t, c, name+"_find", map[string]any{"files": []string{file}}), `missing required property "pattern"`)

			w := startServer(t, path, "mcp", "--allow-write")
			created := filepath.Join(dir, name+".txt")
			if res := callTool(t, w, name+"_touch", map[string]any{"files": []string{created}}); res.IsError {
				t.Fatalf("touch: %s", text(res))
			}
			if _, err := os.Stat(created); err != nil {
				t.Errorf("touch did not create the file: %v", err)
			}
		})
	}
}

// TestMcpshipLinksNeitherCobraNorCliV3 checks, with go version -m, that
// the mcpship binary links neither Cobra (nor its pflag) nor urfave/cli
// v3: they are for the apps that use cobraadapter and cliv3adapter. The
// example apps built on them show that the check sees them when they are
// linked.
func TestMcpshipLinksNeitherCobraNorCliV3(t *testing.T) {
	modules := func(path string) string {
		out, err := exec.Command("go", "version", "-m", path).Output()
		if err != nil {
			t.Fatalf("go version -m %s: %v", path, err)
		}
		return string(out)
	}
	linked := func(info, mod string) bool { return strings.Contains(info, "\tdep\t"+mod+"\t") }
	mcpship := modules(binPath)
	if !linked(mcpship, "github.com/urfave/cli/v2") {
		t.Fatalf("go version -m lists no urfave/cli/v2 in mcpship, which uses it; the check cannot work:\n%s", mcpship)
	}
	for _, mod := range []string{"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/urfave/cli/v3"} {
		if linked(mcpship, mod) {
			t.Errorf("mcpship links %s", mod)
		}
	}
	if info := modules(cobraappPath); !linked(info, "github.com/spf13/cobra") || !linked(info, "github.com/spf13/pflag") {
		t.Errorf("go version -m lists no cobra or pflag in cobraapp:\n%s", info)
	}
	if info := modules(cliv3appPath); !linked(info, "github.com/urfave/cli/v3") {
		t.Errorf("go version -m lists no urfave/cli/v3 in cliv3app:\n%s", info)
	}
}
