package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// schema is a compiled JSON Schema, restricted to the keywords that tool
// input schemas use in practice: type, properties, required,
// additionalProperties, items, enum, const, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, minLength, maxLength, minItems,
// maxItems, pattern, allOf, anyOf and oneOf; and default, which must be
// valid, and is added for a top-level property a call leaves out (see
// withDefaults). Other keywords (format, $ref, descriptions, …) are
// accepted and not checked.
type schema struct {
	types            []string
	properties       map[string]*schema
	propOrder        []string
	required         []string
	noAdditional     bool
	additional       *schema
	items            *schema
	enum             []string // canonical JSON of each allowed value
	hasConst         bool
	constant         string
	minimum, maximum *float64
	exclMin, exclMax *float64
	minLen, maxLen   *int
	minItems         *int
	maxItems         *int
	pattern          *regexp.Regexp
	allOf            []*schema
	anyOf, oneOf     []*schema
	not              bool // the schema "false": nothing validates
	hasDefault       bool
	defaultValue     any    // decoded with UseNumber
	defaultJSON      []byte // defaultValue as JSON
}

// compileSchema parses a JSON Schema document.
func compileSchema(raw []byte) (*schema, error) {
	doc, err := decodeSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	return compileValue(doc, "schema")
}

// decodeSchema decodes a JSON document as compileValue reads it: numbers
// as json.Number. Like [json.Unmarshal], it refuses data after the value.
func decodeSchema(raw []byte) (any, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return doc, nil
}

func compileValue(doc any, at string) (*schema, error) {
	switch d := doc.(type) {
	case bool:
		if d {
			return &schema{}, nil
		}
		return &schema{not: true}, nil
	case map[string]any:
		return compileObject(d, at)
	}
	return nil, fmt.Errorf("%s: a schema must be an object or a boolean", at)
}

