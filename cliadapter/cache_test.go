package cliadapter

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/mcp"
)

// catApp's "cat" prints its files and counts its runs in runs.
func catApp(runs *atomic.Int64) func() *cli.App {
	return func() *cli.App {
		return &cli.App{Name: "cat", Commands: []*cli.Command{
			{Name: "cat", Flags: []cli.Flag{&cli.StringFlag{Name: "config"}}, Action: func(c *cli.Context) error {
				runs.Add(1)
				for _, f := range c.Args().Slice() {
					data, err := os.ReadFile(f)
					if err != nil {
						return cli.Exit(err.Error(), 2)
					}
					c.App.Writer.Write(data)
				}
				return nil
			}},
			{Name: "rm", Action: func(*cli.Context) error { return nil }},
		}}
	}
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("a.txt", []byte("one\n"), 0o644)
	var runs atomic.Int64
	c := connectApp(t, catApp(&runs), Options{Tools: []Tool{{Command: "cat", ReadOnly: true, Cache: []string{"{args}", "{config}", "conf.d/"}}}})
	hit := func(args map[string]any, want bool, text, why string) {
		t.Helper()
		before := runs.Load()
		res := call(t, c, "cat", args)
		_, noted := res.Meta["io.github.mcpship/cache"]
		if ran := runs.Load() > before; ran == want || noted != want {
			t.Errorf("%s: ran=%v, _meta=%v; want a hit: %v", why, ran, res.Meta, want)
		}
		if !strings.Contains(res.Content[0].Text, text) {
			t.Errorf("%s: %q, want %q", why, res.Content[0].Text, text)
		}
	}
	a := map[string]any{"args": []string{"a.txt"}}
	hit(a, false, "one", "first call")
	hit(a, true, "one", "same call")
	os.WriteFile("a.txt", []byte("two\n"), 0o644)
	hit(a, false, "two", "a.txt edited")
	os.MkdirAll("conf.d", 0o755)
	hit(a, false, "two", "conf.d/ created")
	hit(a, true, "two", "nothing changed")
	hit(map[string]any{"args": []string{"a.txt"}, "config": "x.yml"}, false, "two", "another flag")
	os.WriteFile("x.yml", nil, 0o644)
	hit(map[string]any{"args": []string{"a.txt"}, "config": "x.yml"}, false, "two", "the flag's file created")
	hit(map[string]any{"args": []string{"missing"}}, false, "no such file", "an error")
	hit(map[string]any{"args": []string{"missing"}}, false, "no such file", "an error is not kept")
}

func TestCacheRefused(t *testing.T) {
	var runs atomic.Int64
	for _, tc := range []struct {
		tool Tool
		want string
	}{
		{Tool{Command: "rm", Cache: []string{"x"}}, `Tool.Cache of "rm": a cached result is served instead of running the command, which is right only for a read-only one, and this one is not marked ReadOnly`},
		{Tool{Command: "cat", ReadOnly: true, Cache: []string{"{nope}"}}, `{nope} names neither a served flag nor the positional input "args"`},
		{Tool{Command: "cat", ReadOnly: true, Cache: []string{"sig/[a"}}, `"sig/[a" is not a valid glob`},
		{Tool{Command: "cat", ReadOnly: true, Cache: []string{""}}, `"" is empty`},
	} {
		srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil)
		err := AddTools(srv, catApp(&runs), Options{AllowWrite: true, Tools: []Tool{tc.tool}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.tool, err, tc.want)
		}
	}
}

// With AddTools on a server of one's own, a result over the budget is
// cut all the same; the rest is not kept, and the note says so. A budget
// out of range is refused.
func TestOutputBudgetOwnServer(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("big.txt", []byte(strings.Repeat("0123456789\n", 1000)), 0o644)
	var runs atomic.Int64
	c := connectApp(t, catApp(&runs), Options{Tools: []Tool{{Command: "cat", ReadOnly: true, OutputBudget: 2000}}})
	res := call(t, c, "cat", map[string]any{"args": []string{"big.txt"}})
	body := res.Content[0].Text
	if len(res.Content) != 1 || len(body) > 2000 || !strings.HasPrefix(body, "0123456789\n") ||
		!strings.Contains(body, "cut here to fit the output budget of 2000 characters (cliadapter.Tool.OutputBudget). The rest was not kept") {
		t.Errorf("cut result: %d blocks, %d characters:\n%s", len(res.Content), len(body), body)
	}
	// Over Claude Code's 50,000, the tool says how long its results may be.
	c = connectApp(t, catApp(&runs), Options{Tools: []Tool{{Command: "cat", ReadOnly: true, OutputBudget: 100000}, {Command: "rm", ReadOnly: true, Name: "rm2"}}})
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 2 || fmt.Sprint(tools[0].Meta) != "map[anthropic/maxResultSizeChars:100000]" || tools[1].Meta != nil {
		t.Errorf("tools/list: %v %+v, want _meta anthropic/maxResultSizeChars 100000 on cat alone", err, tools)
	}
	for _, b := range []int{-1, 999, 64<<20 + 1} {
		srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil)
		err := AddTools(srv, catApp(&runs), Options{Tools: []Tool{{Command: "cat", ReadOnly: true, OutputBudget: b}}})
		want := `Tool.OutputBudget of "cat" is ` + strconv.Itoa(b) + " characters: use 1000 to 67108864, or 0 for the default of 40000"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OutputBudget %d: %v, want %q", b, err, want)
		}
	}
}
