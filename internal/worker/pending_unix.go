//go:build linux || darwin

package worker

import (
	"os"
	"syscall"
	"unsafe"
)

// pending returns how many bytes wait unread in the pipe f (FIONREAD),
// 0 when that cannot be told.
func pending(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int32
	_ = rc.Control(func(fd uintptr) {
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, fionread, uintptr(unsafe.Pointer(&n)))
		if errno != 0 {
			n = 0
		}
	})
	return int(n)
}
