package wrap

import (
	"slices"
	"strings"
)

// help is what one help text says about one command.
type help struct {
	layout    *layout
	usage     string   // the usage line, joined
	forms     []string // the usage's other forms, when it shows several
	about     string   // the command's description
	commands  []subcommand
	flags     []option
	inherited []option
	args      []arg    // from an arguments section
	unread    []string // lines of flag sections that could not be read
	dropped   []string // commands listed but not drafted: help, completion
}

type subcommand struct {
	name      string
	aliases   []string
	summary   string
	isDefault bool // it runs when no command is given
}

// arg is a positional argument.
type arg struct {
	name     string
	required bool
	array    bool
	desc     string
}

// parseHelp reads a help text in the layout it detects.
func parseHelp(text string) *help {
	l := detect(text)
	h := &help{layout: l}
	seenUsage := false
	secs := sections(text, l)
	for i, s := range secs {
		k := l.kindOf(s, i == 0, seenUsage)
		seenUsage = seenUsage || k == usage
		h.readSection(k, s)
	}
	if l == fallback && len(h.flags) == 0 {
		// Option lines anywhere, as GNU programs print them.
		for _, s := range secs {
			fs, _ := readFlags(l, s.lines)
			h.flags = append(h.flags, fs...)
		}
	}
	if l == fallback {
		h.looseCommands(secs)
	}
	h.commands = slices.DeleteFunc(h.commands, func(c subcommand) bool {
		if c.name == "help" || c.name == "completion" {
			h.dropped = append(h.dropped, c.name)
			return true
		}
		return c.name == "" || c.summary == "==SUPPRESS==" // argparse's hidden commands
	})
	return h
}

// kindOf returns what a section holds: the first section, before any
// heading, describes the command; a heading the layout does not list
// holds what the layout's unknown says, except in a description printed
// before the usage line.
func (l *layout) kindOf(s section, first, seenUsage bool) kind {
	k, ok := l.headings[s.heading]
	switch {
	case first && s.heading == "" && l.manPage:
		return other // the page's header
	case first && s.heading == "" && l.usageFirst:
		return usage
	case first && s.heading == "":
		return about
	case l.indentedHeadings && strings.HasPrefix(s.heading, " "):
		return flags
	case !ok && l.describeFirst && !seenUsage:
		return other // "EXIT STATUS", "The modes are:" in a Cobra command's Long
	case !ok && isCommandsHeading(s.heading):
		return commands // "Management Commands:", "CORE COMMANDS"
	case !ok:
		return l.unknown
	}
	return k
}

// readSection reads one section as holding k.
func (h *help) readSection(k kind, s section) {
	switch k {
	case usage:
		h.readUsage(s)
	case about:
		h.readAbout(s)
	case flags, inherited:
		fs, unread := readFlags(h.layout, s.lines)
		h.unread = append(h.unread, unread...)
		if k == flags {
			h.flags = append(h.flags, fs...)
		} else {
			h.inherited = append(h.inherited, fs...)
		}
	case commands:
		h.commands = append(h.commands, readCommands(s.lines)...)
	case args:
		as, cmds := readArgs(s.lines)
		h.args = append(h.args, as...)
		h.commands = append(h.commands, cmds...)
	case mixed:
		fs, _ := readFlags(h.layout, s.lines)
		h.flags = append(h.flags, fs...)
		for _, e := range entries(s.lines, false) {
			if strings.HasPrefix(e.head, "{") {
				h.commands = append(h.commands, readCommands(e.nested)...)
			}
		}
	}
}

// readUsage reads a usage section: the usage line, wrapped or not, the
// other forms it shows, and a description printed after it.
func (h *help) readUsage(s section) {
	if s.inline != "" {
		h.usage = s.inline
	}
	indent := -1 // of the first form, on a line of its own
	for _, line := range s.lines {
		t := strings.TrimSpace(line)
		if t == "" {
			if h.usage != "" {
				break
			}
			continue
		}
		if h.usage != "" && (indentOf(line) == 0 || strings.HasPrefix(strings.ToLower(t), "or:")) {
			break // the end, or GNU's other forms ("  or:  sort --files0-from=F")
		}
		switch {
		case h.usage == "":
			h.usage, indent = t, indentOf(line)
		case indentOf(line) == indent || indent < 0 && firstWord(t) == firstWord(h.usage):
			h.forms = append(h.forms, t) // another form: "pip cache dir", "pip cache info"
		case len(h.forms) > 0:
			h.forms[len(h.forms)-1] += " " + t
		default: // the usage, wrapped
			h.usage += " " + t
		}
	}
	if s.inline != "" && h.about == "" {
		// Click and argparse put the description after the usage line.
		h.about = aboutText(s.lines, true)
	}
}

