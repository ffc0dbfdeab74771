//go:build !linux && !windows

package bridge

import (
	"os/exec"
	"syscall"
)

// setGroup starts the command in a process group of its own, which stop
// signals as a whole. Without a parent-death signal on this system, a
// command outlives a mcpship killed with SIGKILL until it reads the end of
// its input.
func setGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup ends what is left of the command's process group.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
