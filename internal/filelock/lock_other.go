//go:build !unix && !windows

package filelock

import (
	"fmt"
	"runtime"
)

// lock fails: mcpship locks files on Unix and Windows only.
func lock(path string) (func(), error) {
	return nil, fmt.Errorf("%s: mcpship cannot lock files on %s", path, runtime.GOOS)
}
