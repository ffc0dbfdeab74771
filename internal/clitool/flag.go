package clitool

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"
)

// A Flag is one flag of a command as a tool input, whatever framework
// declared it.
type Flag struct {
	// Name is the flag's long name: the input's name, and --Name on the
	// command line.
	Name  string
	Usage string
	// Value is the flag's default, and its Go type is the input's type:
	// bool, string, a signed or unsigned integer of any size, float32 or
	// float64, time.Duration, or a slice of one of these (a repeatable
	// flag). A flag of another type is left out of the tool and keeps its
	// default. A zero or empty default is not announced.
	Value any
	// Required flags are required inputs, with no default.
	Required bool
	// FromEnv flags read an environment variable when not given: their
	// default is not announced, because the server would fill it in for a
	// call that leaves the flag out, and the variable would no longer count.
	FromEnv bool
	// Path marks a string that names a file.
	Path bool
	// CSV marks a repeatable string flag that splits each value it is
	// given as comma-separated fields (pflag's stringSlice): each item is
	// then written as one quoted field, so that a comma stays in its item.
	CSV bool
}

var durationType = reflect.TypeFor[time.Duration]()

// durationPattern is what time.ParseDuration accepts, less signs.
const durationPattern = `^(\d+(\.\d*)?(ns|us|µs|ms|s|m|h))+$|^0$`

// schema returns the JSON Schema of the flag's value, or nil for a type
// the adapters do not serve.
func (f Flag) schema() map[string]any {
	if f.Value == nil {
		return nil
	}
	v := reflect.ValueOf(f.Value)
	var s map[string]any
	if v.Kind() == reflect.Slice {
		items := typeSchema(v.Type().Elem())
		if items == nil {
			return nil
		}
		s = map[string]any{"type": "array", "items": items}
		def := make([]any, v.Len())
		ok := v.Len() > 0
		for i := range def {
			def[i], ok = defaultValue(v.Index(i))
			if !ok {
				break
			}
		}
		if ok {
			s["default"] = def
		}
	} else {
		s = typeSchema(v.Type())
		if s == nil {
			return nil
		}
		if d, ok := defaultValue(v); ok && !v.IsZero() {
			s["default"] = d
		}
	}
	var hint string
	switch {
	case v.Type() == durationType || v.Kind() == reflect.Slice && v.Type().Elem() == durationType:
		hint = fmt.Sprintf("(a duration such as %q)", (90 * time.Second).String())
	case f.Path:
		hint = "(a path)"
	}
	switch {
	case f.Usage != "" && hint != "":
		s["description"] = f.Usage + " " + hint
	case f.Usage != "":
		s["description"] = f.Usage
	case hint != "":
		s["description"] = hint
	}
	if f.Required || f.FromEnv {
		delete(s, "default")
	}
	return s
}

// typeSchema returns the schema of one value of type t, or nil.
func typeSchema(t reflect.Type) map[string]any {
	if t == durationType {
		return map[string]any{"type": "string", "pattern": durationPattern}
	}
	switch t.Kind() {
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Int8, reflect.Int16, reflect.Int32:
		bits := t.Bits()
		return map[string]any{"type": "integer", "minimum": -(int64(1) << (bits - 1)), "maximum": int64(1)<<(bits-1) - 1}
	case reflect.Uint, reflect.Uint64:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return map[string]any{"type": "integer", "minimum": 0, "maximum": uint64(1)<<t.Bits() - 1}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	}
	return nil
}

// defaultValue returns v as the schema's default, a duration as its
// text; false for a value JSON cannot hold (NaN, an infinity).
func defaultValue(v reflect.Value) (any, bool) {
	switch {
	case v.Type() == durationType:
		return time.Duration(v.Int()).String(), true
	case v.Kind() == reflect.Float32 || v.Kind() == reflect.Float64:
		f := v.Float()
		return v.Interface(), !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	return v.Interface(), true
}

// setEnum limits a string input, or the items of a list of strings, to
// vals.
func setEnum(s map[string]any, vals []string) error {
	target := s
	if s["type"] == "array" {
		target = s["items"].(map[string]any)
	}
	if target["type"] != "string" || target["pattern"] != nil {
		return fmt.Errorf("only a string flag, or a list of strings, takes one of a set of values")
	}
	if len(vals) == 0 {
		return fmt.Errorf("no values")
	}
	target["enum"] = vals
	defs := []any{s["default"]}
	if l, ok := s["default"].([]any); ok {
		defs = l
	}
	for _, d := range defs {
		if str, ok := d.(string); ok && !slices.Contains(vals, str) {
			return fmt.Errorf("the default %q is not one of %q", str, vals)
		}
	}
	return nil
}
