package cliadapter_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/cliadapter"
	"github.com/mcpship/mcpship/mcp"
)

// Flags that write into package-level Destination variables, as
// urfave/cli's documentation shows them.
var (
	todoTags     cli.StringSlice
	todoIDs      cli.IntSlice
	todoPriority int
	todoUrgent   bool
	todoNote     string
)

func newTodoApp() *cli.App {
	return &cli.App{Name: "todo", Commands: []*cli.Command{{
		Name: "add",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "tags", Destination: &todoTags},
			&cli.IntSliceFlag{Name: "ids", Value: cli.NewIntSlice(7), Destination: &todoIDs},
			&cli.IntFlag{Name: "priority", Value: 1, Destination: &todoPriority},
			&cli.BoolFlag{Name: "urgent", Destination: &todoUrgent},
			&cli.StringFlag{Name: "note", Value: "none", Destination: &todoNote},
		},
		Action: func(c *cli.Context) error {
			fmt.Fprintf(c.App.Writer, "tags=%q ids=%v priority=%d urgent=%v note=%s", todoTags.Value(), todoIDs.Value(), todoPriority, todoUrgent, todoNote)
			return nil
		},
	}}}
}

// TestDestinationsKeepNoState: each call of a command whose flags write
// into package-level Destination variables sees only its own flags, the
// others at their defaults.
func TestDestinationsKeepNoState(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "todo", Version: "1"}, nil)
	err := cliadapter.AddTools(srv, newTodoApp, cliadapter.Options{Serial: true, AllowWrite: true, Tools: []cliadapter.Tool{{Command: "add"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := srv.Connect(context.Background(), nil)
	defer c.Close()
	if _, err := c.Initialize(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"tags": []string{"a", "b"}, "ids": []int{1, 2}, "priority": 3, "urgent": true, "note": "first"},
			`tags=["a" "b"] ids=[1 2] priority=3 urgent=true note=first`},
		{map[string]any{"tags": []string{"c"}, "priority": 5},
			`tags=["c"] ids=[7] priority=5 urgent=false note=none`},
		{map[string]any{},
			`tags=[] ids=[7] priority=1 urgent=false note=none`},
		{map[string]any{"ids": []int{9}},
			`tags=[] ids=[9] priority=1 urgent=false note=none`},
	} {
		res, err := c.CallTool(context.Background(), "add", tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].Text; res.IsError || got != tc.want {
			t.Errorf("add %v: isError %v, got\n\t%s\nwant\n\t%s", tc.args, res.IsError, got, tc.want)
		}
	}
}
