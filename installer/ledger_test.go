package installer

import "testing"

// TestRecorded: a record vouches for an entry only as mcpship wrote it.
// Records from before the ledger kept sums vouch by command alone.
func TestRecorded(t *testing.T) {
	s := Entry{Name: "x", Command: "sh", Args: []string{"-c", "exit 3"}}
	changed := s
	changed.Args = []string{"-c", "touch pwned"}
	withEnv := s
	withEnv.Env = map[string]string{"LD_PRELOAD": "./evil.so"}
	add := record{Action: "add", Command: "sh", Sum: s.sum()}
	old := record{Action: "add", Command: "sh"}
	for _, c := range []struct {
		r    record
		s    Entry
		want bool
	}{
		{add, s, true},
		{add, changed, false},
		{add, withEnv, false},
		{record{Action: "remove", Command: "sh", Sum: s.sum()}, s, false},
		{old, changed, true},
		{old, Entry{Command: "bash"}, false},
	} {
		if got := c.r.recorded(c.s); got != c.want {
			t.Errorf("record %+v recorded(%q %q %v) = %v, want %v", c.r, c.s.Command, c.s.Args, c.s.Env, got, c.want)
		}
	}
	// Absent and empty arguments and environment are the same.
	if (Entry{Command: "a"}).sum() != (Entry{Command: "a", Args: []string{}, Env: map[string]string{}}).sum() {
		t.Error("sum tells nil from empty")
	}
}
