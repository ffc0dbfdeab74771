package wrap

import (
	"fmt"
	"slices"
	"strings"
)

// An input of a command is judged by the shape of its help: the words
// of its names, of its value's placeholder and of its description, and
// the values it takes. The first of inputRules that fits says what it
// is; an input that no rule fits only chooses what the command reads
// or prints.
type inputKind int

const (
	plainInput  inputKind = iota
	writesInput           // writes, fixes, edits in place, names an output file, changes state elsewhere
	loadsInput            // names a configuration file, which may hold code the program runs
	runsInput             // runs a command, loads code (addons, plugins, hooks, rc files), or does not return (a server)
	codeInput             // takes code: the command is an interpreter
)

// inputWords are what an input is judged by.
type inputWords struct {
	flag    bool     // a flag, not a positional argument
	names   []string // the words of its names: "--load-plugins" is "load", "plugins"
	negated bool     // it turns something off: --no-cache, --noplugin, "do not use a local cache"
	value   []string // the words of its placeholder: "<python interpreter>"
	desc    []string // the words of its description
	text    string   // its description
	enum    []string // the values it takes, when the help lists them
	short   bool     // it is spelt -e or -c, as an interpreter's code is
}

func inputWordsOf(names []string, value, desc string, enum []string) inputWords {
	w := inputWords{value: nameWords(inputName(value)), desc: textWords(desc), text: desc, enum: enum}
	for _, n := range names {
		w.flag = w.flag || strings.HasPrefix(n, "-")
		w.short = w.short || n == "-e" || n == "-c"
		w.names = append(w.names, nameWords(strings.TrimLeft(n, "-"))...)
	}
	w.negated = turnsOffWords(w.names, w.desc)
	return w
}

// negations, as the first word of an input's name or description, say
// that it turns something off: --no-cache, --skip-hooks, "do not use a
// local cache".
var negations = words(`no dont skip without disable never`)

func turnsOffWords(names, desc []string) bool {
	n := first(names)
	if rest, ok := strings.CutPrefix(n, "no"); ok && (runNames[rest] || writeNames[rest] || codeNouns[rest]) {
		return true // vim's --noplugin
	}
	return negations[n] || first(desc) == "disable" || first(desc) == "never" ||
		len(desc) > 1 && (desc[0] == "don" && desc[1] == "t" || desc[0] == "do" && desc[1] == "not")
}

// An inputRule says what an input is when its words show it: when
// returns the words that show it, or "", and why says so with them.
type inputRule struct {
	kind inputKind
	why  string
	when func(inputWords) string
}

// inputRules are tried in order. Those that find code or commands to run
// come first, as they are the most harmful; a name that turns something
// off ends the judging before those that find writes.
var inputRules = []inputRule{
	{runsInput, "its name says %s", runsByName},
	{runsInput, "its value is a %s", runsByValue},
	{runsInput, "its help says %s", runVerbOnCode},
	{runsInput, "its help says %s", loadsFromFolder},
	{runsInput, "its help says %s, an action that runs a command", execAction},
	{runsInput, "its value is a program it runs: its help says %s", namesProgram},
	{runsInput, "it passes arguments on to another program, which can make it load code: its help says %s", passesArgs},
	{runsInput, "its value is %s, a startup file of commands", rcFile},
	{runsInput, "it serves, listens or watches, and does not return: %s", serves},
	{plainInput, "", turnsOff},
	{writesInput, "its name says %s", writesByName},
	{writesInput, "its name says %s, a file it keeps", keepsState},
	{writesInput, "its name says %s, an output file or folder", outputPath},
	{writesInput, "its value is %s", outputValue},
	{writesInput, "its help says %s", writesTo},
	{writesInput, "its help says %s", changeVerb},
	{writesInput, "it may send a request that changes state (%s)", changingMethod},
	{loadsInput, "it names %s, which the program may run", configFile},
	{loadsInput, "it names %s, which the program may load as code", namesComponent},
}

// judgeInput judges a flag (its names, placeholder, description and
// enum) or a positional argument (its name and description): the first
// of inputRules that fits. One that runs what it is given takes code
// when its names or placeholder say code, or it is -e or -c (python -c
// cmd, node -e script).
func judgeInput(names []string, value, desc string, enum []string) (inputKind, string) {
	w := inputWordsOf(names, value, desc, enum)
	for _, r := range inputRules {
		m := r.when(w)
		if m == "" {
			continue
		}
		k := r.kind
		if k == runsInput && (w.short || hasAny(codeWords, w.names, w.value)) {
			k = codeInput
		}
		if k == plainInput {
			return k, ""
		}
		return k, fmt.Sprintf(r.why, m)
	}
	return plainInput, ""
}

