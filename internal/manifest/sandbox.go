package manifest

import (
	"fmt"
	"os"

	"github.com/mcpship/mcpship/internal/sandbox"
)

// SandboxMeta is the key of a tool's _meta in tools/list that says how
// the programs of a read-only tool are confined (package sandbox): as
// in "landlock-v7", or "none: " and why.
const SandboxMeta = "io.mcpship/sandbox"

// openWorld reports whether the tool declares "openWorld": true, which
// lets its programs reach the network when it is read-only.
func (t *tool) openWorld() bool { return t.spec.OpenWorld != nil && *t.spec.OpenWorld }

// policy is the sandbox of the tool's programs, nil for a tool that is
// not read-only or where programs cannot be confined.
func (t *tool) policy() *sandbox.Policy {
	if !t.readOnly || !sandbox.Confines() {
		return nil
	}
	return &sandbox.Policy{Network: t.openWorld()}
}

// confine readies a cold run of the tool: for a read-only one, a
// private TMPDIR in env and the policy that lets it write there. done
// removes the folder, once the run's processes are gone.
func (t *tool) confine(env []string) (_ []string, _ *sandbox.Policy, done func(), _ error) {
	p := t.policy()
	if p == nil {
		return env, nil, func() {}, nil
	}
	tmp, err := sandbox.TempDir()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot make the private TMPDIR of read-only %s: %v", t.spec.Name, err)
	}
	p.Writable = []string{tmp}
	return sandbox.Env(env, tmp), p, func() { _ = os.RemoveAll(tmp) }, nil
}

// refused returns the stderr line of a confined run that reports a
// write or connection the sandbox refused, "" when none does.
func (t *tool) refused(r *runResult) string {
	if !r.confined {
		return ""
	}
	dir := t.dir
	if dir == "" {
		dir = "."
	}
	return sandbox.Refused(r.out.Stderr.String(), dir, r.writable)
}

// refusal is the message of a result whose program the sandbox refused
// a write or connection.
func (t *tool) refusal(line string) string {
	may := "write only in its private TMPDIR"
	if !t.openWorld() {
		may += " and open no network connection"
	}
	return fmt.Sprintf("blocked by the read-only sandbox: %s. %s is declared read-only (%s in %s), so its program may %s; if it must do more, declare it \"readOnly\": false.",
		line, t.spec.Name, t.path, t.m.file, may)
}

// Sandboxes returns, for each read-only tool, how its programs are
// confined (see [SandboxMeta]), by tool name.
func (m *Manifest) Sandboxes() map[string]string {
	out := map[string]string{}
	for _, t := range m.tools {
		if t.readOnly {
			out[t.spec.Name] = sandbox.Status(t.openWorld())
		}
	}
	return out
}
