package wrap

import (
	"fmt"
	"slices"
	"strings"
)

// isCommandsHeading reports whether a heading the layout does not know
// names a list of commands: "Management Commands", "Common Commands",
// gh's "CORE COMMANDS", "Available subcommands".
func isCommandsHeading(heading string) bool {
	h := strings.TrimSpace(heading)
	return strings.HasSuffix(h, " commands") || strings.HasSuffix(h, "subcommands") || h == "commands"
}

// reCommandWord is a usage word that stands for a subcommand.
var reCommandWord = re(`(?i)^[\[<]*(?:sub)?commands?(?:[\]>.\s]|$)|^\{`) // argparse: {a,b,c}

// hasCommandWord reports whether a usage, after the program and depth
// subcommand names, has a word for a subcommand: COMMAND, <SUBCOMMAND>,
// [command].
func hasCommandWord(form string, depth int) bool {
	groups := usageGroups(form)
	if len(groups) <= depth+1 {
		return false
	}
	return slices.ContainsFunc(groups[depth+1:], func(g string) bool { return reCommandWord().MatchString(g) })
}

// looseCommands reads the commands of a help that lists them in groups
// under titles of its own ("start a working area (see also: ...)" in
// git's help): indented lines of a command name and its summary, right
// under a title at the margin. Only when the usage names a command, and
// only two groups or more: a program that runs the command it is given
// would run a word of a table of values taken for a command.
func (h *help) looseCommands(secs []section) {
	if len(h.commands) > 0 || !hasCommandWord(h.usage, 0) {
		return
	}
	var found []subcommand
	groups := 0
	for _, s := range secs {
		inGroup, n := false, 0 // after a title at the margin; its commands
		for _, l := range s.lines {
			t := strings.TrimSpace(l)
			head, desc := splitColumns(t)
			switch ind := indentOf(l); {
			case t != "" && ind == 0:
				inGroup, n = true, 0
			case inGroup && t != "" && ind <= 8 && desc != "" && validCommandName(head):
				found = append(found, subcommand{name: head, summary: desc})
				if n++; n == 1 {
					groups++
				}
			default:
				inGroup = false
			}
		}
	}
	if groups >= 2 {
		h.commands = found
	}
}

// markDefault reads a command that runs when none is given: Click's
// default group marks it "query*", Cobra programs say "(default)" first.
func markDefault(c *subcommand) {
	if n, ok := strings.CutSuffix(c.name, "*"); ok && n != "" {
		c.name, c.isDefault = n, true
	}
	if strings.HasPrefix(c.summary, "(default)") { // kept: the tool's description says so too
		c.isDefault = true
	}
}

// ownForm returns the form of a command's usage that runs the command
// itself, although it has subcommands: a form without a word for a
// subcommand beside one with it ("hugo [flags]" beside "hugo [command]";
// a usage of one form says nothing, as kubectl's "kubectl [flags]"), or,
// in clap, one whose subcommand is optional ("[COMMAND]"). "" when every
// form wants a subcommand.
func (h *help) ownForm(depth int) string {
	forms := append([]string{h.usage}, h.forms...)
	for _, form := range forms {
		if form == "" {
			continue
		}
		if len(forms) > 1 && !hasCommandWord(form, depth) {
			// Cobra prints "prog [flags]" only for a command that runs.
			return form
		}
		if h.layout.name == "clap" {
			groups := usageGroups(form)
			for _, g := range groups[min(depth+1, len(groups)):] {
				if u := strings.ToUpper(g); u == "[COMMAND]" || u == "[SUBCOMMAND]" {
					return strings.Replace(form, " "+g, "", 1)
				}
			}
		}
	}
	return ""
}

// itself returns the command n as a command of its own, without its
// subcommands, when its usage says it runs by itself (hugo builds a site,
// bat prints files); nil when it only groups its subcommands.
func itself(n *node) *node {
	form := n.help.ownForm(len(n.path))
	if form == "" {
		return nil
	}
	h := *n.help
	h.usage, h.forms, h.commands, h.dropped = form, nil, nil, nil
	self := *n
	self.help = &h
	return &self
}

// draftItself drafts a command that has subcommands as a tool of its own
// too, when it runs by itself. The command given is checked as a program
// without subcommands is (its subcommands were checked in their parent's
// list): what its name or description says.
func (d *drafter) draftItself(n *node, summary string) {
	self := itself(n)
	if self == nil {
		return
	}
	if len(n.path) == d.base {
		name := d.commandName(n.path)
		if j := judgeCommand([]string{name}, n.help.about); j.verdict == excluded {
			if !d.allowed(n.path) {
				d.res.LeftOut = append(d.res.LeftOut, fmt.Sprintf("%s: %s; to draft it, add --allow %q", d.cmdline(n.path), j.why, d.cmdline(n.path)))
				return
			}
			self.allowed = true
		}
	}
	d.walk(self, summary)
}

// commandsNote says what a command's list of subcommands holds, for the
// report: how many, which one runs when none is given, and which are not
// drafted because they only print help or shell completion.
func commandsNote(h *help) string {
	s := plural(len(h.commands), "subcommand")
	for _, c := range h.commands {
		if c.isDefault {
			s += fmt.Sprintf("; %s is the default command (it runs when none is given)", c.name)
		}
	}
	if len(h.dropped) > 0 {
		s += fmt.Sprintf("; not drafted: %s (help and shell completion)", strings.Join(h.dropped, ", "))
	}
	return s
}
