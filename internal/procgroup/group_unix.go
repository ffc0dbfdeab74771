//go:build !windows

package procgroup

import (
	"os/exec"
	"syscall"
)

// Set makes the command the leader of a new process group, so that
// it and everything it starts can be signalled together.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = groupAttr()
}

// Terminate sends SIGTERM to the process group led by pid.
func Terminate(pid int) { _ = syscall.Kill(-pid, syscall.SIGTERM) }

// Kill sends SIGKILL to the process group led by pid.
func Kill(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// Alive reports whether any process of the group still runs. A
// zombie does not count: it is dead, waiting for a parent (often an init
// that reaps slowly) to collect it.
func Alive(pid int) bool {
	return syscall.Kill(-pid, 0) == nil && hasLiveMember(pid)
}
