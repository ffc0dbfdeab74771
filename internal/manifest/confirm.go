package manifest

import (
	"github.com/mcpship/mcpship/internal/confirm"
)

// compileConfirm checks the tool's confirm text against its inputs and
// its readOnly.
func (t *tool) compileConfirm(probs *problemList) {
	at := t.path + ".confirm"
	if t.spec.Confirm == "" && !probs.hasKey(at) {
		return
	}
	p, err := confirm.Parse(t.spec.Confirm)
	if err != nil {
		probs.add(at, "%v", err)
		return
	}
	for _, name := range p.Inputs() {
		if _, ok := t.inputs[name]; !ok {
			probs.add(at, "%s", confirm.Unknown(name, t.order))
		}
	}
	if t.readOnly {
		probs.add(at, "a confirm question asks before a tool changes something, and this tool is declared \"readOnly\": true: "+
			"drop \"readOnly\" if it writes, or drop \"confirm\"")
	}
	t.confirm = p
}

// confirmRuns is what a call with argv and vals runs, as a confirmation
// is bound to it: the command line, and the values inputs pass in the
// environment.
func (t *tool) confirmRuns(argv []string, vals map[string]any) []string {
	runs := append([]string(nil), argv...)
	for _, name := range t.order {
		if in := t.inputs[name]; in.Env != "" {
			if v, given := vals[name]; given {
				runs = append(runs, in.Env+"="+scalarString(v))
			}
		}
	}
	return runs
}
