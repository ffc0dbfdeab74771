package wrap

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// option is one flag, as the help text describes it.
type option struct {
	spelling string // "--max-depth", "-name"; the first long spelling, else the short one
	names    []string
	typ      string // string, integer, number or boolean
	array    bool
	enum     []string
	def      string // the default, as printed; "" when none
	hasDef   bool
	desc     string
	required bool   // the help marks it required
	value    string // its value placeholder, as printed: "<COMMAND>", "string"
	guess    string // why the type is a guess, or ""
	skip     string // why the flag cannot be offered, or ""
}

// readFlags reads the flags of a section. It returns the lines starting
// with '-' that it could not read.
func readFlags(l *layout, lines []string) ([]option, []string) {
	var out []option
	var unread []string
	for _, e := range entriesSlack(lines, true, l.flagSlack()) {
		if e.head == "-" || isPlaceholderFlag(e.head) { // argparse's "-" (stdin); grep's "-NUM"
			continue
		}
		if l.manPage && !namesOnly(e.head) {
			continue // a line of prose that starts with an option's name
		}
		f, ok := parseFlag(l, e)
		if !ok {
			unread = append(unread, e.head)
			continue
		}
		if f.isHelp() {
			continue
		}
		out = append(out, f)
	}
	return out, unread
}

// pairNames are placeholders that stand for a name: the first of two
// values that make a map ("--arg a v", "--parameter-list <VAR> <VALUES>").
var pairNames = words(`a k name key var variable param parameter field header label`)

// namesOnly reports whether a manual page's option line holds only
// spellings, each with at most one placeholder: "-n <number>,
// --max-count=<number>", not "--full-history without parent rewriting".
func namesOnly(head string) bool {
	for _, part := range strings.Split(head, ", ") {
		f := strings.Fields(part)
		if len(f) == 0 || f[0][0] != '-' || len(f) > 2 ||
			len(f) == 2 && !strings.ContainsAny(f[1], "<[") && strings.ToUpper(f[1]) != f[1] {
			return false
		}
	}
	return true
}

