package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"text/template"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

var (
	inputTypes = []string{"string", "integer", "number", "boolean", "array"}
	itemTypes  = []string{"string", "integer", "number"}
)

// validInputName reports whether name matches ^[A-Za-z_][A-Za-z0-9_-]{0,63}$.
func validInputName(name string) bool { return len(name) <= 64 && isName(name, "", "-") }

// validEnvName reports whether name matches ^[A-Za-z_][A-Za-z0-9_]*$.
func validEnvName(name string) bool { return isName(name, "", "") }

// isName reports whether s is an ASCII letter, '_' or one of first,
// followed by letters, digits, '_' or bytes of rest. Loops, not regexps:
// each regexp compiled at package level costs every process start-up time
// (see BENCHMARKS.md).
func isName(s, first, rest string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_':
		case i == 0 && strings.IndexByte(first, c) >= 0:
		case i > 0 && ('0' <= c && c <= '9' || strings.IndexByte(rest, c) >= 0):
		default:
			return false
		}
	}
	return true
}

// Load reads and checks the manifest in file. An invalid manifest gives
// a *Problems error listing every problem found.
func Load(file string) (*Manifest, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading manifest: %w", err)
	}
	return Parse(file, data)
}

// Parse checks the manifest in data; file names it in messages, and its
// directory is where relative dirs and programs are resolved.
func Parse(file string, data []byte) (*Manifest, error) {
	probs := newProblemList(data)
	fail := func() error {
		sort.SliceStable(probs.list, func(i, j int) bool {
			a, b := probs.list[i], probs.list[j]
			return a.Line < b.Line || (a.Line == b.Line && a.Column < b.Column)
		})
		return &Problems{File: file, List: probs.list}
	}
	root, err := parseTree(data)
	if err != nil {
		se := err.(*syntaxError)
		probs.at("", se.off)
		probs.add("", "%s", se.msg)
		return nil, fail()
	}
	probs.at("", root.off)
	m := &Manifest{file: file}
	if abs, err := filepath.Abs(file); err == nil {
		m.dir = filepath.Dir(abs)
	}
	(&decoder{probs: probs}).decode(root, reflect.ValueOf(m).Elem(), "")
	decoded := len(probs.list)
	m.check(probs)
	if len(probs.list) == 0 {
		m.probs = probs
		return m, nil
	}
	// A field that failed to decode is left empty; drop what the checks
	// then say about it or its object (such as "missing command" after
	// the unknown field "comand").
	kept := probs.list[:decoded]
	for _, p := range probs.list[decoded:] {
		if !slices.ContainsFunc(probs.list[:decoded], func(d Problem) bool { return related(d.Path, p.Path) }) {
			kept = append(kept, p)
		}
	}
	probs.list = kept
	return nil, fail()
}

// related reports whether one JSON path is the other or lies within it.
func related(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == "" || a == b || strings.HasPrefix(b, a+".") || strings.HasPrefix(b, a+"[")
}

func (m *Manifest) check(probs *problemList) {
	checkSettings(probs, "defaults", &m.Defaults)
	if len(m.Tools) == 0 {
		probs.add("tools", "no tools: add at least one, such as {\"name\": \"x\", \"description\": \"…\", \"command\": [\"prog\"]}")
	}
	seen := map[string]int{}
	for i := range m.Tools {
		path := fmt.Sprintf("tools[%d]", i)
		t := &m.Tools[i]
		if j, dup := seen[t.Name]; dup && t.Name != "" {
			probs.add(path+".name", "tool %q is already declared by tools[%d]; tool names must be unique", t.Name, j)
		}
		seen[t.Name] = i
		m.tools = append(m.tools, m.compile(probs, path, t))
	}
}