// runNames, as a word of an input's name, say that it runs what it is
// given or loads code: --exec, --password-command, --init-hook,
// --load-plugins, --addon, --preload. (node's --require names a
// "module to preload", which runVerbOnCode finds.)
var runNames = words(`eval exec execute command commands cmd cmds script scripts prog hook hooks sql statement statements
	executable plugin plugins addon addons preload interpreter`)

// countNames, in an input's name, say that it sets how, not what, a
// program runs: --max-statements, --command-timeout,
// --ignore-command-error.
var countNames = words(`max min limit count number num timeout size depth error errors`)

// programNames, as a word of the name of an input that takes a value,
// say that the value is a program it starts: --pager, --editor.
var programNames = words(`pager editor browser interpreter`)

func runsByName(w inputWords) string {
	if w.negated || hasAny(countNames, w.names) {
		return ""
	}
	for _, n := range w.names {
		switch {
		case runNames[n]:
			return n
		case programNames[n] && len(w.value) > 0:
			return n
		case n == "load" && hasAny(codeNouns, w.names, w.value):
			return "load" // --load-extension, gawk's --load=library
		}
	}
	return ""
}

// runValues, as a word of an input's placeholder, say that its value is
// a command, a program or code: <cmd>, PROGRAM, <python interpreter>.
// runPrefixes begin one: SCRIPTPATH, <pluginfilename>.
var (
	runValues   = words(`eval exec execute command commands cmd cmds script scripts program prog code sql statement statements executable shell interpreter addon addons`)
	runPrefixes = []string{"script", "cmd", "command", "prog", "plugin", "exec"}
)

func runsByValue(w inputWords) string {
	for _, v := range w.value {
		if runValues[v] {
			return strings.ToUpper(v)
		}
		for _, p := range runPrefixes {
			if strings.HasPrefix(v, p) && !strings.HasPrefix(v, "progress") && !strings.HasSuffix(v, "out") { // vim's -w <scriptout> writes
				return strings.ToUpper(v)
			}
		}
	}
	return ""
}

// runVerbs, in an input's description, say that it runs or loads what
// it is given when a word of codeNouns stands near them ("Execute a
// command for each search result", "Load the specified plugin",
// "Execute addon"), or the placeholder is what they run ("execute
// ACTION on each checkpoint").
var runVerbs = words(`run runs running execute executes executed executing execution exec eval evaluate evaluates
	evaluated invoke invokes invoked spawn spawns spawned preload load loads loaded loading require`)

// codeNouns name what a program runs or loads; a makefile is code too
// (make's -f FILE, "Read FILE as a makefile").
var codeNouns = words(`command commands cmd cmds script scripts program programs executable executables addon addons
	plugin plugins module modules extension extensions hook hooks code sql statement statements shell interpreter library
	makefile makefiles`)

// numberValues are placeholders of a count, which a verb does not run:
// "Run N jobs".
var numberValues = words(`n num number count int integer jobs procs threads seconds secs`)

func runVerbOnCode(w inputWords) string {
	if w.negated {
		return "" // --no-addons: "disable loading native addons"
	}
	ws := w.desc
	for i, v := range ws {
		if !runVerbs[v] {
			continue
		}
		for j := max(0, i-4); j < min(len(ws), i+5); j++ {
			if j != i && codeNouns[ws[j]] && !(ws[j] == "library" && !strings.HasPrefix(v, "load")) {
				return quoteShort(w.text)
			}
		}
		if v == "load" || v == "loads" || v == "loaded" || v == "loading" || v == "require" {
			continue // cppcheck's "Load file <cfg> that contains information about types"
		}
		obj := i + 1
		if obj < len(ws) && (ws[obj] == "the" || ws[obj] == "a" || ws[obj] == "an") {
			obj++
		}
		if obj < len(ws) && slices.Contains(w.value, ws[obj]) && !numberValues[ws[obj]] {
			return quoteShort(w.text)
		}
	}
	// vim's "-S <session>": "Source file <session> after loading the first file".
	if len(ws) > 2 && ws[0] == "source" && ws[1] == "file" && slices.Contains(w.value, ws[2]) {
		return quoteShort(w.text)
	}
	// make's -f FILE: "Read FILE as a makefile"; the placeholder, as code.
	for i := 1; i+2 < len(ws); i++ {
		if ws[i] == "as" && slices.Contains(w.value, ws[i-1]) && (ws[i+1] == "a" || ws[i+1] == "an" || ws[i+1] == "the") && codeNouns[ws[i+2]] {
			return quoteShort(w.text)
		}
	}
	return ""
}

