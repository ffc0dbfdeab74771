package cliadapter

import (
	"fmt"
	"slices"
	"time"

	"github.com/urfave/cli/v2"
)

// flagInput is one flag as a tool input.
type flagInput struct {
	name   string // the flag's first name, and the input's
	schema map[string]any
	kind   string // "bool", "scalar" or "list"
}

// flagInputs maps the flags the tool exposes. Flags of other types than
// those below are left out; they keep their defaults.
func flagInputs(flags []cli.Flag, exclude []string) []flagInput {
	var out []flagInput
	for _, f := range flags {
		names := f.Names()
		if len(names) == 0 || names[0] == "help" || slices.Contains(exclude, names[0]) {
			continue
		}
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		s, kind := flagSchema(f)
		if s == nil {
			continue
		}
		if fromEnv(f) {
			delete(s, "default")
		}
		if d, ok := f.(cli.DocGenerationFlag); ok && d.GetUsage() != "" {
			if s["description"] != nil {
				s["description"] = d.GetUsage() + " " + s["description"].(string)
			} else {
				s["description"] = d.GetUsage()
			}
		}
		out = append(out, flagInput{name: names[0], schema: s, kind: kind})
	}
	return out
}

// flagSchema returns the JSON Schema of a flag's value, with its default.
func flagSchema(f cli.Flag) (map[string]any, string) {
	s := map[string]any{}
	set := func(typ string, def any, zero bool) {
		s["type"] = typ
		if !zero {
			s["default"] = def
		}
	}
	list := func(item string, def any, n int) {
		s["type"], s["items"] = "array", map[string]any{"type": item}
		if n > 0 {
			s["default"] = def
		}
	}
	switch f := f.(type) {
	case *cli.BoolFlag:
		set("boolean", f.Value, !f.Value)
		return s, "bool"
	case *cli.StringFlag:
		set("string", f.Value, f.Value == "")
	case *cli.PathFlag:
		set("string", f.Value, f.Value == "")
		s["description"] = "(a path)"
	case *cli.IntFlag:
		set("integer", f.Value, f.Value == 0)
	case *cli.Int64Flag:
		set("integer", f.Value, f.Value == 0)
	case *cli.UintFlag:
		set("integer", f.Value, f.Value == 0)
		s["minimum"] = 0
	case *cli.Uint64Flag:
		set("integer", f.Value, f.Value == 0)
		s["minimum"] = 0
	case *cli.Float64Flag:
		set("number", f.Value, f.Value == 0)
	case *cli.DurationFlag:
		set("string", f.Value.String(), f.Value == 0)
		s["pattern"] = `^(\d+(\.\d*)?(ns|us|µs|ms|s|m|h))+$|^0$`
		s["description"] = fmt.Sprintf("(a duration such as %q)", (90 * time.Second).String())
	case *cli.StringSliceFlag:
		var def []string
		if f.Value != nil {
			def = f.Value.Value()
		}
		list("string", def, len(def))
		return s, "list"
	case *cli.IntSliceFlag:
		var def []int
		if f.Value != nil {
			def = f.Value.Value()
		}
		list("integer", def, len(def))
		return s, "list"
	case *cli.Int64SliceFlag:
		var def []int64
		if f.Value != nil {
			def = f.Value.Value()
		}
		list("integer", def, len(def))
		return s, "list"
	default:
		return nil, ""
	}
	if r, ok := f.(cli.RequiredFlag); ok && r.IsRequired() {
		delete(s, "default")
	}
	return s, "scalar"
}

// fromEnv reports whether the flag takes its value from an environment
// variable when not given. Its schema then has no "default": the server
// would fill that in for a call that leaves the flag out, and the
// variable would no longer count.
func fromEnv(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && len(d.GetEnvVars()) > 0
}

// isRequired reports whether the flag must be given.
func isRequired(f cli.Flag) bool {
	r, ok := f.(cli.RequiredFlag)
	return ok && r.IsRequired()
}
