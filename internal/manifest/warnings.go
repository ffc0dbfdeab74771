package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Warnings reports what would make calls fail although the manifest is
// valid: programs not found and working directories missing on this
// machine, numbers in positional slots, where a negative value cannot be
// passed, and read-only tools whose program is a shell or an interpreter,
// which runs whatever code it is given.
// It returns nil when there is nothing to report.
func (m *Manifest) Warnings() *Problems {
	l := newProblemList(m.probs.data, m.probs.root)
	seen := map[string]bool{}
	for _, t := range m.tools {
		if prog := t.spec.Command[0]; !seen[prog] { // once per program
			if _, err := t.lookPath(prog); err != nil {
				l.add(t.path+".command[0]", "warning: %v", err)
			}
			seen[prog] = true
		}
		if t.dir != "" {
			if fi, err := os.Stat(t.dir); err != nil || !fi.IsDir() {
				l.add(t.path, "warning: working directory %s does not exist here", t.dir)
			}
		}
		if name, at := interpreter(t.spec.Command); t.readOnly && name != "" {
			l.add(fmt.Sprintf("%s.command[%d]", t.path, at), "warning: %s is a shell or an interpreter: it runs whatever code it is given, "+
				"so \"readOnly\": true, which lets clients run the tool without asking, rests on that code alone; "+
				"make sure it only reads, or drop \"readOnly\"", filepath.Base(t.spec.Command[at]))
		}
		for _, s := range t.negative {
			l.add(s.path, "warning: {%s} is a number in a positional slot, where a negative value would be read as an option, so calls with one are refused; "+
				"give the input a \"flag\", put \"--\" before it in \"command\", or declare \"minimum\": 0", s.input)
		}
	}
	if len(l.list) == 0 {
		return nil
	}
	return &Problems{File: m.file, List: l.list}
}

// interpreters are programs that run code given to them, by basename
// without a version (python3.12 is python) or ".exe".
var interpreters = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true,
	"csh": true, "tcsh": true, "busybox": true, "xonsh": true, "nu": true, "elvish": true,
	"cmd": true, "powershell": true, "pwsh": true, "wsl": true, "osascript": true, "wscript": true, "cscript": true,
	"python": true, "pythonw": true, "pypy": true, "ipython": true, "node": true, "nodejs": true, "deno": true, "bun": true,
	"ruby": true, "irb": true, "jruby": true, "perl": true, "php": true, "lua": true, "luajit": true, "tclsh": true,
	"wish": true, "expect": true, "rscript": true, "r": true, "julia": true, "groovy": true, "jshell": true,
	"scala": true, "kotlin": true, "elixir": true, "erl": true, "escript": true, "guile": true, "racket": true,
	"sbcl": true, "clojure": true, "awk": true, "gawk": true, "mawk": true, "nawk": true, "swift": true,
}

// launchers run the program named by their first argument that is not an
// option or, for env, an assignment; each maps to the letters of its
// short options that take a value in the next argument.
var launchers = map[string]string{
	"env": "uCS", "nice": "n", "nohup": "", "stdbuf": "ioe", "timeout": "sk", "time": "fo",
	"sudo": "ugCDhprtUT", "doas": "uC", "chronic": "", "setsid": "", "ionice": "cnp", "chrt": "",
}

// interpreter returns the name of the shell or interpreter command runs,
// itself or through launchers such as env, and the index of its element;
// "" when it runs neither.
func interpreter(command []string) (name string, at int) {
	for i := 0; i < len(command); i = launched(command, i) {
		base := programName(command[i])
		if interpreters[base] {
			return base, i
		}
		if _, ok := launchers[base]; !ok {
			break
		}
	}
	return "", 0
}

// launched returns the index of the program that the launcher at
// command[i] runs: past its options, their values and assignments.
func launched(command []string, i int) int {
	base := programName(command[i])
	valued := launchers[base]
	for i++; i < len(command); i++ {
		arg := command[i]
		switch {
		case len(arg) == 2 && arg[0] == '-' && strings.IndexByte(valued, arg[1]) >= 0:
			i++ // the option's value
		case strings.HasPrefix(arg, "-") || strings.Contains(arg, "="):
		case base == "timeout" || base == "chrt":
			base = "" // the duration, the priority
		default:
			return i
		}
	}
	return i
}

// programName is a program's basename in lower case without ".exe" and
// a version: "/usr/bin/python3.12" is "python".
func programName(prog string) string {
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(prog, `\`, "/")))
	base = strings.TrimSuffix(base, ".exe")
	if trimmed := strings.TrimRight(base, "0123456789.-"); trimmed != "" {
		base = trimmed
	}
	return base
}
