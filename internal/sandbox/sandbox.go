// Package sandbox runs the programs of read-only tools confined: they
// read as any program of the user does, but write only in the folders
// they are given (a private TMPDIR) and, unless they may reach the
// world, open no TCP connection and bind no port. On Linux the
// confinement is Landlock's; elsewhere, and on a kernel without it,
// programs run unconfined and [Available] says why.
//
// Only the started program and its children are confined, never
// mcpship: the ruleset is enforced on an OS thread of its own, which
// starts the program (a child inherits its thread's Landlock domain) and
// is then ended.
package sandbox

import (
	"os"
	"os/exec"
)

// Policy is what a confined program may do besides reading and
// executing anywhere.
type Policy struct {
	// Writable are the folders the program may create, write, rename
	// and remove files in, everything under them included. The null
	// device and the other character devices that discard or make
	// bytes (/dev/zero, /dev/full, /dev/tty) are always writable.
	Writable []string
	// Network lets the program open TCP connections and bind TCP
	// ports, as a tool that declares "openWorld" may.
	Network bool
}

// Start starts cmd confined by p (unconfined when p is nil) and returns
// a channel that receives cmd.Wait's error. The thread that started
// cmd waits for it, so that a Pdeathsig in cmd.SysProcAttr, which the
// kernel ties to the starting thread, fires only when mcpship dies.
func Start(cmd *exec.Cmd, p *Policy) (<-chan error, error) {
	waited := make(chan error, 1)
	if p == nil {
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		go func() { waited <- cmd.Wait() }()
		return waited, nil
	}
	started := make(chan error, 1)
	go func() {
		err := Do(p, func() error {
			if err := cmd.Start(); err != nil {
				return err
			}
			started <- nil
			waited <- cmd.Wait()
			return nil
		})
		if err != nil {
			started <- err
		}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return waited, nil
}

// TempDir makes a private temporary folder for one confined program, in
// mcpship's own temporary folder, readable by its owner only. The
// caller removes it once the program and its children are gone.
func TempDir() (string, error) {
	return os.MkdirTemp("", "mcpship-tmp-")
}

// Env returns env with TMPDIR set to dir, replacing any TMPDIR there:
// programs that follow TMPDIR then write their temporary files where a
// confined program may.
func Env(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if len(kv) >= 7 && kv[:7] == "TMPDIR=" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "TMPDIR="+dir)
}
