package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

var (
	inputTypes = []string{"string", "integer", "number", "boolean", "array", "object"}
	itemTypes  = []string{"string", "integer", "number"}
)

// input is a checked Input.
type input struct {
	Input
	name   string
	def    any // the default in force: --set, else the manifest's
	hasDef bool
}

func compileInput(probs *problemList, path, name string, spec *Input) *input {
	if spec == nil {
		spec = &Input{}
	}
	in := &input{Input: *spec, name: name}
	if !validInputName(name) {
		probs.add(path, "%q is not an input name: start with a letter or '_', then letters, digits, '_' or '-' (at most 64)", name)
	}
	if in.Type == "" {
		in.Type = "string"
	}
	if !slices.Contains(inputTypes, in.Type) {
		probs.add(path+".type", "%q is not an input type; use one of %s", in.Type, strings.Join(inputTypes, ", "))
		return in
	}
	listed := in.Type == "array" || in.Type == "object"
	switch {
	case !listed && in.Items != "":
		probs.add(path+".items", "\"items\" applies only to arrays and objects; this input is a %s", in.Type)
	case listed && in.Items == "":
		in.Items = "string"
	case listed && !slices.Contains(itemTypes, in.Items):
		probs.add(path+".items", "%q is not an item type; use one of %s", in.Items, strings.Join(itemTypes, ", "))
		return in
	}
	if in.Type == "object" && (in.Flag == "" || strings.HasSuffix(in.Flag, "=")) {
		probs.add(path+".flag", "an object input needs a \"flag\" such as \"--arg\" (not ending in '='): each of its entries is passed as the flag, the entry's name and its value, as jq's --arg NAME VALUE")
	}
	if in.Minimum != nil && !in.numeric() {
		probs.add(path+".minimum", "\"minimum\" applies only to integer and number inputs (and arrays of them); this input is a %s", in.Type)
	}
	if in.Type == "boolean" && len(in.Enum) > 0 {
		probs.add(path+".enum", "a boolean needs no enum")
	}
	if in.Enum != nil && len(in.Enum) == 0 {
		probs.add(path+".enum", "empty: no value would be allowed; list the allowed values or drop \"enum\"")
	}
	for i, v := range in.Enum {
		if msg := in.checkScalar(v, in.scalarType()); msg != "" {
			probs.add(fmt.Sprintf("%s.enum[%d]", path, i), "%s", msg)
		}
	}
	if in.Default != nil {
		if in.Required {
			probs.add(path+".default", "a required input never uses its default; drop \"required\" or the default")
		}
		if msg := in.check(in.Default); msg != "" {
			probs.add(path+".default", "%s", msg)
		} else {
			in.def, in.hasDef = in.Default, true
		}
	}
	if in.Env != "" && !validEnvName(in.Env) {
		probs.add(path+".env", "%q is not a variable name; use letters, digits and '_'", in.Env)
	}
	if in.Env != "" && listed {
		probs.add(path+".env", "an %s cannot go into one environment variable; use a placeholder in \"command\"", in.Type)
	}
	if in.Flag != "" && (strings.TrimSpace(in.Flag) != in.Flag || in.Flag == "=") {
		probs.add(path+".flag", "%q is not a flag; write it as the command expects, such as \"--out\" or \"--out=\"", in.Flag)
	}
	return in
}

// scalarType is the type of the input's values, or of its items.
func (in *input) scalarType() string {
	if in.Type == "array" || in.Type == "object" {
		return in.Items
	}
	return in.Type
}

// check returns why v (decoded with UseNumber) is not a valid value for
// the input, or "".
func (in *input) check(v any) string {
	if in.Type == "object" {
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Sprintf("expected an object of names to %s values, got %s", in.Items, describe(v))
		}
		for _, k := range sortedKeys(m) {
			if k == "" {
				return "an entry has an empty name"
			}
			if msg := in.checkScalar(m[k], in.Items); msg != "" {
				return fmt.Sprintf("entry %q: %s", k, msg)
			}
		}
		return ""
	}
	if in.Type != "array" {
		return in.checkScalar(v, in.Type)
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Sprintf("expected an array of %s, got %s", in.Items, describe(v))
	}
	for i, x := range list {
		if msg := in.checkScalar(x, in.Items); msg != "" {
			return fmt.Sprintf("item %d: %s", i, msg)
		}
	}
	return ""
}

func (in *input) checkScalar(v any, typ string) string {
	ok := false
	switch typ {
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "number":
		n, isNum := v.(json.Number)
		_, err := n.Float64()
		ok = isNum && isNumber(string(n)) && err == nil
	case "integer":
		n, isNum := v.(json.Number)
		_, ok = integerText(n)
		ok = ok && isNum
	}
	if !ok {
		return fmt.Sprintf("expected %s %s, got %s", article(typ), typ, describe(v))
	}
	if n, isNum := v.(json.Number); isNum && in.Minimum != nil {
		if f, _ := n.Float64(); f < *in.Minimum {
			return fmt.Sprintf("%s is less than the minimum %v", n, *in.Minimum)
		}
	}
	if len(in.Enum) > 0 && !slices.ContainsFunc(in.Enum, func(e any) bool { return scalarString(e) == scalarString(v) }) {
		return fmt.Sprintf("%s is not one of the allowed values %s", describe(v), enumList(in.Enum))
	}
	return ""
}

func article(typ string) string {
	if typ == "integer" || typ == "array" || typ == "object" {
		return "an"
	}
	return "a"
}

func describe(v any) string {
	if n, ok := v.(json.Number); ok && !isNumber(string(n)) { // from --set
		return strconv.Quote(string(n))
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func enumList(enum []any) string {
	s := make([]string, len(enum))
	for i, e := range enum {
		s[i] = describe(e)
	}
	return strings.Join(s, ", ")
}

// parse reads a --set value for the input.
func (in *input) parse(s string) (any, error) {
	var v any
	switch {
	case in.Type == "string":
		v = s
	case in.Type == "object":
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
	case in.Type == "array" && strings.HasPrefix(strings.TrimSpace(s), "["):
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("not a JSON array: %v", err)
		}
	case in.Type == "array" && in.Items == "string":
		v = []any{s}
	case in.Type == "array":
		v = []any{json.Number(s)}
	case in.Type == "boolean" && (s == "true" || s == "false"):
		v = s == "true"
	case in.Type == "boolean":
		return nil, fmt.Errorf("%q is not true or false", s)
	default:
		v = json.Number(s)
	}
	if msg := in.check(v); msg != "" {
		return nil, fmt.Errorf("%s", msg)
	}
	return v, nil
}

// sortedKeys returns an object's names in order: entries are passed, and
// checked, in the same order at every call.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
