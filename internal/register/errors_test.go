package register

import (
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpship/mcpship/installer"
)

// TestExplain checks the error style: client and scope first, a temporary
// file named by its directory, and a next step for the system's errors.
func TestExplain(t *testing.T) {
	cl, err := installer.LookupAssistant("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	tgt := &installer.Target{Assistant: cl, Scope: installer.ScopeProject, File: "/src/app/.mcp.json"}
	tmp := &fs.PathError{Op: "open", Path: "/src/app/..mcp.json.mcpship-123.tmp", Err: syscall.EACCES}
	for _, c := range []struct {
		err  error
		want string
	}{
		{tmp, "claude-code project: cannot open a temporary file in /src/app: permission denied; " +
			"check that you may write to /src/app/.mcp.json and its directory (ls -ld /src/app), or choose another --project or --scope"},
		{fmt.Errorf("backing up /src/app/.mcp.json: %w", &fs.PathError{Op: "write", Path: "/state/b", Err: syscall.ENOSPC}),
			"claude-code project: backing up /src/app/.mcp.json: write /state/b: no space left on device; free some disk space and run the command again"},
		{fmt.Errorf("a plain error"), "claude-code project: a plain error"},
	} {
		if got := explain(tgt, c.err).Error(); !strings.HasPrefix(got, c.want) {
			t.Errorf("explain(%v) =\n%s\nwant\n%s", c.err, got, c.want)
		}
	}
}
