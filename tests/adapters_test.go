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
	"unicode/utf8"

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

// startAppMCP starts "path mcp" of the example app name, initialized; it
// must exit cleanly at the end of the test.
func startAppMCP(t *testing.T, name, path string) (*mcp.Client, *mcp.InitializeResult) {
	t.Helper()
	c, err := mcp.StartCommand(exec.Command(path, "mcp"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("%s mcp exited with %v; stderr:\n%s", name, err, c.Stderr())
		}
	})
	init, err := c.Initialize(context.Background(), "")
	if err != nil {
		t.Fatalf("initialize: %v; stderr:\n%s", err, c.Stderr())
	}
	return c, init
}

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
			ctx := context.Background()
			c, init := startAppMCP(t, name, path)
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

// TestAdapterOutputBudget cuts the long results of in-process tools as
// manifest tools' are, on each framework: the example apps' find has an
// OutputBudget of 20,000 characters and count the default of 40,000; a
// cut result keeps its head and tail with a note, links to the whole
// output, which resources/read gives back byte for byte, and is never
// kept by the result cache.
func TestAdapterOutputBudget(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	var lines, found strings.Builder
	for i := 1; i <= 3000; i++ {
		line := fmt.Sprintf("TODO item %04d ünïcödé", i)
		fmt.Fprintln(&lines, line)
		fmt.Fprintf(&found, "%s:%d:%s\n", big, i, line)
	}
	if err := os.WriteFile(big, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// count prints {"by":…,"counts":{FILE: N, …}}: 1,200 files of long
	// names make it about 90,000 characters.
	var files []string
	for i := range 1200 {
		f := filepath.Join(dir, fmt.Sprintf("a-file-with-a-rather-long-name-%04d.txt", i))
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkgs := map[string]string{"goapp": "cliadapter", "cobraapp": "cobraadapter", "cliv3app": "cliv3adapter"}
	for _, app := range exampleApps {
		name, path := *app.name, *app.path
		t.Run(name, func(t *testing.T) {
			c, init := startAppMCP(t, name, path)
			if init.Capabilities.Resources == nil {
				t.Errorf("%s mcp does not announce the resources capability", name)
			}

			// A tool's own budget.
			res := callTool(t, c, name+"_find", map[string]any{"pattern": "TODO", "max": 10000, "files": []string{big}})
			body := res.Content[0].Text
			if n := utf8.RuneCountInString(body); res.IsError || n > 20000 || n < 18000 {
				t.Errorf("find: isError %v, %d characters, want at most 20000 and most of them", res.IsError, n)
			}
			want := found.String()
			if !strings.HasPrefix(body, big+":1:TODO item 0001 ünïcödé\n") || !strings.HasSuffix(body, big+":3000:TODO item 3000 ünïcödé\n") {
				t.Errorf("head or tail lost: %.100q … %q", body, body[max(len(body)-100, 0):])
			}
			l := link(t, res)
			for _, s := range []string{"cut here to fit the output budget of 20000 characters (" + pkgs[name] + ".Tool.OutputBudget)",
				fmt.Sprintf("The whole output, %d bytes, is the resource %s: read it with resources/read", len(want), l.URI)} {
				if !strings.Contains(body, s) {
					t.Errorf("the note lacks %q:\n%.300s", s, body[max(strings.Index(body, "[…"), 0):])
				}
			}
			if got, kind := readResource(t, c, l.URI); kind != "text" || string(got) != want {
				t.Errorf("resource: %s of %d bytes, want the %d bytes of the output as text", kind, len(got), len(want))
			}

			// The default budget, on a JSON result that also has a cache:
			// cut, it loses its structuredContent and is not kept.
			var uris []string
			for range 2 {
				res = callTool(t, c, name+"_count", map[string]any{"files": files})
				if _, hit := res.Meta["io.github.mcpship/cache"]; hit || res.IsError || res.StructuredContent != nil {
					t.Errorf("count: a cache hit %v, isError %v, structuredContent kept %v", hit, res.IsError, res.StructuredContent != nil)
				}
				body = res.Content[0].Text
				if n := utf8.RuneCountInString(body); n > 40000 || n < 36000 ||
					!strings.Contains(body, "cut here to fit the output budget of 40000 characters ("+pkgs[name]+".Tool.OutputBudget)") {
					t.Errorf("count: %d characters, want at most 40000 with the note:\n%.300s", n, body)
				}
				l = link(t, res)
				data, _ := readResource(t, c, l.URI)
				var whole struct{ Counts map[string]int }
				if err := json.Unmarshal(data, &whole); err != nil || len(whole.Counts) != len(files) || whole.Counts[files[len(files)-1]] != 1 {
					t.Errorf("count's resource is not the whole JSON (%v): %d counts", err, len(whole.Counts))
				}
				uris = append(uris, l.URI)
			}
			if uris[0] == uris[1] {
				t.Errorf("two runs, one resource %s", uris[0])
			}
			var list struct {
				Resources []mcp.Resource `json:"resources"`
			}
			if err := c.Call(context.Background(), "resources/list", nil, &list); err != nil || len(list.Resources) != 3 {
				t.Errorf("resources/list: %v, %+v; want the 3 outputs kept", err, list.Resources)
			}
		})
	}
}
