package clitool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// argv builds the command line of a call: the program's name and the
// command's path, each flag given as --NAME=VALUE (a repeatable flag once
// per item) in the order of their names, then "--" and the positional
// arguments, so that no value can be read as a flag (but for a command
// that reads its own flags: Command.RawArgs).
//
// A flag whose value is its announced default is left out, as the call
// most likely left it out and the server filled the default in: given, it
// would count as set (Cobra's Changed, urfave/cli's IsSet), which the
// command can tell apart, and which groups of mutually exclusive flags
// refuse.
func (t *tool) argv(vals map[string]json.RawMessage) ([]string, error) {
	argv := append([]string{t.r.app.Name}, t.path...)
	names := make([]string, 0, len(vals))
	for name := range vals {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f, ok := t.flags[name]
		if !ok {
			continue
		}
		items, err := flagValues(vals[name])
		if err != nil {
			return nil, fmt.Errorf("input %q: %v", name, err)
		}
		if def, ok := t.defaults[name]; ok && slices.Equal(items, def) {
			continue // as if left out: the server filled in the default
		}
		for _, s := range items {
			if f.CSV {
				s = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
			}
			argv = append(argv, "--"+name+"="+s)
		}
	}
	if t.args != "" {
		var args []string
		if raw, ok := vals[t.args]; ok {
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, fmt.Errorf("input %q: %v", t.args, err)
			}
		}
		if len(args) > 0 && !t.raw {
			argv = append(argv, "--")
		}
		argv = append(argv, args...)
	}
	return argv, nil
}

// flagValues returns the JSON value raw as the values of a flag: each
// item of a list, else the value itself, formatted by flagValue.
func flagValues(raw json.RawMessage) ([]string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	items, list := v.([]any)
	if !list {
		items = []any{v}
	}
	out := make([]string, len(items))
	for i, x := range items {
		out[i] = flagValue(x)
	}
	return out, nil
}

// flagValue formats a JSON scalar for a flag: integral numbers without a
// fraction (3.0 is 3), so that integer flags parse them.
func flagValue(v any) string {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatInt(int64(f), 10)
		}
	}
	return fmt.Sprint(v)
}