func checkSettings(probs *problemList, path string, s *Settings) {
	if s.Output != "" && s.Output != "text" && s.Output != "json" {
		probs.add(path+".output", "%q is not an output mode; use \"text\" or \"json\"", s.Output)
	}
	if s.OKExitCodes != nil && len(s.OKExitCodes) == 0 {
		probs.add(path+".okExitCodes", "empty: no exit code would be a normal result; list at least one, such as [0]")
	}
	for i, c := range s.OKExitCodes {
		if c < 0 || c > 255 {
			probs.add(fmt.Sprintf("%s.okExitCodes[%d]", path, i), "%d is not an exit code; use 0 to 255", c)
		}
	}
	if s.Dir == "" && hasKey(probs, path+".dir") {
		probs.add(path+".dir", "empty working directory; leave \"dir\" out to use mcpship's own")
	}
	for name := range s.Env {
		if !validEnvName(name) {
			probs.add(join(path+".env", name), "%q is not a variable name; use letters, digits and '_'", name)
		}
	}
	for i, name := range s.PassEnv {
		if !validEnvName(name) {
			probs.add(fmt.Sprintf("%s.passEnv[%d]", path, i), "%q is not a variable name; use letters, digits and '_'", name)
		}
	}
	if s.Timeout > 24*time.Hour {
		probs.add(path+".timeout", "%v is longer than the limit of 24h", s.Timeout)
	}
	if hasKey(probs, path+".maxOutputBytes") && (s.MaxOutputBytes < 1024 || s.MaxOutputBytes > 64<<20) {
		probs.add(path+".maxOutputBytes", "%d is out of range; use 1024 to 67108864 (64 MiB)", s.MaxOutputBytes)
	}
}

func hasKey(probs *problemList, path string) bool {
	_, ok := probs.offs[path]
	return ok
}

