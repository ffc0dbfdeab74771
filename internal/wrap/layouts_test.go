package wrap

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// flagOf returns the flag of a help text spelled so, or fails.
func flagOf(t *testing.T, h *help, spelling string) option {
	t.Helper()
	for _, f := range append(h.flags, h.inherited...) {
		if f.spelling == spelling {
			return f
		}
	}
	t.Fatalf("no flag %s in what was read:\n%s", spelling, dump(h))
	return option{}
}

// TestLayoutsTakeOptionsAsTheProgram reads each layout that issue 19
// names the way its program takes options: spellings, values, types.
func TestLayoutsTakeOptionsAsTheProgram(t *testing.T) {
	for _, c := range []struct {
		fixture, spelling string
		names             []string
		want              string // describeType
	}{
		// GetOpt: the long spelling in its own column is kept.
		{"getopt-shellcheck", "--format", []string{"-f", "--format"}, "enum checkstyle|diff|gcc|json|json1|quiet|tty"},
		{"getopt-shellcheck", "--norc", []string{"--norc"}, "boolean"},
		{"getopt-shellcheck", "--color", []string{"-C", "--color"}, "enum auto|always|never"},
		// argp: options in groups under indented headings; one space
		// before a description when the name fills its column.
		{"argp-tar", "--exclude-caches-under", []string{"--exclude-caches-under"}, "boolean"},
		{"argp-tar", "--catenate", []string{"-A", "--catenate", "--concatenate"}, "boolean"},
		{"argp-tar", "--listed-incremental", []string{"-g", "--listed-incremental"}, "string"},
		{"argp-tar", "--sort", []string{"--sort"}, "enum none|name|inode"},
		// clap 3: possible values across a line break; bat's *default*.
		{"clap3-tealdeer", "--platform", []string{"-p", "--platform"}, "enum linux|macos|windows|sunos|osx"},
		{"clap3-bat", "--italic-text", []string{"--italic-text"}, "enum always|never"},
		{"clap3-lsd", "--ignore-glob", []string{"-I", "--ignore-glob"}, `array of string default="" (guessed)`},
		// Single-dash words, -[no]name.
		{"plain-sqlite3", "-separator", []string{"-separator"}, "string"},
		{"plain-sqlite3", "-header", []string{"-header"}, "boolean (guessed)"},
		// Two values are not one string: a name and a value make a map,
		// others are not offered.
		{"plain-jq", "--arg", []string{"--arg"}, "object"},
		{"clap-hyperfine", "--parameter-list", []string{"-L", "--parameter-list"}, "object"},
		{"plain-sqlite3", "-lookaside", []string{"-lookaside"}, "skip: it takes 2 values (SIZE N)"},
		// Repeatable, as the description says.
		{"argparse-httpie", "--format-options", []string{"--format-options"}, "array of string (guessed)"},
		// A manual page: -S<string> is a string, --x[=a|b] an enum, the
		// value-taking spelling wins over --no-x.
		{"man-git-log", "-S", []string{"-S"}, "string"},
		{"man-git-log", "--decorate", []string{"--no-decorate", "--decorate"}, "enum short|full|auto|no"},
		{"man-git-log", "--exclude-hidden", []string{"--exclude-hidden"}, "enum receive|uploadpack"},
		{"man-git-log", "--color", []string{"--color"}, "enum always|never|auto"},
		{"man-git-log", "--ignore-submodules", []string{"--ignore-submodules"}, "enum none|untracked|dirty|all"},
		{"man-git-log", "-L", []string{"-L"}, "array of string (guessed)"},
		{"man-git-log", "--stat", []string{"--stat"}, "string"},
	} {
		h := readFixture(t, c.fixture)
		f := flagOf(t, h, c.spelling)
		if !slices.Equal(f.names, c.names) || describeType(f) != c.want {
			t.Errorf("%s %s: read as %q %s, want %q %s", c.fixture, c.spelling, f.names, describeType(f), c.names, c.want)
		}
	}
}

