//go:build windows

package manifest

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

// terminateGroup ends the process tree. Windows console programs have no
// SIGTERM, so this is the same as killGroup.
func terminateGroup(pid int) { killGroup(pid) }

// killGroup ends the process and its descendants with taskkill /T /F.
func killGroup(pid int) {
	_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
}

// groupAlive cannot see a tree whose root has exited; the tree was killed
// when needed, so it reports false.
func groupAlive(int) bool { return false }

// sweep does nothing: taskkill /T already stops the tree when needed.
func sweep(int, string) {}
