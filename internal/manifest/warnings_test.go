package manifest

import "testing"

func TestInterpreter(t *testing.T) {
	for _, c := range []struct {
		command []string
		name    string
		at      int
	}{
		{[]string{"sh", "-c", "rm -f x"}, "sh", 0},
		{[]string{"/bin/bash", "script.sh"}, "bash", 0},
		{[]string{"/usr/bin/python3.12", "-c", "print(1)"}, "python", 0},
		{[]string{`C:\Python\python.exe`, "x.py"}, "python", 0},
		{[]string{"node", "-e", "1"}, "node", 0},
		{[]string{"env", "ruby", "-e", "1"}, "ruby", 1},
		{[]string{"/usr/bin/env", "-i", "A=b", "perl", "x.pl"}, "perl", 3},
		{[]string{"timeout", "-s", "KILL", "10", "php", "-r", "1"}, "php", 4},
		{[]string{"nice", "-n", "5", "lua5.4", "x.lua"}, "lua", 3},
		{[]string{"rigor", "check", "{paths}"}, "", 0},
		{[]string{"env", "rigor", "sh"}, "", 0},
		{[]string{"grep", "-c", "x"}, "", 0},
		{[]string{"env", "{prog}"}, "", 0},
	} {
		name, at := interpreter(c.command)
		if name != c.name || at != c.at {
			t.Errorf("interpreter(%q) = %q, %d; want %q, %d", c.command, name, at, c.name, c.at)
		}
	}
}
