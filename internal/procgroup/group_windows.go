//go:build windows

package procgroup

import (
	"os/exec"
	"strconv"
	"syscall"
)

// Set starts the command in a new process group, detached from
// mcpship's console signals.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// Terminate ends the process tree. Windows console programs have no
// SIGTERM, so this is the same as Kill.
func Terminate(pid int) { Kill(pid) }

// Kill ends the process and its descendants with taskkill /T /F.
func Kill(pid int) {
	_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
}

// Alive cannot see a tree whose root has exited; the tree was killed
// when needed, so it reports false.
func Alive(int) bool { return false }

// Sweep does nothing: taskkill /T already stops the tree when needed.
func Sweep(int, string) {}
