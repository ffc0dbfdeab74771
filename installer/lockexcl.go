package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// lockExclusive creates path exclusively (O_EXCL), retrying while another
// process holds it, and returns the function that removes it. A lock file
// older than stale was left by a process that died and is taken over. It
// is the lock on systems without flock, such as Windows (lock_other.go),
// and is compiled everywhere so that it is tested everywhere.
func lockExclusive(path string, stale, wait time.Duration) (func(), error) {
	deadline := time.Now().Add(wait)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > stale {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: still locked by another mcpship after %v; if none is running, delete the file", path, wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
