//go:build !unix

package installer

import "time"

// lockFile locks path with an O_EXCL lock file, taken over after 30
// seconds: holding the lock takes milliseconds.
func lockFile(path string) (func(), error) {
	return lockExclusive(path, 30*time.Second, time.Minute)
}