// TestLayoutsOfDescriptions checks what each new layout reads besides
// options: the usage (not option lines wrapped into it) and the
// description (not a manual page's header).
func TestLayoutsOfDescriptions(t *testing.T) {
	for _, c := range []struct{ fixture, layout, usage, about string }{
		{"getopt-shellcheck", "GetOpt", "shellcheck [OPTIONS...] FILES...", ""},
		{"argp-tar", "argp", "tar [OPTION...] [FILE]...", "GNU 'tar' saves many files together into a single tape or disk archive, and can restore individual files from the archive."},
		{"man-git-log", "man page", "git log [<options>] [<revision-range>] [[--] <path>...]", "Show commit logs"},
		{"clap3-bat", "clap", "batcat [OPTIONS] [FILE]...", "bat 0.22.1 A cat(1) clone with syntax highlighting and Git integration."},
	} {
		h := readFixture(t, c.fixture)
		if h.layout.name != c.layout || h.usage != c.usage || h.about != c.about {
			t.Errorf("%s: read as %s, usage %q, about %q; want %s, %q, %q", c.fixture, h.layout.name, h.usage, h.about, c.layout, c.usage, c.about)
		}
	}
	// No option of tar is read from its closing notes ("*This* tar
	// defaults to: --format=gnu -f- -b20 ...").
	h := readFixture(t, "argp-tar")
	n := 0
	for _, f := range h.flags {
		if f.spelling == "--format" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("tar: --format read %d times, want once", n)
	}
}

// TestCommandSections reads every section that lists commands, whatever
// its heading, and the commands a help lists without one.
func TestCommandSections(t *testing.T) {
	// A help in the layout docker's CLI prints: headings of its own.
	text := "\nUsage:  dock [OPTIONS] COMMAND\n\nA self-sufficient runtime\n\n" +
		"Common Commands:\n  run         Create and run a new container\n  ps          List containers\n\n" +
		"Management Commands:\n  image*      Manage images\n  volume      Manage volumes\n\n" +
		"Swarm Commands:\n  swarm       Manage Swarm\n\n" +
		"Commands:\n  inspect     Return low-level information\n\n" +
		"Global Options:\n      --config string      Location of client config files\n  -D, --debug              Enable debug mode\n"
	h := parseHelp(text)
	var names []string
	for _, c := range h.commands {
		names = append(names, c.name)
	}
	if want := []string{"run", "ps", "image", "volume", "swarm", "inspect"}; !slices.Equal(names, want) {
		t.Errorf("commands %q, want %q", names, want)
	}
	if len(h.flags) != 2 {
		t.Errorf("flags: %d, want 2:\n%s", len(h.flags), dump(h))
	}
	for _, c := range []struct {
		fixture string
		first   string
		n       int
	}{
		{"cobra-gh", "auth", 20},   // CORE COMMANDS, "auth:   Authenticate ..."
		{"plain-git", "clone", 22}, // groups under titles of git's own
		{"clap3-bat", "cache", 1},  // SUBCOMMANDS:, then a note at the margin
		{"click-sqlite-utils", "query", 44},
	} {
		h := readFixture(t, c.fixture)
		if len(h.commands) != c.n || h.commands[0].name != c.first {
			t.Errorf("%s: %d commands, first %v; want %d, first %s", c.fixture, len(h.commands), h.commands[:min(1, len(h.commands))], c.n, c.first)
		}
	}
	if cmds := readFixture(t, "argp-tar").commands; len(cmds) != 0 {
		t.Errorf("tar: %d commands read from its lists of values", len(cmds))
	}
}

// TestCommandsThatRunThemselves drafts a command that has subcommands and
// runs by itself as a tool beside its subcommands' tools; one that only
// groups them is not; a default command and the commands not drafted are
// reported.
func TestCommandsThatRunThemselves(t *testing.T) {
	for _, c := range []struct {
		prog   string
		texts  map[string]string
		tools  []string
		report string
	}{
		{"hugo", map[string]string{"hugo": "cobra-hugo", "hugo version": "cobra-hugo-version"}, []string{"hugo", "hugo_version"},
			"hugo: cobra help; 11 subcommands; not drafted: completion, help (help and shell completion)"},
		{"batcat", map[string]string{"batcat": "clap3-bat", "batcat cache": "clap3-bat-cache"}, []string{"batcat", "batcat_cache"},
			"batcat: clap help; 1 subcommand"},
		{"yq", map[string]string{"yq": "cobra-yq", "yq eval": "cobra-yq-eval", "yq eval-all": "cobra-yq-eval"}, []string{"yq", "yq_eval", "yq_eval-all"},
			"yq: cobra help; 2 subcommands; eval is the default command (it runs when none is given)"},
		{"kubectl", map[string]string{"kubectl": "kubectl", "kubectl get": "kubectl-get"}, []string{"kubectl_get"}, "kubectl: kubectl help; 41 subcommands"},
	} {
		run, _ := helpsOf(t, c.texts)
		// bat's cache changes its cache: drafted only when allowed.
		res, err := draft(context.Background(), []string{c.prog}, Options{Allow: []string{"batcat cache"}}, run)
		if err != nil {
			t.Fatalf("%s: %v", c.prog, err)
		}
		var tools []string
		for _, name := range res.Tools {
			if slices.Contains(c.tools, name) {
				tools = append(tools, name)
			}
		}
		if !slices.Equal(tools, c.tools) || !slices.ContainsFunc(res.Recognised, func(s string) bool { return strings.HasPrefix(s, c.report) }) {
			t.Errorf("%s: tools %q, recognised:\n%s\nwant tools %q and %q", c.prog, res.Tools, strings.Join(res.Recognised, "\n"), c.tools, c.report)
		}
	}
	// The tool of the command itself takes the form of its usage that
	// runs it: bat's files, not its <SUBCOMMAND>.
	run, _ := helpsOf(t, map[string]string{"batcat": "clap3-bat", "batcat cache": "clap3-bat-cache"})
	res, err := draft(context.Background(), []string{"batcat"}, Options{}, run)
	if err != nil {
		t.Fatal(err)
	}
	bat := decode(t, res).Tools[0]
	if got := bat.Command[len(bat.Command)-2:]; !slices.Equal(got, []string{"--", "{file}"}) || bat.Inputs["subcommand"] != nil {
		t.Errorf("batcat: command ends %q, inputs %v", got, bat.Inputs)
	}
}