// isPlaceholderFlag reports whether a flag line stands for a family of
// flags, as grep's "-NUM" does.
func isPlaceholderFlag(head string) bool {
	name := strings.TrimPrefix(strings.Fields(head)[0], "-")
	return len(name) > 1 && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

func (f *option) isHelp() bool {
	desc := strings.ToLower(f.desc)
	for _, n := range f.names {
		switch {
		case n == "--help" || n == "-help" || n == "--version" || n == "-version":
			return true
		case n == "--usage" && strings.Contains(desc, "usage message"): // argp
			return true
		case len(f.names) == 1 && (n == "-h" && strings.Contains(desc, "help") || n == "-V" && strings.Contains(desc, "version")):
			return true // but not sort's -h, --human-numeric-sort or -V, --version-sort
		}
	}
	return false
}

var (
	reDefault  = re(`\((?:default|Default)(?::| is)? ?([^()]+(?:\([^()]*\)[^()]*)*)\)|\[default: ([^\]]*)\]`)
	rePossible = re(`\[possible values: ([^\]]*)\]`)
	reOneOf    = re(`(?i)(?:one of|choices are|possible values(?: are)?|must be one of|either)[: ]+((?:["'\x60*]?[\w.-]+["'\x60*]?(?:,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+|\s*\|\s*|\s*/\s*)){1,15}["'\x60*]?[\w.-]+["'\x60*]?)`)
	// reProse is a list after a colon that ends the description, a
	// value marked the default: "order: none (default), name or inode".
	reProse = re(`: ((?:\w[\w.-]*(?: \(default\))?, )+\w[\w.-]*(?: \(default\))? or \w[\w.-]*(?: \(default\))?)\.?$`)
	// reNumbers is a list of numbers in prose: "1 or 2", "0, 1, or 2".
	reNumbers = re(`(?:^|[\s(:])(\d+(?:, \d+)*,? or \d+)(?:[\s).,;]|$)`)
	// reListed is a list of three or more values in parentheses that ends
	// the description: "Use color (auto, always, never)"; bat marks the
	// default "(*auto*, never, always)".
	reListed      = re(`\(((?:\*?\w[\w.+-]*\*?, ){2,15}\*?\w[\w.+-]*\*?)\)\.?$`)
	reRepeat      = re(`(?i)(?:can|may) be (?:specified|used|given|passed|supplied|provided) (?:multiple times|more than once|several times)|\brepeatable\b|(?:may|can) be repeated|multiple (?:\w+ ){0,3}(?:can|may) be (?:specified|given|passed)|by repeating|several -{1,2}[\w-]+'?s allowed|multiple values are accepted|options accumulate|as separate \x60?-{1,2}[\w-]+|(?:can|may) (?:specify|give|use|pass) (?:this option|it) (?:more than once|multiple times|several times)`)
	reLeadingEnum = re(`^\[([\w.-]+(?:\|[\w.-]+)+)\]|^\(([\w.-]+(?:\|[\w.-]+)+)\)`)
	reRequired    = re(`\[required\]|\(required\)`)
)

// A flagHead is what the head of a flag line says: its spellings and
// the value placeholders after them.
type flagHead struct {
	names    []string
	values   []string // every placeholder, in order
	last     int      // how many of them follow the last spelling
	repeated bool     // "-v..." or urfave/cli's "[ --tag value ]"
	rest     string   // words of the description on the head's line (argp)
}

// own returns the placeholders of the last spelling.
func (h *flagHead) own() []string { return h.values[len(h.values)-h.last:] }

// parseFlag reads one flag entry.
func parseFlag(l *layout, e entry) (option, bool) {
	h, ok := readFlagHead(l, strings.Fields(e.head))
	if !ok {
		return option{}, false
	}
	f := option{names: h.names, desc: strings.TrimSpace(h.rest + " " + joinDesc(e.desc)), value: strings.Join(h.values, " ")}
	f.spelling = spellingOf(h.names)
	f.readDescription()
	switch {
	case h.last > 1 && !h.repeated && !l.boolValue && !strings.ContainsAny(strings.Join(h.own(), ""), "[]{}.|") &&
		l.types[strings.ToLower(strings.Join(h.own(), " "))] == (valueType{}):
		// jq's "--arg a v", sqlite3's "-lookaside SIZE N"; not Click's
		// "INTEGER RANGE", nor a Go library's flag, which takes one value
		// whatever its placeholder says ("-tags build tags").
		f.typeOfValues(h.own())
		return f, true
	case l.defaultInHead && len(h.values) == 1:
		f.typeFromDefault(strings.TrimSuffix(h.values[0], ":"))
	case h.last > 0:
		// The last spelling's values: git's "-L<start>,<end>:<file>,
		// -L:<funcname>:<file>" takes one value, in either form.
		f.typeFrom(l, h.own(), h.repeated)
	default:
		f.typeFrom(l, h.values, h.repeated)
	}
	f.typeFromDescription()
	return f, true
}

// readFlagHead reads the spellings and placeholders of a flag line's head.
func readFlagHead(l *layout, toks []string) (flagHead, bool) {
	var h flagHead
	for i := 0; i < len(toks); i++ {
		t := strings.TrimSuffix(toks[i], ",")
		switch {
		case t == "/" && i+1 < len(toks): // Click: --debug / --no-debug; true gives --debug
			i++
		case t == "[" || t == "[=": // urfave/cli: --tag value [ --tag value ]
			for i < len(toks) && toks[i] != "]" {
				i++
			}
			h.repeated = true
		case strings.HasPrefix(t, "-") && len(t) > 1 && t != "--" && !strings.HasPrefix(t, "-/") &&
			(l == fallback || i == 0 || strings.HasSuffix(toks[i-1], ",") || !strings.HasPrefix(toks[i-1], "-")):
			// Without a comma before it, "-x" after a flag's name is the
			// flag's placeholder (urfave/cli takes it from `--x` in the usage).
			h.addName(l, t)
		case len(h.names) == 0:
			return h, false
		case l.equalsOnly && strings.HasPrefix(toks[i-1], "--") && !strings.HasSuffix(toks[i-1], ","):
			// argp: "--exclude-caches-under exclude everything": one
			// space before the description, as the name fills its column.
			h.rest = strings.Join(toks[i:], " ")
			i = len(toks)
		default:
			h.values = append(h.values, t)
			h.last++
		}
	}
	return h, len(h.names) > 0
}

// addName adds a spelling, and the placeholder written into it.
func (h *flagHead) addName(l *layout, t string) {
	name := strings.Replace(t, "--[no-]", "--", 1) // git's --[no-]verify: --verify, or --no-verify
	name = strings.Replace(name, "-[no]", "-", 1)  // sqlite3's -[no]header
	h.last = 0
	if j := strings.IndexAny(name, "=["); j > 0 { // --color=WHEN, --color[=WHEN]
		if l.defaultInHead && name[j] == '=' { // --filename=[]:
			h.values = append(h.values, name[j+1:])
		} else {
			h.values = append(h.values, strings.Trim(name[j:], "=[]"))
		}
		name = name[:j]
	}
	if strings.HasSuffix(name, "...") { // clap: -v, --verbose...
		name = strings.TrimSuffix(name, "...")
		h.repeated = true
	}
	switch j := strings.IndexAny(name, "<:"); {
	case j == 1:
		return // git's -<number>: a family of options, as grep's -NUM
	case j > 1: // git's -S<string>, -U<n>, -L:<funcname>:<file>
		h.values = append(h.values, name[j:])
		h.last++
		name = name[:j]
	}
	if len(name) > 2 {
		name = strings.TrimRight(name, ".") // a manual page's "--raw."
	}
	if !slices.Contains(h.names, name) {
		h.names = append(h.names, name)
	}
}

// spellingOf returns the spelling a flag is passed by: the first long
// one that does not negate (git's "--no-decorate, --decorate[=short]"),
// else the first long one, else the first.
func spellingOf(names []string) string {
	for _, n := range names {
		if strings.HasPrefix(n, "--") && !strings.HasPrefix(n, "--no-") {
			return n
		}
	}
	for _, n := range names {
		if strings.HasPrefix(n, "--") {
			return n
		}
	}
	return names[0]
}

// readDescription reads the default and Click's "[required]".
func (f *option) readDescription() {
	if m := reDefault().FindStringSubmatch(f.desc); m != nil {
		f.def = strings.TrimSpace(m[1] + m[2])
		f.hasDef = true
	}
	if reRequired().MatchString(f.desc) { // Click: "[required]"
		f.required = true
		f.desc = strings.TrimSpace(reRequired().ReplaceAllString(f.desc, ""))
	}
}

// typeOfValues types a flag that takes several values at once: a map when
// they are a name and its value, else not offered.
func (f *option) typeOfValues(vals []string) {
	if len(vals) == 2 && pairNames[strings.ToLower(strings.Trim(vals[0], "<>"))] {
		k, v := strings.Trim(vals[0], "<>"), strings.Trim(vals[1], "<>")
		f.typ = "object"
		f.desc = strings.TrimSpace(fmt.Sprintf("%s Each entry %s: %s is passed as %s %s %s.", f.desc, k, v, f.spelling, k, v))
		return
	}
	f.skip = fmt.Sprintf("it takes %d values (%s)", len(vals), strings.Join(vals, " "))
}

// typeFromDescription adds what the description says: the values it
// lists, and that the flag can be repeated.
func (f *option) typeFromDescription() {
	if f.skip == "" && f.typ != "boolean" && len(f.enum) == 0 {
		f.enum = enumIn(f.desc)
	}
	if f.typ == "string" && !f.array && reRepeat().MatchString(f.desc) {
		f.array = true
		f.guess = "a list, because its description says it can be given more than once"
	}
}

// typeFrom sets the flag's type from its value placeholder.
func (f *option) typeFrom(l *layout, values []string, repeated bool) {
	values = dedupe(values)
	if len(values) == 0 {
		f.typ = "boolean"
		if l == fallback {
			f.guess = "a switch, as the help shows no value after it; if it takes one, make it a string"
		}
		if repeated { // clap's -v...: a count, given once here
			f.guess = "a switch; the program counts repeats, a call gives it once"
		}
		return
	}
	v := strings.Join(values, " ")
	switch {
	case len(values) == 2 && strings.HasPrefix(values[1], "[") && strings.Contains(values[1], "..."),
		len(values) == 3 && values[1] == "["+values[0] && values[2] == "...]": // argparse: X [X ...]
		f.typ, f.array = "string", true
		f.guess = "a list; the program may want the values after one flag rather than the flag repeated"
		return
	case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "...]"): // argparse: [X ...]
		f.typ, f.array = "string", true
		f.guess = "a list; the program may want the values after one flag rather than the flag repeated"
		return
	case strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}"): // argparse choices
		f.typ, f.enum = "string", splitEnum(v[1:len(v)-1], ",")
		return
	case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") && strings.Contains(v, "|"): // Click choices
		f.typ, f.enum = "string", splitEnum(v[1:len(v)-1], "|")
		return
	case literalChoices(v) != nil: // <always|avoid>, git's (off|none|on) and [receive|uploadpack]
		f.typ, f.enum = "string", literalChoices(v)
		return
	case strings.HasSuffix(v, "..."):
		f.array = true
		v = strings.TrimSpace(strings.TrimSuffix(v, "..."))
		f.guess = "a list; the program may want the values after one flag rather than the flag repeated"
	}
	if n := placeholders(v); n > 1 { // clap: <VAR> <MIN> <MAX>
		f.skip = "it takes " + strconv.Itoa(n) + " values"
		return
	}
	word := strings.ToLower(strings.Trim(v, "<>"))
	t, known := l.types[word]
	if !known {
		t, known = goTypes[word] // urfave/cli v3 and others print Go type names too
		known = known && l.types != nil
	}
	switch {
	case t.skip != "":
		f.skip = t.skip
		return
	case known:
		f.typ, f.array = t.typ, f.array || t.array
		if t.note != "" {
			f.desc = strings.TrimSpace(f.desc + " " + t.note)
		}
	default:
		f.typ = "string"
		if n := numberFrom(word, f.def); n != "" {
			f.typ = n
			f.guess = "an integer, from " + guessReason(word, f.def)
		}
	}
	if repeated {
		f.array = true
	}
}

