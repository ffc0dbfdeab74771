package installer

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports pins an arrow: installer edits config files and knows
// nothing of the protocol. Starting a server and talking MCP to it is
// doctor's, in internal/register. The arrows of the whole tree are
// pinned by tests.TestArrows.
func TestImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/mcpship/mcpship/mcp" {
			t.Errorf("installer imports %s", p)
		}
	}
}
