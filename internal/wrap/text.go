package wrap

import (
	"strings"
)

// A section is a heading of a help text and the lines under it.
type section struct {
	heading string // lower case, without the colon; "" for the lines before the first heading
	inline  string // text after the colon on the heading's line, as in "Usage: fd [OPTIONS]"
	lines   []string
}

// An entry is one item of a section: a flag, a command or an argument,
// with its head (what is described) and its description.
type entry struct {
	head   string   // "-o, --output string"
	desc   []string // the description's lines, trimmed
	indent int
	nested []string // deeper lines kept as they are, for argparse's {a,b} command lists
}

// expandTabs replaces tabs by spaces up to the next multiple of 8, as a
// terminal shows them, and drops carriage returns and ANSI colour codes.
func expandTabs(s string) string {
	if !strings.ContainsAny(s, "\t\r\x1b") {
		return s
	}
	var b strings.Builder
	col := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\t':
			for n := 8 - col%8; n > 0; n-- {
				b.WriteByte(' ')
				col++
			}
		case '\r':
		case '\x1b': // skip "ESC [ ... letter"
			if i+1 < len(s) && s[i+1] == '[' {
				i += 2
				for i < len(s) && (s[i] < '@' || s[i] > '~') {
					i++
				}
			}
		case '\n':
			b.WriteByte(c)
			col = 0
		default:
			b.WriteByte(c)
			col++
		}
	}
	return b.String()
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// isHeading reports whether l starts a section: text at the left margin
// ending in a colon, of a few words ("Flags:", "positional arguments:",
// "GLOBAL OPTIONS:"), or a usage line ("Usage: fd [OPTIONS]").
func isHeading(l string) (heading, inline string, ok bool) {
	if t := strings.TrimSpace(l); t != "" && t == strings.ToUpper(t) && len(strings.Fields(t)) <= 3 &&
		strings.Trim(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZ ") == "" {
		return strings.ToLower(t), "", true // "  COMMANDS  " (Charm's fang, for Cobra)
	}
	if l == "" || l[0] == ' ' || l[0] == '-' {
		return "", "", false
	}
	lower := strings.ToLower(l)
	if strings.HasPrefix(lower, "usage:") {
		return "usage", strings.TrimSpace(l[len("usage:"):]), true
	}
	if strings.HasPrefix(lower, "usage of ") && strings.HasSuffix(l, ":") {
		return "usage of", "", true
	}
	if !strings.HasSuffix(l, ":") || len(strings.Fields(l)) > 4 || strings.ContainsAny(l, ".,`'\"") {
		return "", "", false
	}
	return strings.TrimSuffix(lower, ":"), "", true
}

// sections splits a help text at its headings, as layout l prints them.
// Option lines right after a usage line that has no heading of their own
// (GetOpt's usageInfo, some hand-written helps) are a section of options.
func sections(text string, l *layout) []section {
	var out []section
	cur := section{}
	for _, line := range strings.Split(expandTabs(text), "\n") {
		line = strings.TrimRight(line, " ")
		h, inline, ok := isHeading(line)
		if !ok && l.indentedHeadings {
			h, ok = indentedHeading(line)
		}
		if !ok && cur.heading == "usage" && cur.inline != "" && isOptionLine(line) {
			out = append(out, cur)
			cur = section{heading: "options", lines: []string{line}}
			continue
		}
		if ok {
			out = append(out, cur)
			cur = section{heading: h, inline: inline}
			continue
		}
		cur.lines = append(cur.lines, line)
	}
	return append(out, cur)
}

// indentedHeading reads argp's group headings: one space in, ending in a
// colon (" Main operation mode:"). The heading keeps its space: it names
// a group of options, which headings at the margin do not.
func indentedHeading(l string) (string, bool) {
	if len(l) < 3 || l[0] != ' ' || l[1] == ' ' || l[1] == '-' || !strings.HasSuffix(l, ":") {
		return "", false
	}
	return " " + strings.ToLower(strings.TrimSuffix(strings.TrimSpace(l), ":")), true
}

// isOptionLine reports whether l is an indented option with its
// description beside it: "  -a  --check-sourced  Include warnings".
func isOptionLine(l string) bool {
	t := strings.TrimSpace(l)
	if indentOf(l) == 0 || len(t) < 2 || t[0] != '-' || t[1] == ' ' {
		return false
	}
	_, desc := splitColumns(t)
	return desc != ""
}

// entries splits a section's lines into entries. An entry starts at a
// line no deeper than margin+slack (Cobra indents long-only flags by four
// more spaces than the others); deeper lines continue it. When flagsOnly,
// only lines starting with '-' start an entry.
func entries(lines []string, flagsOnly bool) []entry {
	slack := 0
	if flagsOnly {
		slack = 4
	}
	return entriesSlack(lines, flagsOnly, slack)
}

// entriesSlack is entries with the slack given.
func entriesSlack(lines []string, flagsOnly bool, slack int) []entry {
	// The margin of entries: the least indent of a flag line; the indent
	// of the first line of other lists, which a note at the left margin
	// may follow ("SUBCOMMANDS:", clap's "Note: ...").
	margin := -1
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && (!flagsOnly || t[0] == '-') && (margin < 0 || flagsOnly && indentOf(l) < margin) {
			margin = indentOf(l)
		}
	}
	if margin < 0 {
		return nil
	}
	var out []entry
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			if n := len(out); n > 0 && len(out[n-1].desc) > 0 {
				out[n-1].desc = append(out[n-1].desc, "")
			}
			continue
		}
		ind := indentOf(l)
		starts := ind <= margin+slack && ind >= margin && (!flagsOnly || t[0] == '-')
		if !starts {
			if len(out) == 0 || ind < margin {
				continue
			}
			e := &out[len(out)-1]
			e.desc = append(e.desc, t)
			e.nested = append(e.nested, l)
			continue
		}
		head, desc := splitColumns(t)
		if flagsOnly && strings.HasPrefix(desc, "--") && !strings.Contains(head, "--") {
			// GetOpt's two columns: "-f FORMAT    --format=FORMAT    Output format"
			long, rest := splitColumns(desc)
			head, desc = head+", "+long, rest
		}
		e := entry{head: head, indent: ind}
		if desc != "" {
			e.desc = []string{desc}
		}
		out = append(out, e)
	}
	for i := range out {
		for len(out[i].desc) > 0 && out[i].desc[len(out[i].desc)-1] == "" {
			out[i].desc = out[i].desc[:len(out[i].desc)-1]
		}
	}
	return out
}

// splitColumns splits "head  description" at the first run of two or
// more spaces outside brackets.
func splitColumns(t string) (head, desc string) {
	depth := 0
	for i := 0; i+1 < len(t); i++ {
		switch t[i] {
		case '[', '<', '{', '(':
			depth++
		case ']', '>', '}', ')':
			depth--
		case ' ':
			if depth <= 0 && t[i+1] == ' ' {
				return t[:i], strings.TrimSpace(t[i:])
			}
		}
	}
	return t, ""
}

// joinDesc joins description lines into one paragraph per blank line.
func joinDesc(lines []string) string {
	var paras []string
	var cur []string
	for _, l := range lines {
		if l == "" {
			if len(cur) > 0 {
				paras = append(paras, strings.Join(cur, " "))
			}
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	if len(cur) > 0 {
		paras = append(paras, strings.Join(cur, " "))
	}
	return strings.Join(paras, "\n\n")
}
