//go:build !windows

package manifest

import (
	"os/exec"
	"syscall"
)

// setGroup makes the command the leader of a new process group, so that
// it and everything it starts can be signalled together.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = groupAttr()
}

func terminateGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGTERM) }

func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// groupAlive reports whether any process of the group still runs. A
// zombie does not count: it is dead, waiting for a parent (often an init
// that reaps slowly) to collect it.
func groupAlive(pid int) bool {
	return syscall.Kill(-pid, 0) == nil && hasLiveMember(pid)
}
