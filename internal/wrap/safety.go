package wrap

import (
	"fmt"
	"slices"
	"strings"
)

// A draft is read-only only on evidence (docs/wrap.md, "Read-only only on
// evidence"). A command is judged by the words of its name and of what its
// help says of it:
//
//   - excluded: its name, or the first word of its summary, says it does
//     not return or runs what it is given (serve, shell, watch, exec, run)
//     or acts where it cannot be taken back (deploy, publish, push). It is
//     left out unless --allow names it.
//   - changes: its name or help has a word that says it changes something
//     (fix, convert, insert, vendor, "in place", ...), or nothing in them
//     says it only reads. It is drafted with "readOnly": false.
//   - reads: its name, or the first sentence of its help, says it only
//     reads (show, list, check, lint, search, print, ...), and nothing says
//     it changes anything.
//
// The words that say a command changes something need not be complete:
// a command without a word that says it reads is not read-only anyway.
// Then each input is judged by the shape of its help (inputs.go): one
// that runs code or commands, loads code or does not return is left out
// unless --allow names the command; one that writes, or names a
// configuration file, is left out of a read-only tool.

// verdict is what a draft makes of a command.
type verdict int

const (
	reads    verdict = iota // drafted "readOnly": true
	changes                 // drafted "readOnly": false, and listed for review
	excluded                // left out unless Options.Allow names it
)

// judgement is a verdict and the words of the help that gave it.
type judgement struct {
	verdict verdict
	why     string
}

// excludeWords, as a word of a command's name or the first word of its
// summary, say that a call would not return (a server, a shell, a
// watcher), would run whatever it is given, or acts elsewhere for good.
var excludeWords = words(`serve server daemon watch shell repl console attach exec run start
	deploy publish release push`)

// changeWords, as a word of a command's name or anywhere in its help, say
// that it changes something.
var changeWords = words(`add adds annotate apply applies approve archive autoupdate backup build builds
	clean cleans cleanup clear commit compile compress compresses convert converts copy cp create creates
	decompress decrypt del delete deletes destroy disable download downloads drop edit edits enable encrypt
	ensure export exports extract fix fixes fmt format formats formatter gc generate generates import imports
	init insert inserts install installs kill link lock login logout merge migrate modify modifies mount move
	mv new overwrite overwrites pack patch post prune purge put rebase recover register remove removes rename
	replace reset restart restore rewrite rewrites rm save saves send sends set sets sign stop submit sync tag touch
	truncate uncompress uninstall unlink unlock unmount unpack unregister unset update updates upgrade upload
	uploads vendor wipe write writes inplace`)

// readWords, as a word of a command's name or of the first sentence of
// its help, say that it only reads.
var readWords = words(`analyse analyses analyze analyzer analyzes audit audits blame cat check checks checksum
	checker compare compares count counts describe describes diff diffs display displays doctor explain explains
	find finds get gets grep health healthcheck history info inspect inspector inspects lint linter lints list lists
	locate log logs lookup ls output outputs ping preview print prints query queries read reads report reports
	search searches show shows stat statistics stats status summarize summarizes summary tree validate
	validates validator verify verifies version vet view viewer views which whoami`)

// readSuffixes end the names of programs that only read: yamllint,
// staticcheck, rgrep, colordiff, vmstat.
var readSuffixes = []string{"lint", "check", "grep", "diff", "stat"}