// reLoadsFrom finds a description that says code is loaded from a
// folder it names: ESLint's --rulesdir, "Load additional rules from this
// directory"; jq's -L, "Search modules from the directory"; make's -I,
// "Search DIR for included makefiles".
var reLoadsFrom = re(`(?i)\b(?:load|loads|import|imports|require|resolve|resolved|search|searches)\b[^.;]{0,30}?\b(?:modules|plugins|addons|extensions|rules|libraries|scripts|hooks)\b[^.;]{0,30}?\b(?:from|in)\b[^.;]{0,20}?\b(?:dir|directory|directories|folder|folders|path|paths)\b|\b(?:modules|plugins|addons|extensions|rules|libraries|scripts|hooks)\b[^.;]{0,30}?\b(?:load|loaded|resolved|searched)\s+(?:from|in)\b|\bsearch(?:es)?\s+\S+\s+for\s+(?:\w+\s+)?(?:modules|plugins|addons|extensions|libraries|scripts|makefiles)\b`)

func loadsFromFolder(w inputWords) string {
	if !w.negated && reLoadsFrom().MatchString(w.text) {
		return quoteShort(w.text)
	}
	return ""
}

// reExecAction finds a value that names an action which runs a command:
// GNU tar's --checkpoint-action=exec=COMMAND.
var reExecAction = re(`(?i)\b(?:exec|execute|system|command|cmd)=`)

func execAction(w inputWords) string {
	if m := reExecAction().FindString(w.text); m != "" {
		return fmt.Sprintf("%q", m)
	}
	return ""
}

// reNamesProgram finds a description that says the value names a
// program: actionlint's -shellcheck, "Command name or file path of
// "shellcheck" external command".
var reNamesProgram = re(`(?i)\bpath\s+(?:of|to)\s+(?:the\s+)?(?:\S+\s+){0,2}?(?:command|program|executable|binary|interpreter)\b|\bexternal\s+(?:command|program|tool)s?\b`)

func namesProgram(w inputWords) string {
	if m := reNamesProgram().FindString(w.text); m != "" && !w.negated {
		return fmt.Sprintf("%q", m)
	}
	return ""
}

// rePassesArgs finds a description that says the value is handed on to
// another program as its arguments: clang-tidy's --extra-arg,
// "Additional argument to append to the compiler command line"; rsync's
// -M, "send OPTION to the remote side only". A compiler's arguments can
// load a plugin (-fplugin=, -Xclang -load), a remote rsync's can run a
// command.
var rePassesArgs = re(`(?i)\b(?:argument|arguments|args|option|options|flags)\b[^.;]{0,40}?\b(?:to|for)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:compiler|linker|interpreter|subprocess|child process|command line|command-line|remote side|remote program|remote command|remote shell)\b`)

func passesArgs(w inputWords) string {
	if m := rePassesArgs().FindString(w.text); m != "" {
		return fmt.Sprintf("%q", m)
	}
	return ""
}

// rcFile finds a startup file of commands that the program runs: bash's
// --rcfile, vim's -u <vimrc>, sqlite3's -init FILENAME, pylint's
// --rcfile (whose init-hook is Python).
func rcFile(w inputWords) string {
	if len(w.value) == 0 {
		return ""
	}
	for _, n := range append(slices.Clone(w.names), w.value...) {
		switch {
		case n == "rc" || n == "rcfile" || n == "initfile" || n == "startup":
			return n
		case len(n) > 4 && strings.HasSuffix(n, "rc"): // vimrc, bashrc, not warc
			return n
		}
	}
	if containsAny(w.names, "init") && containsAny(append(slices.Clone(w.value), w.desc...), "file", "filename", "path", "script") {
		return "an init file"
	}
	return ""
}

// serveNames, as a word of an input's name, say that the program serves
// or watches and does not return: ESLint's --mcp, --listen, --daemon,
// --watch.
var serveNames = words(`mcp serve daemon daemonize listen lsp watch`)