// TestEnumsInProse reads the values a description lists in a sentence,
// without its other words.
func TestEnumsInProse(t *testing.T) {
	for _, c := range []struct{ desc, want string }{
		{"Protocol version to speak, 1 or 2.", "1|2"},
		{"Verbosity: 0, 1, or 2", "0|1|2"},
		{"Retry 0 or more times", ""},
		{"<when> must be one of always, never, or auto, which is the default", "always|never|auto"},
		{"the format, one of json, yaml or format:<string>", ""}, // the last value takes an argument
		{"Use color (auto, always, never)", "auto|always|never"},
		{"paths (Windows, too)", ""}, // two words in parentheses are prose
		{"directory sorting order: none (default), name or inode", "none|name|inode"},
	} {
		if got := strings.Join(enumIn(c.desc), "|"); got != c.want {
			t.Errorf("%q: enum %q, want %q", c.desc, got, c.want)
		}
	}
}

// TestLooseCommandsNeedGroups reads commands without a heading only in
// groups under titles, as git lists them: a program that runs the
// command it is given, whose help has one table of values, has none (its
// values would be run as commands when their help is asked for).
func TestLooseCommandsNeedGroups(t *testing.T) {
	text := "Usage: runner [OPTION] COMMAND [ARG]...\nRun COMMAND with a signal sent after a while.\n\n" +
		"Signals:\n  TERM      the default\n  KILL      cannot be caught\n\n" +
		"  -s, --signal=SIGNAL   the signal to send\n"
	if h := parseHelp(text); len(h.commands) != 0 {
		t.Errorf("commands %v read from a table of values", h.commands)
	}
	text = "usage: tool <command> [<args>]\n\nGroup one\n   alpha     Do a\n   beta      Do b\n\nGroup two\n   gamma     Do c\n"
	h := parseHelp(text)
	var names []string
	for _, c := range h.commands {
		names = append(names, c.name)
	}
	if !slices.Equal(names, []string{"alpha", "beta", "gamma"}) {
		t.Errorf("commands %q, want alpha, beta, gamma", names)
	}
}

// TestItselfIsCheckedAsAProgram drafts a program's own tool as not
// read-only when its description says it writes, as for a program
// without subcommands.
func TestItselfIsCheckedAsAProgram(t *testing.T) {
	text := "Deletes old files.\n\nUsage:\n  sweep [flags]\n  sweep [command]\n\nAvailable Commands:\n  list        List old files\n\nFlags:\n  -h, --help   help for sweep\n"
	list := "List old files\n\nUsage:\n  sweep list [flags]\n\nFlags:\n  -h, --help   help for list\n"
	run := func(_ context.Context, argv []string, _ time.Duration) (string, error) {
		if len(argv) > 2 {
			return list, nil
		}
		return text, nil
	}
	res, err := draft(context.Background(), []string{"sweep"}, Options{}, run)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Tools, []string{"sweep", "sweep_list"}) || !slices.ContainsFunc(res.Review, func(s string) bool {
		return strings.HasPrefix(s, `sweep (tool sweep): its help says "deletes"`)
	}) {
		t.Errorf("tools %q, review %q", res.Tools, res.Review)
	}
}
