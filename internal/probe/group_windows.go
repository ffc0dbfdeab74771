package probe

import "os/exec"

// ownGroup does nothing on Windows, where a process has no group to
// stop it with.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the server cmd started.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
