package clitool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpship/mcpship/internal/confirm"
)

// compileConfirm checks spec.Confirm against the tool's inputs.
func (t *tool) compileConfirm() error {
	pkg, spec := t.r.app.Pkg, t.spec
	if spec.Confirm == "" {
		return nil
	}
	p, err := confirm.Parse(spec.Confirm)
	if err != nil {
		return fmt.Errorf("%s: Tool.Confirm of %q: %v", pkg, spec.Command, err)
	}
	var inputs []string
	for name := range t.flags {
		inputs = append(inputs, name)
	}
	if t.args != "" {
		inputs = append(inputs, t.args)
	}
	slices.Sort(inputs)
	for _, name := range p.Inputs() {
		if !slices.Contains(inputs, name) {
			return fmt.Errorf("%s: Tool.Confirm of %q: %s", pkg, spec.Command, confirm.Unknown(name, inputs))
		}
	}
	if spec.ReadOnly {
		return fmt.Errorf("%s: Tool.Confirm of %q: a confirm question asks before a command changes something, and this one is ReadOnly: drop ReadOnly if it writes, or drop Confirm", pkg, spec.Command)
	}
	t.confirm = p
	return nil
}

// confirmValues decodes a call's values for the question, numbers as
// json.Number.
func confirmValues(vals map[string]json.RawMessage) map[string]any {
	out := make(map[string]any, len(vals))
	for name, raw := range vals {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			out[name] = v
		}
	}
	return out
}