// placeholders counts the values of "<VAR> <MIN> <MAX>": words with a
// '<', apart; git's "<width>[,<name-width>]" is one value.
func placeholders(v string) int {
	n := 0
	for _, w := range strings.Fields(v) {
		if strings.Contains(w, "<") {
			n++
		}
	}
	return n
}

// typeFromDefault sets the flag's type from its default, as kubectl
// prints it: false, ”, [], 500, 30s.
func (f *option) typeFromDefault(v string) {
	f.def, f.hasDef = strings.Trim(v, "'"), true
	_, intErr := strconv.ParseInt(v, 10, 64)
	_, floatErr := strconv.ParseFloat(v, 64)
	_, durErr := time.ParseDuration(v)
	switch {
	case v == "true" || v == "false":
		f.typ = "boolean"
	case v == "[]":
		f.typ, f.array, f.hasDef = "string", true, false
	case intErr == nil:
		f.typ = "integer"
	case floatErr == nil:
		f.typ = "number"
	case durErr == nil:
		f.typ = "string"
		f.desc = strings.TrimSpace(f.desc + " " + duration.note)
	default:
		f.typ = "string"
	}
	if f.def == "" || f.def == "false" {
		f.hasDef = false
	}
}

// numberFrom guesses integer for a placeholder such as N or NUM, or a
// default that is a whole number; "" when there is no reason to.
func numberFrom(word, def string) string {
	switch word {
	case "n", "num", "number", "count", "int", "integer", "depth", "port", "jobs", "threads", "lines", "limit", "width", "level":
		return "integer"
	}
	if _, err := strconv.ParseInt(def, 10, 64); err == nil {
		return "integer"
	}
	return ""
}

