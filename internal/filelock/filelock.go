// Package filelock takes exclusive locks on files, the locks of
// operating systems (flock, LockFileEx), which are released when the
// process that holds one dies, so they are never stale. Package
// installer guards config files with them; mcpship's add and remove guard
// the servers they install.
package filelock

// Lock takes an exclusive lock on the file path (created if need be),
// waiting while another process holds it, and returns the function that
// releases it.
func Lock(path string) (unlock func(), err error) {
	return lock(path)
}
