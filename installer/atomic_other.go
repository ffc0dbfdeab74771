//go:build !unix

package installer

import (
	"io/fs"
	"os"
)

// openNonblock opens path for reading.
func openNonblock(path string) (*os.File, error) { return os.Open(path) }

// keepOwner does nothing: a new file on Windows inherits its permissions
// from its directory.
func keepOwner(f *os.File, path string, old fs.FileInfo) error { return nil }
