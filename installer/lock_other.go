//go:build !unix

package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// staleLock is the age after which a lock file left by a dead process is
// taken over. Holding the lock takes milliseconds.
const staleLock = 30 * time.Second

// lockFile creates path exclusively (O_EXCL), retrying while another
// process holds it, and returns the function that removes it. This is the
// fallback for systems without flock, such as Windows.
func lockFile(path string) (func(), error) {
	deadline := time.Now().Add(2 * staleLock)
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
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: still locked by another mcpship; if none is running, delete the file", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
