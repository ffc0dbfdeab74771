//go:build unix

package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openNonblock opens path for reading without waiting for a writer if it
// is a FIFO; readConfig then refuses it.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// keepOwner gives f, the temporary file that will replace path, the owner
// and group of old, the file it replaces, or says why it cannot.
func keepOwner(f *os.File, path string, old fs.FileInfo) error {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if got := fi.Sys().(*syscall.Stat_t); got.Uid == want.Uid && got.Gid == want.Gid {
		return nil
	}
	err = f.Chown(int(want.Uid), int(want.Gid))
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%s belongs to user %d, group %d, which mcpship running as user %d cannot give the new file it writes; nothing was written: run mcpship as the file's owner", path, want.Uid, want.Gid, os.Geteuid())
	}
	return err
}
