// Package procgroup starts commands in process groups of their own and
// stops them whole: the command and everything it started. On Linux a
// command also gets SIGKILL when mcpship dies, even by SIGKILL, and what
// left the group is found by a marker variable in its environment
// ([Sweep]); docs/manifest.md says what each OS guarantees.
package procgroup

import "time"

// Grace is how long a process group gets between SIGTERM and SIGKILL.
const Grace = 2 * time.Second

// Stop ends a running process group led by pid: SIGTERM, then SIGKILL
// after Grace. waited receives the leader's Wait error, which Stop
// returns.
func Stop(pid int, waited <-chan error) error {
	Terminate(pid)
	select {
	case err := <-waited:
		return err
	case <-time.After(Grace):
	}
	Kill(pid)
	return <-waited
}

// Reap stops the processes left in the group after its leader pid
// exited: SIGTERM, then SIGKILL after Grace.
func Reap(pid int) {
	if !Alive(pid) {
		return
	}
	Terminate(pid)
	deadline := time.Now().Add(Grace)
	for Alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if Alive(pid) {
		Kill(pid)
		for deadline := time.Now().Add(time.Second); Alive(pid) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
}
