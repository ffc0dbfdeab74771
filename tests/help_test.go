package tests

import (
	"os/exec"
	"path/filepath"
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
	for _, args := range cmds {
		help, err := exec.Command(binPath, append(args, "--help")...).Output()
		if err != nil {
			t.Errorf("mcpship %s --help: %v", strings.Join(args, " "), err)
			continue
		}
		checkHelpStyle(t, "mcpship "+strings.Join(args, " ")+" --help", string(help))
	}
}

// TestAppHelpStyle checks that the init, remove and doctor commands an
// app adds with registercmd have mcpship's help style in the app's own
// help: an urfave/cli v2 app (goapp, which keeps urfave/cli's style for
// its other commands), and the Cobra and urfave/cli v3 apps that run them
// through registercmd.Run.
func TestAppHelpStyle(t *testing.T) {
	for _, app := range []string{goappPath, cobraappPath, cliv3appPath} {
		for _, cmd := range []string{"init", "remove", "doctor"} {
			what := filepath.Base(app) + " " + cmd + " --help"
			help, err := exec.Command(app, cmd, "--help").Output()
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			if !strings.Contains(string(help), "OPTIONS:\n") || !strings.Contains(string(help), "--client CLIENT") {
				t.Errorf("%s: no --client CLIENT among its options:\n%s", what, help)
			}
			checkHelpStyle(t, what, string(help))
		}
	}
}

var flagLine = regexp.MustCompile(`^   (-{1,2}[a-z0-9-]+)(?: (\S+(?: <\S+>"?)?))?(?:, -{1,2}[a-z0-9-]+(?: \S+)?)?\s{2,}(.*)$`)

// checkHelpStyle checks the flag lines of help, the output of what.
func checkHelpStyle(t *testing.T, what, help string) {
	t.Helper()
	_, opts, ok := strings.Cut(help, "OPTIONS:\n")
	if !ok {
		return
	}
	for _, line := range strings.Split(opts, "\n") {
		if !strings.HasPrefix(line, "   -") {
			continue
		}
		what := what + ": " + strings.TrimSpace(line)
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
