package wrap

import (
	"regexp"
	"strings"
	"sync"
)

// kind is what a section of a help text holds.
type kind int

const (
	other     kind = iota
	usage          // the usage line
	about          // a description of the command
	flags          // the command's own flags
	inherited      // flags inherited from a parent command (Cobra's "Global Flags")
	commands       // subcommands
	args           // positional arguments
	mixed          // a group of flags or commands under a heading of the program's own
)

// A layout is the help format of one command-line library: how to know
// it, what its headings mean and how its flags are spelled and typed.
type layout struct {
	name string
	// signs are patterns of which the help text must match all.
	signs []func() *regexp.Regexp
	// headings maps a heading, in lower case, to what its section holds;
	// a heading not listed holds what unknown says.
	headings map[string]kind
	unknown  kind
	// types maps a flag's value placeholder, in lower case, to its type.
	types map[string]valueType
	// boolValue: booleans accept "--flag=false", so a draft can pass
	// either value (pflag, urfave/cli, Go's flag).
	boolValue bool
	// shortEquals: a one-letter flag takes its value as "-x=VALUE".
	shortEquals bool
	// subflagsInherit: a subcommand's help lists the flags it inherits,
	// and they may follow the subcommand's name (Cobra, urfave/cli v3).
	// Otherwise a parent's flags are passed before the subcommand's name.
	subflagsInherit bool
	// dashdash: "--" ends the options.
	dashdash bool
	// describeFirst: headings before the usage line are the program's
	// own description (Cobra prints Long first), whatever the unknown
	// headings after it hold.
	describeFirst bool
	// defaultInHead: the flag's default stands where others print a
	// placeholder, and gives its type: "--all=false:", "--output='':",
	// "--filename=[]:", "--chunk-size=500:" (kubectl).
	defaultInHead bool
	// indentedHeadings: headings may stand one space in (argp's
	// " Main operation mode:").
	indentedHeadings bool
	// longColumn: long options without a short one stand in a column of
	// their own, deeper than the short ones (GetOpt's usageInfo).
	longColumn bool
	// equalsOnly: a long option's value follows '=' and never a space
	// (argp, GetOpt), so a word after it begins its description.
	equalsOnly bool
	// usageFirst: the first line is the usage, without a heading.
	usageFirst bool
	// manPage: a manual page as man prints it: the first line is the
	// page's header, not a description; options stand at one indent, their
	// descriptions deeper.
	manPage bool
}

// flagSlack is how much deeper than the first option of a section an
// option line may start.
func (l *layout) flagSlack() int {
	switch {
	case l.longColumn:
		return 40
	case l.manPage:
		return 0
	}
	return 4
}

// valueType is the input type a flag's value placeholder stands for.
type valueType struct {
	typ   string // string, integer, number, boolean
	array bool   // a list: the flag is repeated, once per item
	skip  string // why a flag of this type is not offered, or ""
	note  string // added to the description
}

var (
	str      = valueType{typ: "string"}
	integer  = valueType{typ: "integer"}
	number   = valueType{typ: "number"}
	boolean  = valueType{typ: "boolean"}
	strs     = valueType{typ: "string", array: true}
	ints     = valueType{typ: "integer", array: true}
	numbers  = valueType{typ: "number", array: true}
	duration = valueType{typ: "string", note: "A duration such as 30s or 1m30s."}
	mapType  = valueType{skip: "a map of KEY=VALUE pairs"}
)

// goTypes are the type names that pflag, Go's flag and urfave/cli v3
// print as a flag's placeholder.
var goTypes = map[string]valueType{
	"string": str, "int": integer, "int8": integer, "int16": integer, "int32": integer, "int64": integer,
	"uint": integer, "uint8": integer, "uint16": integer, "uint32": integer, "uint64": integer,
	"float": number, "float32": number, "float64": number, "duration": duration, "bool": boolean,
	"count": integer, "strings": strs, "stringarray": strs, "stringslice": strs,
	"ints": ints, "int32slice": ints, "int64slice": ints, "uints": ints, "uintslice": ints,
	"float32slice": numbers, "float64slice": numbers, "durations": strs, "durationslice": strs,
	"bools": strs, "boolslice": strs, "stringtostring": mapType, "stringtoint": mapType, "stringtoint64": mapType,
}

// optionatorTypes are the types optionator prints: "[String]" and
// "Array" are lists, "Object" is written as text ("quotes: [2, double]").
var optionatorTypes = map[string]valueType{
	"string": str, "path::string": str, "int": integer, "number": number, "boolean": boolean, "object": str,
	"array": strs, "[string]": strs, "[path::string]": strs, "[int]": ints, "[number]": numbers,
}