// compile checks one tool and builds its runtime form.
func (m *Manifest) compile(probs *problemList, path string, spec *Tool) *tool {
	t := &tool{m: m, spec: spec, path: path, inputs: map[string]*input{}}
	switch {
	case spec.Name == "":
		probs.add(path, "missing \"name\": give the tool a name such as \"mytool_check\"")
	case !mcp.ValidToolName(spec.Name):
		probs.add(path+".name", "%q is not a valid tool name: use 1 to 64 letters, digits, '_' or '-'", spec.Name)
	}
	if strings.TrimSpace(spec.Description) == "" {
		probs.add(path, "missing \"description\": say what the tool does and when to use it; the model reads it to choose tools")
	}
	checkSettings(probs, path, &spec.Settings)
	t.settle(&m.Defaults, &spec.Settings)

	names := make([]string, 0, len(spec.Inputs))
	for name := range spec.Inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.order = append(t.order, name)
		t.inputs[name] = compileInput(probs, join(path+".inputs", name), name, spec.Inputs[name])
	}

	used := map[string]bool{}
	if len(spec.Command) == 0 {
		probs.add(path, "missing \"command\": give the program and its arguments, as in [\"rigor\", \"check\", \"{paths}\"]")
	}
	afterSep := false
	for i, s := range spec.Command {
		at := fmt.Sprintf("%s.command[%d]", path, i)
		e, err := parseElem(s)
		if err != nil {
			probs.add(at, "%v", err)
			continue
		}
		t.elems = append(t.elems, e)
		if i == 0 {
			if len(e.parts) != 1 || e.parts[0].input != "" || s == "" {
				probs.add(at, "the program must be fixed text, not %q: a call must never choose what runs", s)
			}
			continue
		}
		afterSep = afterSep || e.sep
		name, whole := e.whole()
		if in, ok := t.inputs[e.parts[0].input]; ok && !afterSep && in.numeric() && !(whole && in.Flag != "") &&
			(in.Minimum == nil || *in.Minimum < 0) {
			t.negative = append(t.negative, slot{at, e.parts[0].input})
		}
		for _, p := range e.parts {
			if p.input == "" {
				continue
			}
			in, ok := t.inputs[p.input]
			if !ok {
				probs.add(at, "{%s} names no input; declare it under \"inputs\" or fix the spelling (inputs: %s)", p.input, orNone(t.order))
				continue
			}
			used[p.input] = true
			switch {
			case whole && in.Type == "boolean" && in.Flag == "":
				probs.add(at, "boolean input %q is a whole argument but has no \"flag\"; give it one, such as \"flag\": \"--%s\", or write it inside text, as in \"--%s={%s}\"", name, name, name, name)
			case whole && in.Flag != "" && afterSep:
				probs.add(at, "{%s} emits the flag %q after \"--\", where it would be read as a value; move it before \"--\"", name, in.Flag)
			case !whole && in.Type == "array":
				probs.add(at, "array input %q must be a whole argument, as \"{%s}\"; it expands to one argument per item", p.input, p.input)
			case !whole && in.Flag != "":
				probs.add(at, "input %q has a \"flag\", which only applies when {%s} is a whole argument; drop the flag or the surrounding text", p.input, p.input)
			}
		}
	}
	for _, name := range t.order {
		if !used[name] && t.inputs[name].Env == "" && len(spec.Command) > 0 {
			probs.add(join(path+".inputs", name), "input %q is never used: put {%s} in \"command\" or give it an \"env\"", name, name)
		}
	}
	if spec.Summary != "" {
		if t.output != "json" {
			probs.add(path+".summary", "a summary needs \"output\": \"json\"; with text output the text is the result")
		} else if tpl, err := template.New(spec.Name).Option("missingkey=error").Parse(spec.Summary); err != nil {
			probs.add(path+".summary", "not a valid template: %v", err)
		} else {
			t.summary = tpl
		}
	}
	t.readOnly = spec.ReadOnly == nil || *spec.ReadOnly
	if t.readOnly && (spec.Destructive != nil || spec.Idempotent != nil) {
		probs.add(path, "\"destructive\" and \"idempotent\" describe write-side tools; set \"readOnly\": false as well, or drop them")
	}
	return t
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// settle resolves a tool's settings from its own and the defaults.
func (t *tool) settle(d, s *Settings) {
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	t.output = pick(pick(s.Output, d.Output), "text")
	t.okCodes = s.OKExitCodes
	if t.okCodes == nil {
		t.okCodes = d.OKExitCodes
	}
	if t.okCodes == nil {
		t.okCodes = []int{0}
	}
	t.dir = pick(s.Dir, d.Dir)
	if t.dir != "" && !filepath.IsAbs(t.dir) {
		t.dir = filepath.Join(t.m.dir, t.dir)
	}
	t.env = map[string]string{}
	for k, v := range d.Env {
		t.env[k] = v
	}
	for k, v := range s.Env {
		t.env[k] = v
	}
	t.passEnv = slices.Concat(DefaultPassEnv, d.PassEnv, s.PassEnv)
	t.timeout = s.Timeout
	if t.timeout == 0 {
		t.timeout = d.Timeout
	}
	if t.timeout == 0 {
		t.timeout = DefaultTimeout
	}
	t.maxOut = s.MaxOutputBytes
	if t.maxOut == 0 {
		t.maxOut = d.MaxOutputBytes
	}
	if t.maxOut == 0 {
		t.maxOut = DefaultMaxOutputBytes
	}
}

// Warnings reports what would make calls fail although the manifest is
// valid: programs not found and working directories missing on this
// machine, and numbers in positional slots, where a negative value cannot
// be passed.
// It returns nil when there is nothing to report.
func (m *Manifest) Warnings() *Problems {
	l := &problemList{data: m.probs.data, offs: m.probs.offs}
	seen := map[string]bool{}
	for _, t := range m.tools {
		if prog := t.spec.Command[0]; !seen[prog] { // once per program
			if _, err := t.lookPath(prog); err != nil {
				l.add(t.path+".command[0]", "warning: %v", err)
			}
			seen[prog] = true
		}
		if t.dir != "" {
			if fi, err := os.Stat(t.dir); err != nil || !fi.IsDir() {
				l.add(t.path, "warning: working directory %s does not exist here", t.dir)
			}
		}
		for _, s := range t.negative {
			l.add(s.path, "warning: {%s} is a number in a positional slot, where a negative value would be read as an option, so calls with one are refused; "+
				"give the input a \"flag\", put \"--\" before it in \"command\", or declare \"minimum\": 0", s.input)
		}
	}
	if len(l.list) == 0 {
		return nil
	}
	return &Problems{File: m.file, List: l.list}
}
