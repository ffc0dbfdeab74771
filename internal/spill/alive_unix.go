//go:build unix

package spill

import "syscall"

// alive reports whether a process pid exists (or may: one of another user
// answers EPERM).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
