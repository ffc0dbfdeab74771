package bridge

import (
	"fmt"
	"time"
)

// Health reports whether the bridge takes calls: "" while the shared
// child (the first, which requests without the EnvHeaders share; with
// PerSession, the first that stateless requests borrow) is up, and
// otherwise a short reason and how long until it is started again (0 when
// a start is under way). A child of one legacy session, or of one value of
// the EnvHeaders, does not count: it concerns that client only, and one
// client's bad key must not take the replica out. The reason names no
// command, exit status or stderr, which the log has: /healthz needs no
// token.
func (b *Bridge) Health() (reason string, retry time.Duration) {
	b.mu.Lock()
	closed, c := b.closed, b.first
	b.mu.Unlock()
	if closed {
		return "the server is shutting down", time.Second
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	wait := max(time.Until(c.retryAt), 0)
	switch {
	case c.client != nil:
		return "", 0
	case c.starting != nil || wait == 0:
		return "the server command is starting again", 0
	case c.crashes >= b.sup.crashLoop:
		return fmt.Sprintf("the server command keeps failing (%d times in a row soon after it started); it is started again every %v, next in %v",
			c.crashes, b.sup.maxBackoff, wait.Round(time.Second)), wait
	}
	return fmt.Sprintf("the server command is down; it is started again in %v", wait.Round(time.Millisecond)), wait
}