// preamble returns the paragraphs of a help text before its first
// heading or usage line, where clap 2 prints the program's description
// after its name, version and author ("ripgrep 13.0.0", "Andrew Gallant
// <...>", "ripgrep (rg) recursively searches ...").
func preamble(text string) []string {
	var paras []string
	var cur []string
	for _, l := range strings.Split(expandTabs(text), "\n") {
		t := strings.TrimSpace(l)
		if _, _, ok := isHeading(l); ok || strings.HasPrefix(strings.ToLower(t), "usage") {
			break
		}
		if t == "" {
			if len(cur) > 0 {
				paras = append(paras, strings.Join(cur, " "))
			}
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
	if len(cur) > 0 {
		paras = append(paras, strings.Join(cur, " "))
	}
	return paras
}

// judgeCommand judges a command by its names (its name and aliases; the
// program's name for the program itself) and what its help says of it
// (its summary in its parent's list, its own description).
func judgeCommand(names []string, texts ...string) judgement {
	for _, n := range names {
		for _, w := range nameWords(n) {
			if excludeWords[w] {
				return judgement{excluded, "its name says " + w}
			}
		}
	}
	for _, t := range texts {
		if w := strings.TrimSuffix(first(textWords(t)), "s"); excludeWords[w] {
			return judgement{excluded, "its help says " + quoteShort(t)}
		}
	}
	for _, n := range names {
		for _, w := range nameWords(n) {
			if changeWords[w] {
				return judgement{changes, "its name says " + w}
			}
		}
	}
	for _, t := range texts {
		if w := changeIn(t); w != "" {
			return judgement{changes, fmt.Sprintf("its help says %q (%s)", w, quoteShort(t))}
		}
	}
	for _, n := range names {
		for _, w := range nameWords(n) {
			if readWords[w] {
				return judgement{reads, "its name says " + w}
			}
		}
		for _, s := range readSuffixes {
			if strings.HasSuffix(strings.ToLower(n), s) {
				return judgement{reads, "its name ends in " + s}
			}
		}
	}
	for _, t := range texts {
		if w := readVerb(firstSentence(printsPhrases(t))); w != "" {
			return judgement{reads, fmt.Sprintf("its help says %q", w)}
		}
	}
	return judgement{changes, nothingSays}
}

// reSendsTo finds a read word that puts what it reads somewhere: after
// printsPhrases, that is not standard output.
var reSendsTo = re(`(?i)\b(?:output|outputs|print|prints|dump|dumps|copy|copies)\b[^.;:]*?\b(?:to|into)\b`)

// agentNouns are readWords that name a program that reads: "A linter
// for YAML files", "A command-line hex viewer".
var agentNouns = words(`linter viewer analyzer analyser validator checker inspector`)

// readVerb returns the read word that is the main verb of a sentence,
// or "": its first word ("List the tables"), a verb of the third person
// ("ripgrep recursively searches"), an infinitive ("a program to find
// entries") or an agent noun, before any word that says it changes
// something. A read word used as a noun does not count: "Optimize all
// full-text search tables" optimizes.
func readVerb(sentence string) string {
	if reSendsTo().MatchString(sentence) {
		return "" // split: "Output pieces of FILE to PREFIXaa, PREFIXab, ..."
	}
	ws := textWords(sentence)
	for i, w := range ws {
		if changeBase(w) != "" {
			return ""
		}
		if readWords[w] && (i == 0 || agentNouns[w] || ws[i-1] == "to" ||
			strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && w != "stats" && w != "status" && w != "logs" && w != "statistics") {
			return w
		}
	}
	return ""
}

const nothingSays = "nothing in its name or help says that it only reads"

// nounsToo are changeWords that are often nouns or adjectives in a
// description ("the set of FILEs", "build tags", "a new line"): they
// say a command changes something only as the first word of a sentence,
// after a word of verbBefore or before one of objectAfter.
var nounsToo = words(`set tag link lock new clear build format sign pack put post patch commit
	merge mount kill stop cp mv rm del gc export import archive backup drop`)

// verbBefore are words after which a word of nounsToo is a verb: "or
// set", "then tag"; objectAfter are words before which it is: "With -s,
// ..., set the date and time", but not "the set of FILEs" or "the version,
// commit and build date".
var (
	verbBefore  = words(`or then to can will also may`)
	objectAfter = words(`the a an all each every its their your this these`)
)

// changeIn returns the word of a text that says a command changes
// something, or "".
func changeIn(text string) string {
	for _, sentence := range reSentenceEnd().Split(printsPhrases(text), -1) {
		ws := textWords(sentence)
		for i, w := range ws {
			if b := changeBase(w); b != "" && (i == 0 || !nounsToo[b] || verbBefore[ws[i-1]] || i+1 < len(ws) && objectAfter[ws[i+1]]) {
				return w
			}
			if w == "in" && i+1 < len(ws) && ws[i+1] == "place" {
				return "in place"
			}
		}
	}
	return ""
}

// changeBase returns the word of changeWords that w is an active form of
// ("removing", "cleans"), or "". Past participles are not: "registered
// routes", "have not been modified since being downloaded" describe.
func changeBase(w string) string {
	if changeWords[w] {
		return w
	}
	for _, suffix := range []string{"ing", "es", "s"} {
		if b, ok := strings.CutSuffix(w, suffix); ok && len(b) > 2 {
			switch {
			case changeWords[b]:
				return b
			case changeWords[b+"e"]: // removing
				return b + "e"
			case len(b) > 3 && b[len(b)-1] == b[len(b)-2] && changeWords[b[:len(b)-1]]: // setting
				return b[:len(b)-1]
			}
		}
	}
	return ""
}

// reStdout finds a verb whose object goes to standard output or the
// terminal: "write sorted concatenation of all FILE(s) to standard
// output", "-c, --stdout: write on standard output". Such a verb prints.
var reStdout = re(`(?i)\b(?:write|writes|written|writing|print|prints|output|outputs|produce|produces|producing|dump|dumps|send|sends|save|saves)\b[^.;:]{0,60}?\b(?:to|on|onto|into)\s+(?:the\s+)?(?:standard output|standard error|stdout|stderr|terminal|screen|console)\b`)

// printsPhrases replaces what reStdout finds by "prints".
func printsPhrases(text string) string {
	return reStdout().ReplaceAllString(text, "prints")
}

// reOption finds option-like words in a help text: "-delete", "--exec".
var reOption = re(`(?:^|[\s\[(,|])(--?[a-zA-Z][a-zA-Z0-9]*(?:-[a-zA-Z0-9]+)*)`)

// strayOption returns an option that the help text of a command
// mentions, that is not one of its flags as read, and whose name says it
// writes or runs a command, or "": GNU find's actions (-delete, -exec)
// are words of its expression, not flags.
func strayOption(text string, read map[string]bool) string {
	for _, m := range reOption().FindAllStringSubmatch(text, -1) {
		name := m[1]
		if read[name] {
			continue
		}
		if k, _ := judgeInput([]string{name}, "", "", nil); k != plainInput {
			return name
		}
	}
	return ""
}

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

// writingForm returns why a usage whose forms are these may change
// something, or "": a literal word of a form, after the program and depth
// subcommand names, says so ("pip cache purge", "pip config set",
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
				if changeWords[w] || excludeWords[w] { // lower case: a literal word, not a placeholder
					return fmt.Sprintf("a form of its usage may change something (%s)", quoteShort(form))
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

func containsAny(ws []string, any ...string) bool {
	for _, w := range ws {
		for _, a := range any {
			if w == a {
				return true
			}
		}
	}
	return false
}

// nameWords splits a name into lower-case words: "set-mkdocs-remote",
// "http.server", "dry_run", "ls-files".
func nameWords(n string) []string {
	return strings.FieldsFunc(strings.ToLower(n), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
}

// textWords splits a text into lower-case words of letters; a word
// with '_' in it is an identifier, not words ("create_app").
func textWords(s string) []string {
	ws := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !('a' <= r && r <= 'z' || r == '_') })
	return slices.DeleteFunc(ws, func(w string) bool { return strings.Contains(w, "_") })
}

// first of words, or "".
func first(ws []string) string {
	if len(ws) > 0 {
		return ws[0]
	}
	return ""
}

var reSentenceEnd = re(`[.!?](?:\s|$)`)

// firstSentence of a text.
func firstSentence(s string) string {
	if loc := reSentenceEnd().FindStringIndex(s); loc != nil {
		return s[:loc[0]]
	}
	return s
}

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