// reServes finds a description that says the program starts a server or
// another program that stays (a browser, an inspector), or listens.
var reServes = re(`(?i)\b(?:start|starts|starting|run|runs|launch|launches|open|opens)\s+(?:(?:a|an|the|in)\s+)?(?:[\w.-]+\s+){0,3}?(?:server|daemon|repl|browser|inspector|gui)\b|\blisten(?:s|ing)?\s+(?:on|for|at)\b`)

func serves(w inputWords) string {
	if w.negated {
		return ""
	}
	for _, n := range w.names {
		if serveNames[n] || n == "server" && len(w.value) == 0 && (len(w.names) == 1 || containsAny(w.names, "start", "run", "mode")) {
			return "its name says " + n
		}
	}
	if reServes().MatchString(w.text) {
		return "its help says " + quoteShort(w.text)
	}
	return ""
}

// turnsOff ends the judging of an input whose name turns something off
// (--no-cache, --skip-hooks), or that only pretends (--dry-run): it does
// not write.
func turnsOff(w inputWords) string {
	if w.negated || containsAny(w.names, "dry") && containsAny(w.names, "run") {
		return "it turns something off"
	}
	return ""
}

// writeNames, as a word of an input's name, say that it writes.
var writeNames = words(`write fix autofix fixes inplace overwrite save delete remove rm update apply set clean
	cleanup purge vendor edit modify create init install upload send post put patch export dump cache store touch
	persist persistent outfile outdir outputfile logfile backup`)

func writesByName(w inputWords) string {
	for i, n := range w.names {
		switch {
		case writeNames[n]:
			return n
		case n == "in" && i+1 < len(w.names) && w.names[i+1] == "place":
			return "in place"
		case n == "log" && containsAny(w.names[i+1:], "file"):
			return "log file"
		case n == "build" && containsAny(w.names[i+1:], "dir", "directory", "folder"):
			return "build dir" // cppcheck's --cppcheck-build-dir, a work folder
		}
	}
	return ""
}

// stateNames name a file a program keeps between runs: a baseline of
// the problems it found, which ESLint's --suppress-all writes. An input
// whose name says one, or that suppresses findings, and whose help says
// nothing of reading it, may write it: ESLint's --suppress-rule,
// "Suppress specific rules", but not cppcheck's --suppress, "Suppress
// warnings that match <spec>", nor diff's --suppress-common-lines.
var (
	stateNames = words(`suppressions baseline`)
	findings   = words(`violations violation rules rule warnings errors issues problems findings diagnostics`)
)

func keepsState(w inputWords) string {
	if containsAny(w.desc, "match", "matches", "matching", "listed", "from", "read", "reads") {
		return ""
	}
	for _, n := range w.names {
		if stateNames[n] || n == "suppress" && hasAny(findings, w.desc) {
			return n
		}
	}
	return ""
}

// outputNames name an input that may name an output file or folder;
// pathWords in its placeholder or description say that it does.
var (
	outputNames = words(`o out output outputs dest destination`)
	pathWords   = words(`file filename files path dir directory folder outfile outdir`)
)

func outputPath(w inputWords) string {
	output := ""
	for _, n := range append(slices.Clone(w.names), w.value...) {
		if outputNames[n] && !containsAny(w.names, "format", "type", "mode", "style", "color", "colour") {
			output = n
		}
	}
	for _, n := range w.names { // find's -fprint FILE, --log FILE, --dump FILE, --checkers-report=<file>
		if strings.Contains(n, "print") || n == "log" || n == "dump" || n == "tee" ||
			n == "report" && (containsAny(w.names, "file", "filename", "dir", "directory", "folder", "path") || len(w.value) > 0 && hasAny(pathWords, w.value)) {
			output = n
		}
	}
	if output == "" || len(w.enum) > 0 || containsAny(w.desc, "format") {
		return ""
	}
	if !hasAny(pathWords, w.value, w.names, w.desc) {
		return ""
	}
	return output
}

func outputValue(w inputWords) string {
	for _, v := range w.value {
		if v == "outfile" || v == "outdir" || v == "dest" || v == "destination" {
			return strings.ToUpper(v)
		}
	}
	return ""
}

