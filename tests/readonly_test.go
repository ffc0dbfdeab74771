package tests

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestAppSaysWhatItLeavesOut: an app's "mcp" without --allow-write
// serves only the tools marked ReadOnly, and says on stderr which it
// leaves out and how to serve them; stdout stays the protocol's.
func TestAppSaysWhatItLeavesOut(t *testing.T) {
	for _, app := range exampleApps {
		name, path := *app.name, *app.path
		for _, args := range [][]string{{"mcp"}, {"mcp", "--allow-write"}} {
			cmd := exec.Command(path, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s %q: %v\n%s", name, args, err, stderr.String())
			}
			want := name + ` mcp: not serving "touch", not marked ReadOnly (they may change things); run "` + name + ` mcp --allow-write" to serve them too` + "\n"
			if len(args) == 2 {
				want = ""
			}
			if stdout.Len() != 0 || stderr.String() != want {
				t.Errorf("%s %q: stdout %q, stderr %q; want stderr %q", name, args, stdout.String(), stderr.String(), want)
			}
		}
	}
}
