package manifest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// part is a piece of a command element: literal text, or a placeholder.
type part struct {
	text  string // literal text, when input is ""
	input string // the input a placeholder names
}

// elem is one element of a tool's command.
type elem struct {
	parts []part
	sep   bool // the literal "--": later values can never be options
}

// whole reports whether the element is a single placeholder, such as
// "{paths}", and returns the input it names.
func (e elem) whole() (string, bool) {
	if len(e.parts) == 1 && e.parts[0].input != "" {
		return e.parts[0].input, true
	}
	return "", false
}

// parseElem splits a command element into literal text and {input}
// placeholders. "{{" and "}}" stand for literal braces.
func parseElem(s string) (elem, error) {
	var e elem
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '{' && strings.HasPrefix(s[i:], "{{"):
			lit.WriteByte('{')
			i++
		case c == '}' && strings.HasPrefix(s[i:], "}}"):
			lit.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return e, fmt.Errorf("%q has a '{' with no closing '}'; write {{ for a literal brace", s)
			}
			name := s[i+1 : i+end]
			if !validInputName(name) {
				return e, fmt.Errorf("%q: {%s} is not a placeholder: name an input, as in {file}; write {{ and }} for literal braces", s, name)
			}
			if lit.Len() > 0 {
				e.parts = append(e.parts, part{text: lit.String()})
				lit.Reset()
			}
			e.parts = append(e.parts, part{input: name})
			i += end
		case c == '}':
			return e, fmt.Errorf("%q has a '}' with no opening '{'; write }} for a literal brace", s)
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 || len(e.parts) == 0 {
		e.parts = append(e.parts, part{text: lit.String()})
	}
	e.sep = s == "--"
	return e, nil
}

// argError is a problem with a call's values; the model sees its text.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

// argv builds the command line for a call's values (defaults applied).
func (t *tool) argv(vals map[string]any) ([]string, error) {
	var argv []string
	afterSep := false
	for i, e := range t.elems {
		if e.sep {
			afterSep = true
		}
		if name, ok := e.whole(); ok {
			v, given := vals[name]
			if !given {
				continue
			}
			in := t.inputs[name]
			var err error
			argv, err = in.emit(argv, v, afterSep, t.program())
			if err != nil {
				return nil, err
			}
			continue
		}
		var b strings.Builder
		complete := true
		for _, p := range e.parts {
			if p.input == "" {
				b.WriteString(p.text)
				continue
			}
			v, given := vals[p.input]
			if !given {
				complete = false
				break
			}
			b.WriteString(scalarString(v))
		}
		if !complete {
			continue // an element naming an input that was not given is left out
		}
		s := b.String()
		if i > 0 && e.parts[0].input != "" && !afterSep && strings.HasPrefix(s, "-") {
			return nil, t.inputs[e.parts[0].input].dashError(s, t.program())
		}
		argv = append(argv, s)
	}
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, &argError{fmt.Sprintf("an argument contains a NUL byte, which no command line can carry: %q", a)}
		}
	}
	return argv, nil
}

// emit appends the arguments for a whole-element placeholder.
func (in *input) emit(argv []string, v any, afterSep bool, program string) ([]string, error) {
	if in.Type == "boolean" {
		switch {
		case strings.HasSuffix(in.Flag, "="):
			return append(argv, in.Flag+scalarString(v)), nil
		case v == true:
			return append(argv, in.Flag), nil
		}
		return argv, nil
	}
	if m, ok := v.(map[string]any); ok && in.Type == "object" { // --arg NAME VALUE per entry
		for _, k := range sortedKeys(m) {
			argv = append(argv, in.Flag, k, scalarString(m[k]))
		}
		return argv, nil
	}
	values := []any{v}
	if list, ok := v.([]any); ok {
		values = list
	}
	for _, x := range values {
		s := scalarString(x)
		switch {
		case in.Flag == "":
			if !afterSep && strings.HasPrefix(s, "-") {
				return nil, in.dashError(s, program)
			}
			argv = append(argv, s)
		case strings.HasSuffix(in.Flag, "="):
			argv = append(argv, in.Flag+s)
		default:
			argv = append(argv, in.Flag, s)
		}
	}
	return argv, nil
}

// dashError refuses a value that would be read as an option. A string
// can be written as a path; a negative number cannot be written any other
// way, so the fix is the manifest's.
func (in *input) dashError(value, program string) error {
	if in.numeric() {
		return &argError{fmt.Sprintf("input %q: the value %s is negative, and %s would read it as an option here, so this tool cannot pass it; "+
			"use a value of 0 or more. (The manifest can fix this: give the input a \"flag\", put \"--\" before it in \"command\", "+
			"or declare \"minimum\": 0 so that the schema says so.)", in.name, value, program)}
	}
	return &argError{fmt.Sprintf("input %q: the value %q starts with '-', so %s would read it as an option; "+
		"this tool does not accept such values here. For a file, pass it as ./%s", in.name, value, program, value)}
}

// numeric reports whether the input's values are numbers.
func (in *input) numeric() bool {
	return in.scalarType() == "integer" || in.scalarType() == "number"
}

// scalarString formats a JSON scalar as a command-line argument. A whole
// number is written as a decimal integer, exactly (1e15 is
// 1000000000000000); any other number as it was written.
func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		if s, ok := integerText(x); ok {
			return s
		}
		return x.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// integerText returns n as a decimal integer when it is a whole number.
// A number with a fraction or an exponent is converted exactly when it is
// at most 400 bytes long with an exponent of at most ±400: enough for any
// number a program takes, and a bound on the digits it can expand to.
func integerText(n json.Number) (string, bool) {
	s := string(n)
	if !isNumber(s) {
		return "", false
	}
	if !strings.ContainsAny(s, ".eE") {
		return s, true // an integer literal, however long
	}
	if _, exp, ok := strings.Cut(strings.ToLower(s), "e"); ok {
		if e, err := strconv.Atoi(exp); err != nil || e < -400 || e > 400 {
			return "", false
		}
	}
	var r big.Rat
	if _, ok := r.SetString(s); len(s) > 400 || !ok || !r.IsInt() {
		return "", false
	}
	return r.Num().String(), true
}

// isNumber reports whether s is a number as JSON writes it.
func isNumber(s string) bool {
	return s != "" && (s[0] == '-' || '0' <= s[0] && s[0] <= '9') &&
		strings.TrimSpace(s) == s && json.Valid([]byte(s))
}
