package wrap

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tool is a drafted tool, in the order its JSON is written.
type tool struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Command     []string          `json:"command"`
	Inputs      map[string]*input `json:"inputs,omitempty"`
	Output      string            `json:"output,omitempty"`
	ReadOnly    bool              `json:"readOnly"`
}

// input is a drafted input of a tool.
type input struct {
	Type        string   `json:"type,omitempty"`
	Items       string   `json:"items,omitempty"`
	Description string   `json:"description,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	Flag        string   `json:"flag,omitempty"`
}

// toolName names the tool of a command: the program's and subcommands'
// names joined by '_', other characters than letters, digits and '-' as
// '_', at most 64 bytes.
func (d *drafter) toolName(path []string) string {
	parts := append([]string{filepath.Base(d.prog)}, path...)
	var b strings.Builder
	for _, p := range parts {
		for _, r := range strings.TrimLeft(p, "-") { // python3 -m zipfile: python3_m_zipfile
			switch {
			case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '-':
				b.WriteRune(r)
			default:
				b.WriteByte('_')
			}
		}
		b.WriteByte('_')
	}
	name := strings.Trim(b.String(), "_")
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// judged is a flag or positional argument of a command, and what it was
// judged to be.
type judged struct {
	flag  *option // nil for a positional argument
	pos   arg
	kind  inputKind
	why   string
	level *node  // the command on the path whose flag it is
	guess string // why a positional argument is a guess, or ""
}

func (j judged) spell() string {
	if j.flag != nil {
		return strings.Join(j.flag.names, "/")
	}
	return strings.ToUpper(j.pos.name)
}

// tool drafts the tool of a command without subcommands. form says why
// a form of its usage may change something, or is "". It gathers and
// judges the inputs, judges the command, builds the tool's argv and
// inputs, and reports what it made.
func (d *drafter) tool(n *node, form string) {
	line := d.cmdline(n.path)
	name := d.toolName(n.path)
	for i := 2; d.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", d.toolName(n.path), i)
	}
	t := tool{Name: name, Description: toolDescription(n, line), Inputs: map[string]*input{}}
	all, read := inputsOf(n)
	allowed := n.allowed || d.allowed(n.path)
	j := d.judgeTool(n, form, all, read, allowed)
	t.ReadOnly = j.verdict == reads
	if !t.ReadOnly {
		d.res.Review = append(d.res.Review, fmt.Sprintf("%s (tool %s): %s", line, name, j.why))
	}
	counts := d.build(&t, n, all, allowed, line)
	if len(t.Inputs) == 0 {
		t.Inputs = nil
	}
	d.names[name] = true
	d.tools = append(d.tools, t)
	verdict := "read-only"
	if !t.ReadOnly {
		verdict = "not read-only"
	}
	d.res.Recognised = append(d.res.Recognised, fmt.Sprintf("%s: %s help; tool %s (%s%s): %s", line, n.help.layout.name, name, verdict, counts.json, counts))
	for _, u := range n.help.unread {
		d.res.Unread = append(d.res.Unread, fmt.Sprintf("%s %s: not offered: this flag line could not be read", line, u))
	}
}

// levels are the commands on a command's path whose flags it takes: each
// after its name, unless the command's own help lists those it inherits.
func levels(n *node) []*node {
	if n.help.layout.subflagsInherit {
		return []*node{n}
	}
	return append(slices.Clone(n.parents), n)
}

// inputsOf gathers and judges the flags and positional arguments of a
// command, and returns them with the names of the flags read.
func inputsOf(n *node) ([]judged, map[string]bool) {
	var all []judged
	read := map[string]bool{}
	for _, lvl := range levels(n) {
		fs := lvl.help.flags
		if lvl == n {
			// Cobra's "Global Flags", urfave/cli v3's "GLOBAL OPTIONS" (a
			// root's own flags, when the root is the tool).
			fs = append(slices.Clone(fs), lvl.help.inherited...)
		}
		for i := range fs {
			f := &fs[i]
			k, why := judgeInput(f.names, f.value, f.desc, f.enum)
			all = append(all, judged{flag: f, kind: k, why: why, level: lvl})
			for _, nm := range f.names {
				read[nm] = true
			}
		}
	}
	h := n.help
	positionals, unread := positionalsOf(n)
	guesses := make([]string, len(positionals)) // reported by the name the input gets
	if unread != "" {
		positionals = append(positionals, arg{name: "args", array: true})
		guesses = append(guesses, fmt.Sprintf("a list of positional arguments, for %s, which wrap cannot read; check what the program wants there", unread))
	}
	if len(positionals) == 0 && h.usage == "" && (h.layout.name == "Go flag" || h.layout == fallback) {
		positionals = []arg{{name: "args", array: true}}
		guesses = []string{"a list of positional arguments, as the help shows no usage line"}
	}
	for i, p := range positionals {
		k, why := judgeInput([]string{p.name}, p.name, p.desc, nil)
		if k == runsInput {
			k = codeInput // what the command works on is run: awk's 'program'
		}
		all = append(all, judged{pos: p, kind: k, why: why, guess: guesses[i]})
	}
	return all, read
}

// judgeTool judges a command: read-only only on evidence. Its words say
// it only reads, no form of its usage changes anything, none of its
// inputs takes code (nor runs commands, when --allow offers them), and
// its help mentions no option that writes that was not read.
func (d *drafter) judgeTool(n *node, form string, all []judged, read map[string]bool, allowed bool) judgement {
	j := judgeCommand([]string{d.commandName(n.path)}, append([]string{n.summary, n.help.about}, preamble(n.text)...)...)
	switch {
	case n.allowed:
		return judgement{changes, "it is drafted because --allow names it"}
	case form != "" && (j.verdict == reads || j.why == nothingSays):
		return judgement{changes, form}
	case j.verdict != reads:
		return j
	}
	for _, in := range all {
		if in.kind == codeInput || allowed && in.kind == runsInput {
			what := "takes code"
			if in.kind == runsInput {
				what = "runs a command, and --allow offers it"
			}
			return judgement{changes, fmt.Sprintf("its input %s %s (%s)", in.spell(), what, in.why)}
		}
	}
	if o := strayOption(n.text, read); o != "" {
		return judgement{changes, fmt.Sprintf("its help mentions %s, which may write or run commands and is not one of the flags read", o)}
	}
	return j
}

// build sets the argv and inputs of the tool t: the program, the flags of
// each command on the path after its name, then the positional arguments;
// and makes it print JSON where it can. It returns what it offered.
func (d *drafter) build(t *tool, n *node, all []judged, allowed bool, line string) typeCounts {
	var counts typeCounts
	t.Command = []string{d.programPath()}
	offered := map[string]*option{}
	for i, lvl := range levels(n) {
		if i == 0 {
			t.Command = append(t.Command, lvl.path...) // the program and the subcommands given to wrap
		} else {
			t.Command = append(t.Command, lvl.path[len(lvl.path)-1])
		}
		for _, in := range all {
			if in.flag == nil || in.level != lvl || !d.offer(t, in, allowed, line) {
				continue
			}
			if name := d.addFlag(t, n.help.layout, *in.flag, line, &counts); name != "" {
				offered[name] = in.flag
			}
		}
	}
	d.addPositionals(t, n, all, allowed, line, &counts)
	counts.json = d.setJSON(t, offered, &counts)
	return counts
}

// addPositionals adds the positional arguments offered to the tool t,
// after "--" where the layout's library reads one.
func (d *drafter) addPositionals(t *tool, n *node, all []judged, allowed bool, line string, counts *typeCounts) {
	dashdash := n.help.layout.dashdash
	for _, in := range all {
		if in.flag != nil || !d.offer(t, in, allowed, line) {
			continue
		}
		p := in.pos
		name := p.name
		if t.Inputs[name] != nil {
			name += "_arg" // jq's --args flag and its args
		}
		if t.Inputs[name] != nil {
			continue
		}
		if in.guess != "" {
			d.res.Guessed = append(d.res.Guessed, fmt.Sprintf("%s %s: %s", line, name, in.guess))
		}
		if dashdash {
			t.Command = append(t.Command, "--")
			dashdash = false
		}
		in := &input{Description: p.desc, Required: p.required}
		if p.array {
			in.Type = "array"
			counts.lists++
		} else {
			counts.strings++
		}
		t.Inputs[name] = in
		t.Command = append(t.Command, "{"+name+"}")
		counts.positionals++
	}
}

// offer reports whether an input is offered by the tool t, and lists it
// as left out when not: one that runs code or commands unless allowed,
// one that writes or names a configuration file when the tool is
// read-only.
func (d *drafter) offer(t *tool, in judged, allowed bool, line string) bool {
	switch {
	case (in.kind == codeInput || in.kind == runsInput) && !allowed:
		d.res.LeftOut = append(d.res.LeftOut, fmt.Sprintf("%s %s: runs code or commands (%s); to offer it, add --allow %q", line, in.spell(), in.why, line))
		return false
	case in.kind == writesInput && t.ReadOnly:
		d.res.LeftOut = append(d.res.LeftOut, fmt.Sprintf("%s %s: may write (%s), and %s is read-only; to offer it, add it to %s by hand and mark the tool \"readOnly\": false", line, in.spell(), in.why, t.Name, t.Name))
		return false
	case in.kind == loadsInput && t.ReadOnly:
		d.res.LeftOut = append(d.res.LeftOut, fmt.Sprintf("%s %s: may load code (%s), and %s is read-only; to offer it, add it to %s by hand if what it names cannot run anything, or mark the tool \"readOnly\": false", line, in.spell(), in.why, t.Name, t.Name))
		return false
	}
	return true
}

// positionalsOf returns the positional arguments of a command: from its
// usage line, with the descriptions of its arguments section, or from
// that section alone; and what in the usage stands for positional
// arguments that wrap cannot read, or "".
func positionalsOf(n *node) ([]arg, string) {
	h := n.help
	positionals, unread := usageArgs(h.usage, h.layout, usageDepth(h.usage, n.path))
	switch {
	case len(h.forms) > 0 && len(h.args) > 0: // several forms: the arguments section says which
		args := slices.Clone(h.args)
		for i, a := range args { // optional or a list as the first form shows it
			if j := slices.IndexFunc(positionals, func(p arg) bool { return p.name == a.name }); j >= 0 {
				args[i].required, args[i].array = positionals[j].required, positionals[j].array
			}
		}
		return args, ""
	case len(h.forms) > 0:
		return nil, fmt.Sprintf("the %d forms of its usage", len(h.forms)+1)
	case len(positionals) == 0 && len(h.args) > 0:
		return h.args, ""
	case len(unread) > 0:
		return positionals, strings.Join(unread, " ") + " in its usage"
	}
	for i, p := range positionals {
		if j := slices.IndexFunc(h.args, func(a arg) bool { return a.name == p.name }); j >= 0 {
			positionals[i].desc = h.args[j].desc
		}
	}
	return positionals, ""
}

// programPath is the program as the manifest names it: as given, or
// relative to the manifest's directory when given as a relative path.
func (d *drafter) programPath() string {
	p := d.prog
	if filepath.IsAbs(p) || !strings.ContainsRune(p, filepath.Separator) && !strings.ContainsRune(p, '/') {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	dir := d.opts.ManifestDir
	if dir == "" {
		dir = "."
	}
	dir, _ = filepath.Abs(dir)
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return abs
	}
	if !strings.HasPrefix(rel, ".") {
		rel = "." + string(filepath.Separator) + rel
	}
	return filepath.ToSlash(rel)
}

func toolDescription(n *node, line string) string {
	desc := n.summary
	if about := n.help.about; len(about) > len(desc) && !strings.HasPrefix(strings.ToLower(about), "usage") {
		desc = about
	}
	desc = strings.TrimSpace(desc)
	if len(desc) > 1000 {
		desc = desc[:997] + "..."
	}
	if desc == "" {
		desc = "Run " + line + "."
	}
	return desc
}

// typeCounts counts a tool's inputs by type, for the report, and says
// what setJSON set.
type typeCounts struct {
	booleans, strings, integers, numbers, enums, lists, maps, positionals int
	json                                                                  string
}

func (c typeCounts) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{c.booleans, "boolean"}, {c.strings, "string"}, {c.integers, "integer"}, {c.numbers, "number"},
		{c.enums, "enum"}, {c.lists, "list"}, {c.maps, "map"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	n := c.booleans + c.strings + c.integers + c.numbers + c.enums + c.lists + c.maps
	s := plural(n, "input")
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	if c.positionals > 0 {
		s += fmt.Sprintf(", %s of them positional", strconv.Itoa(c.positionals))
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// addFlag adds a flag to the tool as an input and returns the input's
// name, or reports why not and returns "".
func (d *drafter) addFlag(t *tool, l *layout, f option, line string, counts *typeCounts) string {
	spell := strings.Join(f.names, "/")
	if f.skip != "" {
		d.res.Unread = append(d.res.Unread, fmt.Sprintf("%s %s: not offered: %s", line, spell, f.skip))
		return ""
	}
	if !utf8.ValidString(f.spelling) {
		d.res.Unread = append(d.res.Unread, fmt.Sprintf("%s %s: not offered: its name is not UTF-8 text, which a manifest cannot pass", line, strings.ToValidUTF8(spell, "?")))
		return ""
	}
	name := strings.TrimLeft(f.spelling, "-")
	if !validName(name) {
		name = inputName(name)
	}
	if name == "" {
		d.res.Unread = append(d.res.Unread, fmt.Sprintf("%s %s: not offered: no input name can be made of it", line, spell))
		return ""
	}
	if t.Inputs[name] != nil {
		return "" // a parent's flag of the same name: the command's own wins
	}
	in := &input{Type: f.typ, Description: f.desc, Required: f.required}
	if in.Type == "string" {
		in.Type = ""
	}
	// The default goes into the description, not into "default": a
	// declared default is passed on every call, and a program may refuse
	// a flag given at its default value (fd's --batch-size wants
	// --exec-batch) or compute it (a number of CPUs, the current directory).
	if f.hasDef && f.def != "" && !strings.Contains(strings.ToLower(f.desc), "default") {
		in.Description = strings.TrimSpace(in.Description + " Default: " + f.def + ".")
	}
	switch {
	case f.array:
		in.Type, in.Items = "array", itemType(f.typ)
		counts.lists++
	case f.typ == "object":
		counts.maps++
	case len(f.enum) > 0:
		in.Enum = f.enum
		counts.enums++
	case f.typ == "boolean":
		counts.booleans++
	case f.typ == "integer":
		counts.integers++
	case f.typ == "number":
		counts.numbers++
	default:
		counts.strings++
	}
	// "--name=VALUE" for a long option; a one-dash option ("-x", or
	// sqlite3's "-separator") takes its value as the next argument,
	// unless the layout's library reads "-name=VALUE" (Go's flag).
	long := strings.HasPrefix(f.spelling, "--")
	switch {
	case f.typ == "object": // jq's --arg NAME VALUE, once per entry
		in.Flag = f.spelling
	case f.typ == "boolean" && l.boolValue:
		in.Flag = f.spelling + "="
	case f.typ == "boolean":
		in.Flag = f.spelling
	case long || l.shortEquals:
		in.Flag = f.spelling + "="
	default:
		in.Flag = f.spelling
	}
	if f.guess != "" {
		d.res.Guessed = append(d.res.Guessed, fmt.Sprintf("%s %s: %s", line, f.spelling, f.guess))
	}
	t.Inputs[name] = in
	t.Command = append(t.Command, "{"+name+"}")
	return name
}

func itemType(typ string) string {
	if typ == "integer" || typ == "number" {
		return typ
	}
	return "" // string, the default
}

// validName reports whether s can be an input's name as it is.
func validName(s string) bool {
	return s != "" && len(s) <= 64 && inputName(s) == strings.ToLower(s) && !('0' <= s[0] && s[0] <= '9')
}

// setJSON makes a tool print JSON where the program offers it: a switch
// named json (--json, -json), or a format flag that takes json
// (--format json, -o json, --output=json, -f json). The flag is set in
// the command, its input is dropped and the tool's output is "json", so
// a call's result carries structuredContent. A flag whose help says its
// JSON comes as lines or a stream (JSON Lines, NDJSON), which is not one
// JSON value, is left as it is, and so is one whose help says only some
// commands support it. setJSON returns what it set, for the report, or "".
// reNotOneJSON finds a flag description that says its JSON is not one
// value, or not for every command.
var reNotOneJSON = re(`(?i)json[ -]lines|jsonl|ndjson|per line|each line|one line|stream|support`)

// reJSONOutput finds a json switch's description that speaks of what
// the command prints.
var reJSONOutput = re(`(?i)\b(?:output|outputs|print|prints|format|show|shows|display|displays|results?|report|emit|emits|list|lists)\b`)

func (d *drafter) setJSON(t *tool, offered map[string]*option, counts *typeCounts) string {
	var names []string
	for name := range offered {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f := offered[name]
		in := t.Inputs[name]
		if k, _ := judgeInput(f.names, f.value, f.desc, f.enum); k != plainInput ||
			reNotOneJSON().MatchString(f.desc) {
			// gdu's --output-file: "Export all info into file as JSON"; rg's
			// JSON Lines; restic's global --json, "for commands that support it".
			continue
		}
		var set []string
		switch nws := nameWords(strings.TrimLeft(f.spelling, "-")); {
		case f.typ == "boolean" && !f.array && len(nws) == 1 && nws[0] == "json":
			if f.desc != "" && !reJSONOutput().MatchString(f.desc) {
				continue // httpie's --json: "Data items ... are serialized as a JSON object"
			}
			set = []string{f.spelling}
		case f.typ == "boolean" || f.array || !containsAny(nws, "format", "output", "o", "f", "fmt") ||
			containsAny(nws, "input", "in", "i", "from", "p"): // yq's --input-format

			continue
		case slices.Contains(f.enum, "json"), len(f.enum) == 0 && containsAny(textWords(f.desc), "json"):
			if strings.HasSuffix(in.Flag, "=") {
				set = []string{in.Flag + "json"}
			} else {
				set = []string{in.Flag, "json"}
			}
		default:
			continue
		}
		i := slices.Index(t.Command, "{"+name+"}")
		t.Command = slices.Replace(t.Command, i, i+1, set...)
		delete(t.Inputs, name)
		switch {
		case f.typ == "boolean":
			counts.booleans--
		case len(f.enum) > 0:
			counts.enums--
		default:
			counts.strings--
		}
		t.Output = "json"
		return ", output json: " + strings.Join(set, " ")
	}
	return ""
}