func compileObject(d map[string]any, at string) (*schema, error) {
	s := &schema{}
	for _, compile := range []func(*schema, map[string]any, string) error{
		(*schema).compileType, (*schema).compileMembers, (*schema).compileValues,
		(*schema).compileBounds, (*schema).compilePattern, (*schema).compileCombinations,
	} {
		if err := compile(s, d, at); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// compileType reads "type": a name or a list of names.
func (s *schema) compileType(d map[string]any, at string) error {
	switch t := d["type"].(type) {
	case nil:
	case string:
		s.types = []string{t}
	case []any:
		for _, e := range t {
			name, ok := e.(string)
			if !ok {
				return fmt.Errorf("%s.type: must be a string or an array of strings", at)
			}
			s.types = append(s.types, name)
		}
	default:
		return fmt.Errorf("%s.type: must be a string or an array of strings", at)
	}
	for _, name := range s.types {
		if !slices.Contains(typeNames, name) {
			return fmt.Errorf("%s.type: %q is not a JSON Schema type; use one of %s", at, name, strings.Join(typeNames, ", "))
		}
	}
	return nil
}

// typeNames are the types of JSON Schema.
var typeNames = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

// compileMembers reads what an object's members must be: "properties",
// "required", "additionalProperties", and an array's "items".
func (s *schema) compileMembers(d map[string]any, at string) error {
	var err error
	if p, ok := d["properties"]; ok {
		props, ok := p.(map[string]any)
		if !ok {
			return fmt.Errorf("%s.properties: must be an object", at)
		}
		s.properties = make(map[string]*schema, len(props))
		for name, sub := range props {
			if s.properties[name], err = compileValue(sub, at+".properties."+name); err != nil {
				return err
			}
			s.propOrder = append(s.propOrder, name)
		}
		sort.Strings(s.propOrder)
	}
	if r, ok := d["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			return fmt.Errorf("%s.required: must be an array of strings", at)
		}
		for _, e := range list {
			name, ok := e.(string)
			if !ok {
				return fmt.Errorf("%s.required: must be an array of strings", at)
			}
			s.required = append(s.required, name)
		}
	}
	switch a := d["additionalProperties"].(type) {
	case nil:
	case bool:
		s.noAdditional = !a
	default:
		if s.additional, err = compileValue(a, at+".additionalProperties"); err != nil {
			return err
		}
	}
	if it, ok := d["items"]; ok {
		if s.items, err = compileValue(it, at+".items"); err != nil {
			return err
		}
	}
	return nil
}

// compileValues reads the values named outright: "enum", "const" and
// "default".
func (s *schema) compileValues(d map[string]any, at string) error {
	if e, ok := d["enum"]; ok {
		list, ok := e.([]any)
		if !ok {
			return fmt.Errorf("%s.enum: must be an array", at)
		}
		for _, v := range list {
			s.enum = append(s.enum, canonical(v))
		}
	}
	if c, ok := d["const"]; ok {
		s.hasConst, s.constant = true, canonical(c)
	}
	if v, ok := d["default"]; ok {
		var err error
		if s.defaultJSON, err = json.Marshal(v); err != nil {
			return fmt.Errorf("%s.default: %v", at, err)
		}
		s.hasDefault, s.defaultValue = true, v
	}
	return nil
}

// compileBounds reads the numeric bounds and the bounds on lengths.
func (s *schema) compileBounds(d map[string]any, at string) error {
	for _, kw := range []struct {
		name string
		dst  **float64
	}{{"minimum", &s.minimum}, {"maximum", &s.maximum}, {"exclusiveMinimum", &s.exclMin}, {"exclusiveMaximum", &s.exclMax}} {
		if v, ok := d[kw.name]; ok {
			f, ok := number(v)
			if !ok {
				return fmt.Errorf("%s.%s: must be a number", at, kw.name)
			}
			*kw.dst = &f
		}
	}
	for _, kw := range []struct {
		name string
		dst  **int
	}{{"minLength", &s.minLen}, {"maxLength", &s.maxLen}, {"minItems", &s.minItems}, {"maxItems", &s.maxItems}} {
		if v, ok := d[kw.name]; ok {
			f, ok := number(v)
			if !ok || f < 0 || f != math.Trunc(f) {
				return fmt.Errorf("%s.%s: must be a non-negative integer", at, kw.name)
			}
			n := int(f)
			*kw.dst = &n
		}
	}
	return nil
}

// compilePattern reads "pattern", a regular expression in Go's syntax.
func (s *schema) compilePattern(d map[string]any, at string) error {
	p, ok := d["pattern"]
	if !ok {
		return nil
	}
	str, ok := p.(string)
	if !ok {
		return fmt.Errorf("%s.pattern: must be a string", at)
	}
	var err error
	if s.pattern, err = regexp.Compile(str); err != nil {
		return fmt.Errorf("%s.pattern: %v", at, err)
	}
	return nil
}

// compileCombinations reads "allOf", "anyOf" and "oneOf".
func (s *schema) compileCombinations(d map[string]any, at string) error {
	for _, kw := range []struct {
		name string
		dst  *[]*schema
	}{{"allOf", &s.allOf}, {"anyOf", &s.anyOf}, {"oneOf", &s.oneOf}} {
		v, ok := d[kw.name]
		if !ok {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s.%s: must be an array of schemas", at, kw.name)
		}
		for i, sub := range list {
			c, err := compileValue(sub, fmt.Sprintf("%s.%s[%d]", at, kw.name, i))
			if err != nil {
				return err
			}
			*kw.dst = append(*kw.dst, c)
		}
	}
	return nil
}

// checkDefaults reports a default of a property that its own schema refuses.
func (s *schema) checkDefaults() error {
	for _, name := range s.propOrder {
		p := s.properties[name]
		if !p.hasDefault {
			continue
		}
		var errs []string
		p.validate("properties."+name+".default", p.defaultValue, &errs)
		if len(errs) > 0 {
			return errors.New(strings.Join(errs, "; "))
		}
	}
	return nil
}

// withDefaults returns the JSON object args, whose decoded form is obj,
// with the default of each property that args leaves out added at its end.
// Only the top-level properties are filled in.
func (s *schema) withDefaults(args []byte, obj map[string]any) []byte {
	var add []byte // ,"name":default for each one
	for _, name := range s.propOrder {
		p := s.properties[name]
		if _, given := obj[name]; given || !p.hasDefault {
			continue
		}
		key, _ := json.Marshal(name)
		add = append(append(append(append(add, ','), key...), ':'), p.defaultJSON...)
	}
	if add == nil {
		return args
	}
	if len(obj) == 0 {
		add = add[1:] // no member comes before
	}
	args = bytes.TrimRight(args, " \t\r\n")
	return slices.Concat(args[:len(args)-1], add, []byte("}"))
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// canonical returns a JSON encoding of a decoded value that is equal for
// equal values: object keys sorted (encoding/json sorts map keys), numbers
// normalised.
func canonical(v any) string {
	b, _ := json.Marshal(normalizeNumbers(v))
	return string(b)
}

func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeNumbers(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeNumbers(e)
		}
		return out
	}
	return v
}

