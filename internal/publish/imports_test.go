package publish

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports pins an arrow: publish imports no other package of mcpship
// but the internal helper that writes files whole. The entry shapes its
// links carry are compared with installer's in the tests only.
func TestImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/mcpship/mcpship/") && p != "github.com/mcpship/mcpship/internal/publish" && p != "github.com/mcpship/mcpship/internal/atomicfile" {
			t.Errorf("publish imports %s", p)
		}
	}
}
