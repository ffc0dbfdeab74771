//go:build windows

package filelock

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// lock takes an exclusive lock (LockFileEx) on path, waiting for
// other holders, and returns the function that releases it. Windows
// releases the lock if the process dies, so it is never stale.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "lock", Path: path, Err: err}
	}
	return func() {
		windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
	}, nil
}
