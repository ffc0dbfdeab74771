package wrap

import (
	"fmt"
	"strings"
)

// writeVerbs are command names, and first words of a command's summary,
// that suggest it changes something, runs something else, or does not
// return (a server, a shell): such commands are left out of a draft.
var writeVerbs = words(`add annotate apply approve backup build commit copy cp create del delete deploy
	destroy disable download drop edit enable ensure exec execute fmt format gen generate import init
	install kill link login logout merge migrate mount move mv new patch post prepare prune publish
	purge push put rebase register release remove rename repl reset restart restore rm run send serve
	server set shell start stop submit sync uninstall unlink unmount unregister update upgrade upload
	watch write attach autoscale cancel cordon drain evict forward mark replace rollback scale taint
	truncate uncordon undo unset wipe expose pause resume reconcile recover`)

// writeWords anywhere in a summary suggest the same.
var writeWords = []string{"delete", "deletes", "remove", "removes", "overwrite", "overwrites", "write", "writes",
	"push", "pushes", "deploy", "deploys", "upload", "uploads", "install", "installs", "in place", "in-place",
	"modif", "reformat", "reformats", "formatter", "destroy", "destroys"}

// flagVerbs are words of a flag's name, and first words of its
// description, that suggest it writes files or runs commands.
var flagVerbs = words(`delete exec execute export generate overwrite remove save write inplace in-place`)

// commandArgs are names of positional arguments that stand for a command
// the program runs, or hands to a subcommand it does not list: git's
// "<command> [<args>]", hyperfine's "<command>...", timeout's "COMMAND".
var commandArgs = words(`command commands cmd command_line commandline subcommand program prog executable utility`)

// runsCommands returns why a command whose positional arguments are
// these runs whatever command it is given, or "".
func runsCommands(positionals []arg) string {
	for _, p := range positionals {
		if commandArgs[p.name] {
			return fmt.Sprintf("it runs the command it is given (its argument %s)", strings.ToUpper(p.name))
		}
	}
	return ""
}

// writingForm returns why a usage whose forms are these may write, or
// "": a literal word of a form, after the program and depth subcommand
// names, is one of writeVerbs ("pip cache purge", "pip config set",
// restic's "key [list|add|remove|passwd]"), so its arguments choose an
// action that writes.
func writingForm(forms []string, depth int) string {
	for _, form := range forms {
		groups := usageGroups(form)
		if len(groups) <= depth+1 {
			continue
		}
		for _, g := range groups[depth+1:] {
			for _, w := range strings.FieldsFunc(g, func(r rune) bool { return strings.ContainsRune("[](){}<>| .", r) }) {
				if writeVerbs[w] { // lower case: a literal word, not a placeholder
					return fmt.Sprintf("a form of its usage may write (%s)", quoteShort(form))
				}
			}
		}
	}
	return ""
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// risky returns why a command may change something, or "".
func risky(name string, aliases []string, summary string) string {
	for _, n := range append([]string{name}, aliases...) {
		for _, part := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return r == '-' || r == '_' || r == ':' }) {
			if writeVerbs[part] {
				return "its name says " + part
			}
		}
	}
	return riskyText(summary)
}

// riskyText returns why a summary suggests a command that writes, or "".
func riskyText(summary string) string {
	s := strings.ToLower(summary)
	if f := strings.Fields(strings.TrimPrefix(s, "(additionally) ")); len(f) > 0 {
		first := strings.Trim(f[0], ".,:;()")
		if writeVerbs[first] || writeVerbs[strings.TrimSuffix(first, "s")] || writeVerbs[strings.TrimSuffix(first, "es")] {
			return "its help says " + quoteShort(summary)
		}
	}
	for _, w := range writeWords {
		if containsWord(s, w) {
			return "its help says " + quoteShort(summary)
		}
	}
	return ""
}

// riskyFlag returns why a flag may write files or run commands, or "".
func riskyFlag(f option) string {
	for _, n := range f.names {
		for _, part := range strings.FieldsFunc(strings.ToLower(strings.TrimLeft(n, "-")), func(r rune) bool { return r == '-' || r == '_' }) {
			if flagVerbs[part] {
				return "its name says " + part
			}
		}
	}
	if v := inputName(f.value); commandArgs[v] { // rg's --pre <COMMAND>
		return "its value is a " + strings.ToUpper(v) + " to run"
	}
	if fs := strings.Fields(strings.ToLower(f.desc)); len(fs) > 0 && flagVerbs[strings.Trim(fs[0], ".,:;()")] {
		return "its help says " + quoteShort(f.desc)
	}
	return ""
}

func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isLetter(s[j-1])
		after := j+len(w) == len(s) || !isLetter(s[j+len(w)]) || strings.HasSuffix(w, "modif")
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// quoteShort quotes the first sentence of s, cut to 60 bytes.
func quoteShort(s string) string {
	if i := strings.IndexAny(s, ".\n"); i > 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return `"` + s + `"`
}