// readAbout reads a section that describes the command.
func (h *help) readAbout(s section) {
	if s.heading == "name" { // urfave/cli: "prog sub - what it does"
		_, d, _ := strings.Cut(strings.TrimSpace(strings.Join(s.lines, " ")), " - ")
		s.lines = []string{d}
	}
	if d := aboutText(s.lines, false); d != "" && h.about == "" {
		h.about = d
	}
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// aboutText returns the first paragraph of lines that is prose, not a
// usage line or a list.
func aboutText(lines []string, afterUsage bool) string {
	var para []string
	started := !afterUsage
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if !started {
			// After the blank line that ends the usage, or at the first
			// line at the margin (GNU: "Search for PATTERNS in each FILE.").
			started = t == "" || indentOf(l) == 0 && !strings.HasPrefix(strings.ToLower(t), "or:")
			if t == "" {
				continue
			}
		}
		if !started {
			continue
		}
		if t == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, t)
	}
	return strings.Join(para, " ")
}

// readCommands reads "name, alias  summary" entries.
func readCommands(lines []string) []subcommand {
	var out []subcommand
	for _, e := range entries(lines, false) {
		if strings.HasPrefix(e.head, "{") { // argparse's list of subcommands
			out = append(out, readCommands(e.nested)...)
			continue
		}
		c := subcommand{name: e.head, summary: joinDesc(e.desc)}
		markDefault(&c)
		head := c.name
		// goreleaser's "check [configuration files] [--flags]", argparse's "name (alias)"
		if i := strings.IndexAny(head, "[<("); i > 0 {
			head = strings.TrimSpace(head[:i])
		}
		if strings.HasSuffix(head, ":") {
			if len(e.desc) == 0 { // a category heading inside the list
				continue
			}
			head = strings.TrimSuffix(head, ":") // gh: "auth:        Authenticate gh"
		}
		// "name" or "name, alias": a line of prose is not a command.
		var names []string
		for _, n := range strings.Split(head, ",") {
			if n = strings.TrimSpace(n); validCommandName(n) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			continue
		}
		c.name, c.aliases = names[0], names[1:]
		out = append(out, c)
	}
	return out
}

func validCommandName(n string) bool {
	if n == "" || n[0] == '-' {
		return false
	}
	for _, r := range n {
		if !(r == '-' || r == '_' || r == '.' || r == ':' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return true
}

// readArgs reads an arguments section: "[path]...  description".
// argparse lists its subcommands there too, as "{a,b}" with the commands
// below.
func readArgs(lines []string) ([]arg, []subcommand) {
	var as []arg
	var cmds []subcommand
	for _, e := range entries(lines, false) {
		if strings.HasPrefix(e.head, "{") {
			cmds = append(cmds, readCommands(e.nested)...)
			continue
		}
		a, ok := parseArgToken(e.head)
		if !ok || len(strings.Fields(strings.Trim(e.head, "<>[]."))) > 1 && !strings.Contains(e.head, "[") {
			continue // a line of prose in the section (httpie's), not an argument
		}
		a.desc = joinDesc(e.desc)
		as = append(as, a)
	}
	return as, cmds
}

// parseArgToken reads "<file>", "[path]...", "FILE", "FILE [FILE ...]".
func parseArgToken(s string) (arg, bool) {
	a := arg{required: true}
	if strings.HasSuffix(s, "...") {
		a.array = true
		s = strings.TrimSpace(strings.TrimSuffix(s, "..."))
	}
	if i := strings.Index(s, " ["); i > 0 && strings.Contains(s[i:], "...") { // FILE [FILE ...]
		a.array = true
		s = s[:i]
	}
	switch {
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		a.required = false
		s = strings.TrimSpace(s[1 : len(s)-1])
		if strings.HasSuffix(s, "...") {
			a.array = true
			s = strings.TrimSpace(strings.TrimSuffix(s, "..."))
		}
		if f := strings.Fields(s); len(f) == 2 && f[1] == "..." {
			s = f[0]
		}
	case strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">"):
		s = s[1 : len(s)-1]
	}
	s = strings.Trim(s, "<>")
	a.name = inputName(s)
	return a, a.name != "" && !strings.ContainsAny(s, "|{}[]")
}

// inputName makes an input name of a placeholder: lower case, runs of
// other characters as '_'.
func inputName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '-' && b.Len() > 0:
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	n := strings.Trim(b.String(), "_-")
	if n == "" || '0' <= n[0] && n[0] <= '9' {
		return ""
	}
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}
