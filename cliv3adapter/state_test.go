package cliv3adapter_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/mcpship/mcpship/cliv3adapter"
	"github.com/mcpship/mcpship/mcp"
)

// Flags that write into package-level Destination variables.
var (
	todoTags     []string
	todoIDs      []int64
	todoPriority int64
	todoUrgent   bool
	todoNote     string
)

func newTodoRoot() *cli.Command {
	return &cli.Command{Name: "todo", Commands: []*cli.Command{{
		Name: "add",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "tags", Destination: &todoTags},
			&cli.Int64SliceFlag{Name: "ids", Value: []int64{7}, Destination: &todoIDs},
			&cli.Int64Flag{Name: "priority", Value: 1, Destination: &todoPriority},
			&cli.BoolFlag{Name: "urgent", Destination: &todoUrgent},
			&cli.StringFlag{Name: "note", Value: "none", Destination: &todoNote},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			fmt.Fprintf(cmd.Root().Writer, "tags=%q ids=%v priority=%d urgent=%v note=%s", todoTags, todoIDs, todoPriority, todoUrgent, todoNote)
			return nil
		},
	}}}
}

// TestDestinationsKeepNoState: each call of a command whose flags write
// into package-level Destination variables sees only its own flags, the
// others at their defaults.
func TestDestinationsKeepNoState(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "todo", Version: "1"}, nil)
	err := cliv3adapter.AddTools(srv, newTodoRoot, cliv3adapter.Options{Serial: true, AllowWrite: true, Tools: []cliv3adapter.Tool{{Command: "add"}}})
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
