package wrap

import "os/exec"

// ownGroup leaves the command as it is: on Windows, cancelling kills the
// program itself.
func ownGroup(*exec.Cmd) {}

// killGroup does nothing on Windows, where a help run's children are not
// in a group of its own.
func killGroup(int) {}
