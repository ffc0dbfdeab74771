package wrap

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/internal/testutil"
)

// dump describes what parseHelp read, one line per item, for golden files.
func dump(h *help) string {
	var b strings.Builder
	fmt.Fprintf(&b, "layout: %s\n", h.layout.name)
	fmt.Fprintf(&b, "usage: %s\n", h.usage)
	for _, f := range h.forms {
		fmt.Fprintf(&b, "form: %s\n", f)
	}
	fmt.Fprintf(&b, "about: %s\n", h.about)
	for _, c := range h.commands {
		fmt.Fprintf(&b, "command: %s", c.name)
		if len(c.aliases) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(c.aliases, ", "))
		}
		if c.isDefault {
			b.WriteString(" [default]")
		}
		fmt.Fprintf(&b, ": %s\n", c.summary)
	}
	for _, a := range h.args {
		fmt.Fprintf(&b, "arg: %s required=%v array=%v\n", a.name, a.required, a.array)
	}
	for _, set := range []struct {
		what string
		fs   []option
	}{{"flag", h.flags}, {"inherited", h.inherited}} {
		for _, f := range set.fs {
			fmt.Fprintf(&b, "%s: %s %s\n", set.what, strings.Join(f.names, " "), describeType(f))
		}
	}
	for _, u := range h.unread {
		fmt.Fprintf(&b, "unread: %s\n", u)
	}
	return b.String()
}

// describeType is a flag's type as the golden files and the accuracy
// table give it: "integer", "array of string", "enum a|b", "skip: why".
func describeType(f option) string {
	var s string
	switch {
	case f.skip != "":
		return "skip: " + f.skip
	case len(f.enum) > 0:
		s = "enum " + strings.Join(f.enum, "|")
	default:
		s = f.typ
	}
	if f.array {
		s = "array of " + s
	}
	if f.hasDef {
		s += fmt.Sprintf(" default=%q", f.def)
	}
	if f.required {
		s += " required"
	}
	if f.guess != "" {
		s += " (guessed)"
	}
	return s
}

// TestHelpGolden reads each help text of testdata/help, captured from a
// real program (see the README there), and compares what was read with
// its .golden file.
func TestHelpGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/help/*.txt")
	if len(files) == 0 {
		t.Fatal("no help texts in testdata/help")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := dump(parseHelp(string(text)))
			testutil.Golden(t, strings.TrimSuffix(file, ".txt")+".golden", []byte(got))
		})
	}
}

// TestColoursAndTabs reads help printed with colour codes, carriage
// returns and tabs as if printed plainly.
func TestColoursAndTabs(t *testing.T) {
	plain := "Usage: tool [OPTIONS] <file>\n\nOptions:\n  -n, --lines <N>  how many lines\n  -h, --help       Print help\n"
	coloured := "\x1b[1;4mUsage:\x1b[0m tool [OPTIONS] <file>\r\n\r\n\x1b[1mOptions:\x1b[0m\r\n  \x1b[1m-n\x1b[0m, \x1b[1m--lines\x1b[0m <N>\thow many lines\r\n  -h, --help       Print help\r\n"
	want := dump(parseHelp(plain))
	if got := dump(parseHelp(coloured)); got != want {
		t.Errorf("coloured help read as\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(want, "layout: clap\n") || !strings.Contains(want, "flag: -n --lines integer (guessed)\n") {
		t.Errorf("plain help read as\n%s", want)
	}
}

// TestClickRequired reads Click's "[required]" as a required input.
func TestClickRequired(t *testing.T) {
	text := "Usage: greet [OPTIONS]\n\n  Greet someone.\n\nOptions:\n  --name TEXT      Who to greet.  [required]\n  --count INTEGER  How often.  [default: 1]\n  --help           Show this message and exit.\n"
	got := dump(parseHelp(text))
	for _, want := range []string{"layout: click\n", "flag: --name string required\n", "flag: --count integer default=\"1\"\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("read as\n%s\nwant a line %q", got, want)
		}
	}
}

// TestOddFlagSpellings reads flag lines as getopt_long, git and clap
// programs spell them.
func TestOddFlagSpellings(t *testing.T) {
	text := "Usage: odd [OPTIONS] <PATH>...\n\nOptions:\n" +
		"  -x, --exclude=<PATTERN>...    exclude entries matching PATTERN\n" +
		"      --[no-]color              colour the output\n" +
		"      --flag[=VALUE]            an optional value\n" +
		"  -j, --jobs[=N]                parallel jobs\n" +
		"  -h, --help                    Print help\n"
	got := dump(parseHelp(text))
	for _, want := range []string{
		"flag: -x --exclude array of string (guessed)\n",
		"flag: --color boolean\n",
		"flag: --flag string\n",
		"flag: -j --jobs integer (guessed)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no line %q in what was read:\n%s", want, got)
		}
	}
	if strings.Contains(got, "unread") {
		t.Errorf("a flag line was not read:\n%s", got)
	}
}
