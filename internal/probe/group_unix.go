//go:build !windows

package probe

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the server cmd starts the leader of a process group of
// its own, so that what it starts (a shell script's children) can be
// stopped with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills what is left of the process group of the server cmd
// started.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