// validate checks v, decoded with UseNumber, and appends a message for
// each violation to errs, naming the place with path.
func (s *schema) validate(path string, v any, errs *[]string) {
	if s.not {
		*errs = append(*errs, fmt.Sprintf("%s: no value is allowed here", path))
		return
	}
	if len(s.types) > 0 && !s.typeMatches(v) {
		*errs = append(*errs, fmt.Sprintf("%s: expected %s, got %s", path, strings.Join(s.types, " or "), typeName(v)))
		return
	}
	if s.enum != nil {
		c := canonical(v)
		found := false
		for _, e := range s.enum {
			if e == c {
				found = true
				break
			}
		}
		if !found {
			*errs = append(*errs, fmt.Sprintf("%s: %s is not one of %s", path, c, strings.Join(s.enum, ", ")))
		}
	}
	if s.hasConst && canonical(v) != s.constant {
		*errs = append(*errs, fmt.Sprintf("%s: must be %s", path, s.constant))
	}
	switch x := v.(type) {
	case map[string]any:
		s.validateObject(path, x, errs)
	case []any:
		s.validateArray(path, x, errs)
	case string:
		n := utf8.RuneCountInString(x)
		if s.minLen != nil && n < *s.minLen {
			*errs = append(*errs, fmt.Sprintf("%s: shorter than %d characters", path, *s.minLen))
		}
		if s.maxLen != nil && n > *s.maxLen {
			*errs = append(*errs, fmt.Sprintf("%s: longer than %d characters", path, *s.maxLen))
		}
		if s.pattern != nil && !s.pattern.MatchString(x) {
			*errs = append(*errs, fmt.Sprintf("%s: does not match pattern %s", path, s.pattern))
		}
	case json.Number:
		s.validateNumber(path, x, errs)
	}
	for _, sub := range s.allOf {
		sub.validate(path, v, errs)
	}
	if len(s.anyOf) > 0 && s.matching(s.anyOf, v) == 0 {
		*errs = append(*errs, fmt.Sprintf("%s: matches none of the allowed forms (anyOf)", path))
	}
	if len(s.oneOf) > 0 {
		if n := s.matching(s.oneOf, v); n != 1 {
			*errs = append(*errs, fmt.Sprintf("%s: matches %d of the forms in oneOf, want exactly 1", path, n))
		}
	}
}

func (s *schema) validateObject(path string, x map[string]any, errs *[]string) {
	for _, name := range s.required {
		if _, ok := x[name]; !ok {
			*errs = append(*errs, fmt.Sprintf("%s: missing required property %q", path, name))
		}
	}
	for _, name := range s.propOrder {
		if val, ok := x[name]; ok {
			s.properties[name].validate(path+"."+name, val, errs)
		}
	}
	if !s.noAdditional && s.additional == nil {
		return
	}
	extra := make([]string, 0)
	for name := range x {
		if _, ok := s.properties[name]; !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		if s.noAdditional {
			*errs = append(*errs, fmt.Sprintf("%s: unknown property %q", path, name))
		} else {
			s.additional.validate(path+"."+name, x[name], errs)
		}
	}
}

func (s *schema) validateArray(path string, x []any, errs *[]string) {
	if s.minItems != nil && len(x) < *s.minItems {
		*errs = append(*errs, fmt.Sprintf("%s: fewer than %d items", path, *s.minItems))
	}
	if s.maxItems != nil && len(x) > *s.maxItems {
		*errs = append(*errs, fmt.Sprintf("%s: more than %d items", path, *s.maxItems))
	}
	if s.items != nil {
		for i, e := range x {
			s.items.validate(path+"["+strconv.Itoa(i)+"]", e, errs)
		}
	}
}

func (s *schema) validateNumber(path string, x json.Number, errs *[]string) {
	f, err := x.Float64()
	if err != nil {
		return
	}
	if s.minimum != nil && f < *s.minimum {
		*errs = append(*errs, fmt.Sprintf("%s: %s is less than the minimum %v", path, x, *s.minimum))
	}
	if s.maximum != nil && f > *s.maximum {
		*errs = append(*errs, fmt.Sprintf("%s: %s is greater than the maximum %v", path, x, *s.maximum))
	}
	if s.exclMin != nil && f <= *s.exclMin {
		*errs = append(*errs, fmt.Sprintf("%s: %s must be greater than %v", path, x, *s.exclMin))
	}
	if s.exclMax != nil && f >= *s.exclMax {
		*errs = append(*errs, fmt.Sprintf("%s: %s must be less than %v", path, x, *s.exclMax))
	}
}

func (s *schema) matching(list []*schema, v any) int {
	n := 0
	for _, sub := range list {
		var e []string
		sub.validate("", v, &e)
		if len(e) == 0 {
			n++
		}
	}
	return n
}

func (s *schema) typeMatches(v any) bool {
	for _, t := range s.types {
		if t == typeName(v) || (t == "number" && typeName(v) == "integer") {
			return true
		}
	}
	return false
}

// typeName returns the JSON Schema type of a decoded value. A number with
// no fractional part is an integer, as JSON Schema defines it (1.0 is one).
func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