func guessReason(word, def string) string {
	if _, err := strconv.ParseInt(def, 10, 64); err == nil && numberFrom(word, "") == "" {
		return "its default " + def
	}
	return "the value name " + strings.ToUpper(word)
}

func dedupe(values []string) []string {
	var out []string
	for _, v := range values {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func splitEnum(s, sep string) []string {
	var out []string
	for _, v := range strings.Split(s, sep) {
		v = strings.TrimSpace(v)
		if v == "" || strings.ContainsAny(v, " {}[]<>") {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// proseWords end a list of values in a sentence: "none, dirty or all,
// which is the default".
var proseWords = words(`which that the is are a an if when where and or default etc otherwise see this these`)

// proseEnd cuts a list "a, b, or c, which" before its first word of
// prose, and drops the "or" of ", or".
func proseEnd(list string) string {
	list = strings.ReplaceAll(strings.ReplaceAll(list, ", or ", ", "), ", and ", ", ")
	var keep []string
	for _, v := range strings.Split(list, ",") {
		if proseWords[strings.ToLower(strings.Trim(strings.TrimSpace(v), "\"'`*"))] {
			break
		}
		keep = append(keep, v)
	}
	return strings.Join(keep, ",")
}

// kindWords name kinds of value, not values: fd's "<date|dur>".
var kindWords = words(`date dur duration time num number int integer float path file dir directory string str size bytes count n value`)

// literalChoices returns the values of a placeholder such as
// "always|never|auto" or "<always|avoid>"; none when a value names a kind
// of value (fd's "<date|dur>").
func literalChoices(v string) []string {
	vals := splitEnum(strings.Trim(v, "<>()"), "|")
	if len(vals) < 2 || slices.ContainsFunc(vals, func(v string) bool { return kindWords[strings.ToLower(v)] }) {
		return nil
	}
	return vals
}

var reEnumItem = re(`(?:^|\s)- ([\w.-]+):`)

// enumIn finds the allowed values a description lists: clap's
// "[possible values: a, b]" or its "Possible values:" list, or "one of
// a, b or c".
func enumIn(desc string) []string {
	if m := reLeadingEnum().FindStringSubmatch(desc); m != nil { // yq: "[auto|a|yaml|y] output format"
		return splitEnum(m[1]+m[2], "|")
	}
	if m := rePossible().FindStringSubmatch(desc); m != nil {
		return splitEnum(m[1], ",")
	}
	if _, list, ok := strings.Cut(desc, "Possible values: - "); ok {
		var out []string
		for _, m := range reEnumItem().FindAllStringSubmatch("- "+list, -1) {
			out = append(out, m[1])
		}
		if len(out) > 1 {
			return out
		}
	}
	if m := reListed().FindStringSubmatch(desc); m != nil { // "Output format (checkstyle, diff, gcc)"
		if vals := splitEnum(strings.ReplaceAll(m[1], "*", ""), ","); len(vals) > 1 {
			return vals
		}
	}
	if m := reProse().FindStringSubmatch(desc); m != nil { // "sorting order: none (default), name or inode"
		list := strings.ReplaceAll(strings.ReplaceAll(m[1], " (default)", ""), " or ", ", ")
		if vals := splitEnum(list, ","); len(vals) > 1 {
			return vals
		}
	}
	if m := reOneOf().FindStringSubmatchIndex(desc); m != nil && !strings.ContainsAny(desc[m[3]:min(m[3]+1, len(desc))], ":=<") {
		// Not when the last value goes on ("format:<string>"): the values
		// take arguments.
		list := proseEnd(strings.TrimRight(desc[m[2]:m[3]], "."))
		for _, sep := range []string{" or ", " and ", "|", "/"} {
			list = strings.ReplaceAll(list, sep, ",")
		}
		vals := splitEnum(strings.Map(func(r rune) rune {
			if r == '"' || r == '\'' || r == '`' || r == '*' {
				return -1
			}
			return r
		}, list), ",")
		if len(vals) > 1 {
			return vals
		}
	}
	if m := reNumbers().FindStringSubmatch(desc); m != nil { // "the protocol version, 1 or 2"
		return splitEnum(strings.ReplaceAll(strings.ReplaceAll(m[1], ", or ", ", "), " or ", ", "), ",")
	}
	return nil
}
