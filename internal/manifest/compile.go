package manifest

import (
	"fmt"
	"sort"
	"strings"
	"text/template"

	"github.com/mcpship/mcpship/mcp"
)

// compile checks one tool and builds its runtime form.
func (m *Manifest) compile(probs *problemList, path string, spec *Tool) *tool {
	t := &tool{m: m, spec: spec, path: path, inputs: map[string]*input{}}
	checkIdentity(probs, path, spec)
	checkSettings(probs, path, &spec.Settings)
	t.settle(&m.Defaults, &spec.Settings)
	t.compileInputs(probs)
	used := t.compileCommand(probs)
	t.compileWorker(probs)
	for _, name := range t.order {
		if !used[name] && t.inputs[name].Env == "" && len(spec.Command) > 0 {
			probs.add(join(path+".inputs", name), "input %q is never used: put {%s} in \"command\" or give it an \"env\"", name, name)
		}
	}
	t.compileSummary(probs)
	t.compileDeclared(probs)
	t.readOnly = spec.ReadOnly != nil && *spec.ReadOnly
	if t.readOnly && (spec.Destructive != nil || spec.Idempotent != nil) {
		probs.add(path, "\"destructive\" and \"idempotent\" describe a tool that changes things, and this one is \"readOnly\": true; drop them, or drop \"readOnly\"")
	}
	t.compileCache(probs)
	t.compileConfirm(probs)
	return t
}

// checkIdentity checks what names and describes a tool to the model.
func checkIdentity(probs *problemList, path string, spec *Tool) {
	switch {
	case spec.Name == "":
		probs.add(path, "missing \"name\": give the tool a name such as \"mytool_check\"")
	case !mcp.ValidToolName(spec.Name):
		probs.add(path+".name", "%q is not a valid tool name: use 1 to 64 letters, digits, '_' or '-'", spec.Name)
	}
	if strings.TrimSpace(spec.Description) == "" {
		probs.add(path, "missing \"description\": say what the tool does and when to use it; the model reads it to choose tools")
	}
}

// compileInputs checks the tool's inputs, in name order.
func (t *tool) compileInputs(probs *problemList) {
	names := make([]string, 0, len(t.spec.Inputs))
	for name := range t.spec.Inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.order = append(t.order, name)
		t.inputs[name] = compileInput(probs, join(t.path+".inputs", name), name, t.spec.Inputs[name])
	}
}

// compileCommand parses the tool's command and checks each placeholder
// against the input it names. It returns the inputs the command uses.
func (t *tool) compileCommand(probs *problemList) map[string]bool {
	used := map[string]bool{}
	if len(t.spec.Command) == 0 {
		probs.add(t.path, "missing \"command\": give the program and its arguments, as in [\"rigor\", \"check\", \"{paths}\"]")
	}
	afterSep := false
	for i, s := range t.spec.Command {
		at := fmt.Sprintf("%s.command[%d]", t.path, i)
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
		_, whole := e.whole()
		if in, ok := t.inputs[e.parts[0].input]; ok && !afterSep && in.numeric() && !(whole && in.Flag != "") &&
			(in.Minimum == nil || *in.Minimum < 0) {
			t.negative = append(t.negative, slot{at, e.parts[0].input})
		}
		for _, p := range e.parts {
			if p.input != "" {
				t.checkPlaceholder(probs, at, p.input, whole, afterSep, used)
			}
		}
	}
	return used
}

// checkPlaceholder checks one {name} of the command element at, which is
// that placeholder alone when whole, and records the input as used.
func (t *tool) checkPlaceholder(probs *problemList, at, name string, whole, afterSep bool, used map[string]bool) {
	in, ok := t.inputs[name]
	if !ok {
		probs.add(at, "{%s} names no input; declare it under \"inputs\" or fix the spelling (inputs: %s)", name, orNone(t.order))
		return
	}
	used[name] = true
	switch {
	case whole && in.Type == "boolean" && in.Flag == "":
		probs.add(at, "boolean input %q is a whole argument but has no \"flag\"; give it one, such as \"flag\": \"--%s\", or write it inside text, as in \"--%s={%s}\"", name, name, name, name)
	case whole && in.Flag != "" && afterSep:
		probs.add(at, "{%s} emits the flag %q after \"--\", where it would be read as a value; move it before \"--\"", name, in.Flag)
	case !whole && in.Type == "array":
		probs.add(at, "array input %q must be a whole argument, as \"{%s}\"; it expands to one argument per item", name, name)
	case !whole && in.Type == "object":
		probs.add(at, "object input %q must be a whole argument, as \"{%s}\"; it expands to the flag, a name and a value per entry", name, name)
	case in.Type == "object" && afterSep:
		probs.add(at, "{%s} emits the flag %q after \"--\", where it would be read as a value; move it before \"--\"", name, in.Flag)
	case !whole && in.Flag != "":
		probs.add(at, "input %q has a \"flag\", which only applies when {%s} is a whole argument; drop the flag or the surrounding text", name, name)
	}
}

// compileSummary parses the tool's summary template.
func (t *tool) compileSummary(probs *problemList) {
	switch {
	case t.spec.Summary == "":
	case t.output != "json":
		probs.add(t.path+".summary", "a summary needs \"output\": \"json\"; with text output the text is the result")
	default:
		tpl, err := template.New(t.spec.Name).Option("missingkey=error").Parse(t.spec.Summary)
		if err != nil {
			probs.add(t.path+".summary", "not a valid template: %v", err)
			return
		}
		t.summary = tpl
	}
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