// reWriteTo finds a verb that writes somewhere other than standard
// output (printsPhrases has taken those out): "write result to FILE",
// "writes the output of infile to outfile", "save to", "dump into",
// "Append all typed commands to file", pylint's --import-graph, "Output
// a graph (.gv or ...) of all dependencies to the given file"; but not
// "set output mode to JSON". So do "instead of standard output" and
// "output file".
var reWriteTo = re(`(?i)\b(?:write|writes|written|writing|save|saves|saved|store|stores|dump|dumps|export|exports|append|appends)\b[^.;:()]{0,40}?\b(?:to|into|back|over)\b|\b(?:output|outputs)\b[^;:]{0,100}?\bto\s+(?:the\s+|a\s+)?(?:given\s+|specified\s+|named\s+)?(?:file|folder|directory)\b|\binstead of (?:standard output|stdout)\b|\b(?:output|log) (?:file|directory|folder)\b`)

func writesTo(w inputWords) string {
	if m := reWriteTo().FindString(printsPhrases(w.text)); m != "" {
		return fmt.Sprintf("%q", m)
	}
	return ""
}

// changeVerbs, in an input's description, say that it writes.
var changeVerbs = words(`fix fixes autofix save saves overwrite overwrites rewrite rewrites modify
	modifies edit edits delete deletes remove removes create creates update updates upload uploads send
	sends install installs insert inserts persistent inplace`)

func changeVerb(w inputWords) string {
	ws := textWords(printsPhrases(w.text))
	for i, x := range ws {
		if changeVerbs[x] {
			return fmt.Sprintf("%q", x)
		}
		if x == "in" && i+1 < len(ws) && ws[i+1] == "place" {
			return `"in place"`
		}
	}
	return ""
}

// reMethod finds an HTTP method that changes state, in capitals: "The
// HTTP method (GET, POST, PUT, DELETE, ...)", curl's -d, "HTTP POST data".
var reMethod = re(`\b(?:POST|PUT|PATCH|DELETE)\b`)

func changingMethod(w inputWords) string {
	for _, e := range w.enum {
		switch strings.ToUpper(e) {
		case "POST", "PUT", "DELETE", "PATCH":
			return "one of its values is " + e
		}
	}
	if reMethod().MatchString(w.text) {
		return "its help says " + quoteShort(w.text)
	}
	return ""
}

// configNames end the name of an input that names a configuration file
// (--config, --config-file, --rcfile's kin --settings-path).
var configNames = words(`config configuration conf settings`)

// configFile finds a flag whose value is a configuration file: many
// programs run what such a file says (ESLint's eslint.config.js,
// pylint's init-hook, git's core.pager, ssh's ProxyCommand), and wrap
// cannot tell from the help which do.
func configFile(w inputWords) string {
	if !w.flag || len(w.value) == 0 || containsAny(w.names, "print", "show", "find", "dump", "check", "validate", "exclude", "excludes") {
		return ""
	}
	ns := w.names
	for len(ns) > 1 && pathWords[ns[len(ns)-1]] || len(ns) > 1 && ns[len(ns)-1] == "location" {
		ns = ns[:len(ns)-1]
	}
	named := len(ns) > 0 && configNames[ns[len(ns)-1]] || len(w.names) <= 2 && hasAny(configNames, w.value)
	if !named || !hasAny(pathWords, w.value, w.names, w.desc) && !containsAny(w.names, "config", "conf") {
		return ""
	}
	return "a configuration file"
}

// componentNames name a part of a program that it may load by name or
// path as code: ESLint's --parser, mocha's --reporter, jest's
// --transform. One that takes one of the values listed (prettier's
// --parser <flow|babel|...>) only chooses among built-in ones.
var componentNames = words(`parser formatter reporter reporters loader transform transformer resolver preprocessor processor runner`)

func namesComponent(w inputWords) string {
	if !w.flag || len(w.value) == 0 || len(w.enum) > 0 || containsAny(w.names, "options", "option", "config") ||
		containsAny(w.value, "expression", "expr", "pattern", "regex", "regexp") { // tar's --transform=EXPRESSION, a sed replacement
		return ""
	}
	for _, n := range w.names {
		if componentNames[n] {
			return "a " + n
		}
	}
	return ""
}

// codeWords, in the name or placeholder of an input that runs what it
// is given, say that what it takes is code: the command is an
// interpreter (node -e, sed -e script, sqlite3's SQL). So does -c or -e
// (python -c cmd), and a positional argument that is run (awk's
// 'program'), which is what the command works on.
var codeWords = words(`eval script scripts code sql statement statements expression`)

// hasAny reports whether a word of any of the lists is in set.
func hasAny(set map[string]bool, lists ...[]string) bool {
	for _, l := range lists {
		for _, w := range l {
			if set[w] {
				return true
			}
		}
	}
	return false
}
