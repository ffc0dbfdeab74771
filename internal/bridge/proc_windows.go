//go:build windows

package bridge

import (
	"os/exec"
	"strconv"
	"syscall"
)

// setGroup starts the command in a new process group, detached from
// mcpship's console signals.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup ends the process and its descendants with taskkill /T /F.
func killGroup(pid int) {
	_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
}
