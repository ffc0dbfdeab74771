package cobraadapter_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcpship/mcpship/cobraadapter"
	"github.com/mcpship/mcpship/mcp"
)

// An app laid out as cobra-cli generates it: package-level commands, and
// flags bound to package-level variables in init. Its constructor returns
// the same tree every time.
var (
	todoRoot = &cobra.Command{Use: "todo"}
	todoAdd  = &cobra.Command{
		Use: "add",
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "tags=%q lists=%q priority=%d urgent=%v verbose=%d changed=%v", todoTags, todoLists, todoPriority, todoUrgent, todoVerbose, cmd.Flags().Changed("tags"))
			return nil
		},
	}
	todoTags     []string
	todoLists    []string
	todoPriority int
	todoUrgent   bool
	todoVerbose  int
)

func init() {
	todoRoot.AddCommand(todoAdd)
	todoRoot.PersistentFlags().CountVarP(&todoVerbose, "verbose", "v", "say more")
	todoAdd.Flags().StringSliceVar(&todoTags, "tags", nil, "tags")
	todoAdd.Flags().StringArrayVar(&todoLists, "list", []string{"inbox"}, "lists")
	todoAdd.Flags().IntVarP(&todoPriority, "priority", "p", 1, "priority")
	todoAdd.Flags().BoolVar(&todoUrgent, "urgent", false, "urgent")
}

// TestCobraCLILayoutKeepsNoState: each call of a command whose flags are
// package-level variables sees only its own flags, the others at their
// defaults, although the tree is the same one every call.
func TestCobraCLILayoutKeepsNoState(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "todo", Version: "1"}, &mcp.ServerOptions{MaxConcurrentCalls: 16})
	err := cobraadapter.AddTools(srv, func() *cobra.Command { return todoRoot }, cobraadapter.Options{
		AllowWrite: true, Tools: []cobraadapter.Tool{{Command: "add"}}})
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
		{map[string]any{"tags": []string{"a", "b"}, "list": []string{"work"}, "priority": 3, "urgent": true, "verbose": 2},
			`tags=["a" "b"] lists=["work"] priority=3 urgent=true verbose=2 changed=true`},
		{map[string]any{"tags": []string{"c"}, "priority": 5},
			`tags=["c"] lists=["inbox"] priority=5 urgent=false verbose=0 changed=true`},
		{map[string]any{},
			`tags=[] lists=["inbox"] priority=1 urgent=false verbose=0 changed=false`},
		{map[string]any{"list": []string{"x", "y"}},
			`tags=[] lists=["x" "y"] priority=1 urgent=false verbose=0 changed=false`},
	} {
		res, err := c.CallTool(context.Background(), "add", tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].Text; res.IsError || got != tc.want {
			t.Errorf("add %v: isError %v, got\n\t%s\nwant\n\t%s", tc.args, res.IsError, got, tc.want)
		}
	}

	// Calls at once on the one tree take turns: each sees its own flags.
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.CallTool(context.Background(), "add", map[string]any{"tags": []string{fmt.Sprint(i)}, "priority": i})
			want := fmt.Sprintf(`tags=["%d"] lists=["inbox"] priority=%d urgent=false verbose=0 changed=true`, i, i)
			if err != nil || res.IsError || res.Content[0].Text != want {
				t.Errorf("call %d at once: %v %+v; want %s", i, err, res, want)
			}
		}()
	}
	wg.Wait()
}
