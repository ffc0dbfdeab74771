package worker

import (
	"fmt"
	"os"
	"syscall"
)

// sysStat is the device, inode and change time of fi: a file replaced by
// another, or rewritten with its mtime put back, still differs.
func sysStat(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d %d %d.%d", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
}
