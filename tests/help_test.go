package tests

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestHelpStyle checks the flags in the help of every mcpship command
// for the one style of the README's tables: a flag that takes a value
// shows an upper-case placeholder of what it takes (never urfave/cli's
// "value"), a repeatable flag is written once (not "--f X [ --f X ]")
// and says "(repeatable", and a switch shows no "(default: false)".
func TestHelpStyle(t *testing.T) {
	out, err := exec.Command(binPath, "--generate-bash-completion").Output()
	if err != nil {
		t.Fatal(err)
	}
	cmds := [][]string{{}}
	for _, name := range strings.Fields(string(out)) {
		cmds = append(cmds, []string{name})
		subs, err := exec.Command(binPath, name, "--generate-bash-completion").Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, sub := range strings.Fields(string(subs)) {
			if name != "completion" {
				cmds = append(cmds, []string{name, sub})
			}
		}
	}
	if len(cmds) < 15 {
		t.Fatalf("found only %d commands: %v", len(cmds), cmds)
	}
	flagLine := regexp.MustCompile(`^   (-{1,2}[a-z0-9-]+)(?: (\S+(?: <\S+>"?)?))?(?:, -{1,2}[a-z0-9-]+(?: \S+)?)?\s{2,}(.*)$`)
	for _, args := range cmds {
		help, err := exec.Command(binPath, append(args, "--help")...).Output()
		if err != nil {
			t.Errorf("mcpship %s --help: %v", strings.Join(args, " "), err)
			continue
		}
		_, opts, ok := strings.Cut(string(help), "OPTIONS:\n")
		if !ok {
			continue
		}
		for _, line := range strings.Split(opts, "\n") {
			if !strings.HasPrefix(line, "   -") {
				continue
			}
			what := "mcpship " + strings.Join(args, " ") + " --help: " + strings.TrimSpace(line)
			m := flagLine.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%s: not a flag line of the one style", what)
				continue
			}
			if ph := m[2]; ph != "" && ph != strings.ToUpper(ph) {
				t.Errorf("%s: placeholder %q is not upper case", what, ph)
			}
			if strings.Contains(line, "[ -") {
				t.Errorf("%s: a repeatable flag written twice", what)
			}
			if strings.Contains(m[3], "repeat") && !strings.Contains(m[3], "(repeatable") {
				t.Errorf("%s: a repeatable flag says so as \"(repeatable\"", what)
			}
			if strings.Contains(m[3], "(default: false)") {
				t.Errorf("%s: a switch shows (default: false)", what)
			}
		}
	}
}
