package bridge

import (
	"os/exec"
	"syscall"
)

// setGroup starts the command in a process group of its own, which stop
// signals as a whole, and asks the kernel to SIGKILL it if mcpship dies
// first, even by SIGKILL.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup ends what is left of the command's process group.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
