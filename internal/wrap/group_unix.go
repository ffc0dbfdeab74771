//go:build !windows

package wrap

import (
	"os/exec"
	"syscall"
)

// ownGroup runs the command in a process group of its own, killed whole
// when the help run is cancelled, so a help that starts a pager or a
// child cannot outlive it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killGroup kills what is left of the process group led by pid.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
