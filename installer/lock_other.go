//go:build !unix && !windows

package installer

import (
	"fmt"
	"runtime"
)

// lockFile fails: mcpship locks files on Unix and Windows only.
func lockFile(path string) (func(), error) {
	return nil, fmt.Errorf("%s: mcpship cannot lock files on %s", path, runtime.GOOS)
}
