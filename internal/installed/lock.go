package installed

import (
	"os"
	"path/filepath"

	"github.com/mcpship/mcpship/internal/filelock"
)

// Lock waits for, and takes, the lock of the servers under root, and
// returns the function that releases it. Add holds it while it installs
// and remove while it deletes, so that two at once do not unpack into,
// or delete, the same folders. The lock file is ROOT.lock, beside root.
func Lock(root string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return nil, err
	}
	return filelock.Lock(filepath.Clean(root) + ".lock")
}
