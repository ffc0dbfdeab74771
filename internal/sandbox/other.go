//go:build !linux

package sandbox

import (
	"fmt"
	"runtime"
)

// Do calls f. With p non-nil it returns an error instead: programs are
// confined on Linux only.
func Do(p *Policy, f func() error) error {
	if p != nil {
		return fmt.Errorf("cannot confine: %s", why())
	}
	return f()
}

func why() string {
	return fmt.Sprintf("the read-only sandbox is Landlock's, which Linux alone has, not %s", runtime.GOOS)
}

// Available returns 0 and why programs are not confined here.
func Available() (int, string) { return 0, why() }

// Confines reports whether Do and Start confine programs here: never.
func Confines() bool { return false }

// writeAccess is never asked: nothing is confined here.
func writeAccess(string) bool { return false }