// clickTypes are the placeholders Click prints for its parameter types.
var clickTypes = map[string]valueType{
	"text": str, "integer": integer, "integer range": integer, "float": number, "float range": number,
	"boolean": boolean, "path": str, "file": str, "filename": str, "directory": str, "uuid": str,
	"datetime": str,
}

// re returns the regular expression s, compiled on its first use: a
// program links wrap for one command, and its start should not pay for
// the patterns of all the others.
func re(s string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(s) })
}

// layouts are tried in order; the first whose signs all match reads the
// help. fallback reads anything else.
var layouts = []*layout{
	{
		// kubectl's own templates for its Cobra commands.
		name:  "kubectl",
		signs: []func() *regexp.Regexp{re(`(?m)^Use "\S+ options" for a list of global command-line options`)},
		headings: map[string]kind{"usage": usage, "options": flags, "available commands": commands,
			"examples": other, "aliases": other},
		unknown: commands, // command groups: "Basic Commands (Beginner):"
		types:   goTypes, boolValue: true, shortEquals: true, subflagsInherit: true, dashdash: true, defaultInHead: true,
	},
	{
		name: "cobra",
		// Cobra's template, or gh's: "USAGE", "CORE COMMANDS", "FLAGS".
		signs: []func() *regexp.Regexp{re(`(?m)^(Usage:|USAGE)\n  \S`), re(`(?m)^(Flags|Global Flags|Available Commands):$|^(FLAGS|INHERITED FLAGS|[A-Z]+ COMMANDS)$`)},
		headings: map[string]kind{"usage": usage, "flags": flags, "global flags": inherited, "inherited flags": inherited,
			"available commands": commands, "additional commands": commands, "additional help topics": other,
			"aliases": other, "examples": other, "help topics": other, "learn more": other, "arguments": args,
			"environment variables": other, "json fields": other},
		unknown: commands, // command groups: "Basic Commands (Beginner):"
		types:   goTypes, boolValue: true, shortEquals: true, subflagsInherit: true, dashdash: true, describeFirst: true,
	},
	{
		name:  "urfave/cli v3",
		signs: []func() *regexp.Regexp{re(`(?m)^NAME:\n   \S`), re(`(?m)^USAGE:$`), re(`\[command \[command options\]\]|(?m)^USAGE:\n\s+\S.* \[options\]`)},
		headings: map[string]kind{"name": about, "usage": usage, "description": about, "commands": commands,
			"options": flags, "global options": inherited, "version": other, "author": other, "authors": other,
			"copyright": other, "category": other},
		unknown: mixed,
		types:   goTypes, boolValue: true, shortEquals: true, subflagsInherit: true, dashdash: true,
	},
	{
		name:  "urfave/cli v2",
		signs: []func() *regexp.Regexp{re(`(?m)^NAME:\n   \S`), re(`(?m)^USAGE:$`)},
		headings: map[string]kind{"name": about, "usage": usage, "description": about, "commands": commands,
			"options": flags, "global options": flags, "version": other, "author": other, "authors": other,
			"copyright": other, "category": other},
		unknown: mixed,
		types:   goTypes, boolValue: true, shortEquals: true, dashdash: true,
	},
	{
		name:     "argparse",
		signs:    []func() *regexp.Regexp{re(`(?m)^usage:( |\n    \S)`), re(`(?mi)^(options|optional arguments|positional arguments):$`)},
		headings: map[string]kind{"usage": usage, "options": flags, "optional arguments": flags, "positional arguments": args},
		unknown:  mixed,
		dashdash: true,
	},
	{
		name:  "click",
		signs: []func() *regexp.Regexp{re(`(?m)^Usage: \S+.* \[OPTIONS\]`), re(`(?m)^Options:$`), re(`--help +Show this message and exit\.`)},
		headings: map[string]kind{"usage": usage, "options": flags, "commands": commands,
			"arguments": args},
		unknown: mixed,
		types:   clickTypes, dashdash: true,
	},
	{
		// A manual page, as git's subcommands print for --help:
		// "GIT-LOG(1)  Git Manual  GIT-LOG(1)", NAME, SYNOPSIS, OPTIONS.
		name: "man page",
		signs: []func() *regexp.Regexp{re(`\A\s*\S+\(\d\w*\) {2,}.*\S+\(\d\w*\)\s*\n`),
			re(`(?m)^NAME\n {3,}\S`), re(`(?m)^SYNOPSIS\n`)},
		headings: map[string]kind{"name": about, "synopsis": usage, "options": flags, "description": other,
			"examples": other, "see also": other, "configuration": other, "environment": other, "files": other,
			"exit status": other, "bugs": other, "author": other, "authors": other, "notes": other},
		unknown: mixed, // more option sections: "DIFF FORMATTING"
		manPage: true,
	},
	{
		// GNU argp: "Usage: tar [OPTION...] [FILE]...", options in groups
		// under headings one space in, "-?, --help  give this help list".
		name:     "argp",
		signs:    []func() *regexp.Regexp{re(`(?m)^Usage: \S+.* \[OPTION\.\.\.\]`), re(`(?m)^  -\?, --help +give this help list$`)},
		headings: map[string]kind{"usage": usage, "options": flags},
		unknown:  other, // "Examples:", "*This* tar defaults to:"
		dashdash: true, indentedHeadings: true, equalsOnly: true,
	},
	{
		// optionator (ESLint and other Node programs): the usage on the
		// first line, "--ext [String]", "-c, --config path::String".
		name:     "optionator",
		signs:    []func() *regexp.Regexp{re(`(?m)^  (?:-\w, )?--[\w-]+ \[?(?:path::)?(?:String|Int|Number|Boolean|Object|Array)\]? {2,}\S`)},
		headings: map[string]kind{},
		unknown:  flags, // "Basic configuration:", "Fix Problems:"
		types:    optionatorTypes, dashdash: true, usageFirst: true,
	},
	{
		// GetOpt's usageInfo (Haskell's System.Console.GetOpt and its
		// ports): short and long spellings in two columns, no comma.
		name:     "GetOpt",
		signs:    []func() *regexp.Regexp{re(`(?m)^  -[^-\s](?:[^-\n]|-[^-\n])*? {2,}--[A-Za-z][\w-]*\S* {2,}\S`)},
		headings: map[string]kind{"usage": usage, "options": flags},
		unknown:  flags,
		dashdash: true, longColumn: true, equalsOnly: true,
	},
	{
		name: "clap",
		// clap 2 and 3 print "USAGE:" and four spaces; clap 4 "Usage:",
		// its help line tells it from others.
		signs: []func() *regexp.Regexp{re(`(?m)^(Usage: \S|USAGE:\n    \S)`),
			re(`(?m)^(Options|OPTIONS|FLAGS|Arguments|ARGS):$`), re(`(?m)^USAGE:\n    \S|-h, --help +(Print help|Prints help information)|\n {6,}Print help`)},
		headings: map[string]kind{"usage": usage, "options": flags, "flags": flags, "arguments": args,
			"args": args, "commands": commands, "subcommands": commands},
		unknown: mixed,
		// clap reads --flag=VALUE and -xVALUE but not -x=VALUE.
		dashdash: true,
	},
	{
		name:  "Go flag",
		signs: []func() *regexp.Regexp{re(`(?m)^  -[A-Za-z0-9][\w.-]*( [^ ].*)?\n    \t`)},
		headings: map[string]kind{"usage": usage, "usage of": flags, "flags": flags, "options": flags,
			"the flags are": flags},
		unknown: mixed,
		types:   goTypes, boolValue: true, shortEquals: true, dashdash: true,
	},
}

// fallback reads a help text of no known layout: GNU-style option lines
// anywhere, each a boolean or a string.
var fallback = &layout{
	name:    "plain",
	unknown: mixed,
	headings: map[string]kind{"usage": usage, "options": flags, "flags": flags, "commands": commands,
		"arguments": args, "args": args, "examples": other},
}

// detect returns the layout of a help text, or fallback.
func detect(text string) *layout {
	text = expandTabsKeep(text)
	for _, l := range layouts {
		all := true
		for _, s := range l.signs {
			if !s().MatchString(text) {
				all = false
				break
			}
		}
		if all {
			return l
		}
	}
	return fallback
}

// expandTabsKeep drops carriage returns and colour codes but keeps tabs,
// which Go's flag package prints before each flag's usage.
func expandTabsKeep(text string) string {
	if !strings.ContainsAny(text, "\r\x1b") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		parts := strings.Split(l, "\t")
		for j, p := range parts {
			parts[j] = expandTabs(p)
		}
		lines[i] = strings.Join(parts, "\t")
	}
	return strings.Join(lines, "\n")
}
