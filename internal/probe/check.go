package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/internal/register"
	"github.com/mcpship/mcpship/internal/sandbox"
)

// Check starts e as its client would and as doctor does (in dir, within
// timeout): it must answer the MCP handshake and tools/list. It returns a
// summary such as "rigor 1.0.0, protocol 2025-11-25, 7 tools" and what
// the server logged at level WARN (mcpship serve: a program its tools run
// that is not on PATH), or an error that says what went wrong, with the
// end of the server's stderr (but not the command, whose arguments may
// hold a secret).
func Check(ctx context.Context, e installer.Entry, dir string, timeout time.Duration) (summary string, warnings []string, err error) {
	return check(ctx, e, dir, timeout, nil)
}

func check(ctx context.Context, e installer.Entry, dir string, timeout time.Duration, policy *sandbox.Policy) (summary string, warnings []string, err error) {
	h := probe(ctx, e, dir, timeout, policy)
	if h.OK {
		return fmt.Sprintf("%s %s, protocol %s, %s", h.ServerName, h.ServerVersion, h.ProtocolVersion, register.Plural(h.Tools, "tool")), h.Warnings, nil
	}
	msg := fmt.Sprintf("the server did not pass the handshake check: %s: %s", h.Problem, h.Detail)
	if h.Stderr != "" {
		msg += "\n  stderr: " + strings.Join(lastLines(h.Stderr, 5), "\n  stderr: ")
	}
	return "", nil, errors.New(msg)
}
