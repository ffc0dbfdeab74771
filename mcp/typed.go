package mcp

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// ToolHandlerFor runs one call of a tool registered with [AddTool]. It
// receives the arguments decoded into an In, and returns a result, an
// output and an error.
//
// The output becomes the result's StructuredContent (see [AddTool]); the
// result may be nil, and then carries only the output (with its JSON as
// text, for clients that read only text). The error is treated as a
// [ToolHandler]'s is: an [*Error] fails the call as a protocol error, any
// other error becomes a result with IsError set, for the model to read.
type ToolHandlerFor[In, Out any] func(ctx context.Context, req *CallRequest, in In) (*CallToolResult, Out, error)

// AddTool registers a tool on s whose handler receives its arguments as
// an In and returns its output as an Out, as [Server.AddTool] does for an
// untyped [ToolHandler].
//
// When t.InputSchema is empty, it is derived from In, which must be a
// struct, a map with string keys, or a pointer to one of them; or an
// interface type such as any, for an object of any properties. When
// t.OutputSchema is empty and Out is not an interface type, it is derived
// from Out in the same way, and every result carries the output as
// StructuredContent (for a nil pointer or map, the zero value or an empty
// object). When Out is an
// interface type, a non-nil output is carried and no schema is announced.
//
// A schema is derived from a Go type by the rules encoding/json follows
// to encode it: the property names are those of the json tags, fields
// tagged "-" and unexported fields are left out, and an embedded struct's
// fields are its parent's. A property is required unless its tag says
// omitempty or omitzero. A `jsonschema:"..."` tag is the property's
// description. Go types map to JSON Schema types as encoding/json encodes
// them: bool to boolean, integers to integer (unsigned ones with minimum
// 0), floats to number, strings, []byte and types that implement
// [encoding.TextMarshaler] (such as [time.Time]) to string, other slices
// and arrays to array, structs and maps to object, and types that
// implement [json.Marshaler] and interfaces to any value. In an output
// schema, a pointer, slice or map that is not omitempty may also be null,
// as encoding/json writes a nil one.
//
// The schemas are derived once, here; a call decodes its arguments with
// [json.Unmarshal]. AddTool fails as [Server.AddTool] does, and when a
// schema cannot be derived (a channel, a function, a recursive type).
func AddTool[In, Out any](s *Server, t Tool, h ToolHandlerFor[In, Out]) error {
	if h == nil {
		return fmt.Errorf("mcp: tool %q: nil handler", t.Name)
	}
	if len(t.InputSchema) == 0 {
		sc, err := objectSchemaFor(reflect.TypeFor[In](), false)
		if err != nil {
			return fmt.Errorf("mcp: tool %q: input schema of %v: %v", t.Name, reflect.TypeFor[In](), err)
		}
		t.InputSchema = sc
	}
	outType := reflect.TypeFor[Out]()
	structured := outType.Kind() != reflect.Interface
	if len(t.OutputSchema) == 0 && structured {
		sc, err := objectSchemaFor(outType, true)
		if err != nil {
			return fmt.Errorf("mcp: tool %q: output schema of %v: %v", t.Name, outType, err)
		}
		t.OutputSchema = sc
	}
	return s.AddTool(t, func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		var in In
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return nil, fmt.Errorf("invalid arguments for tool %s: %v", req.Name, err)
		}
		res, out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = &CallToolResult{}
		}
		if res.StructuredContent == nil && !res.IsError {
			v := reflect.ValueOf(&out).Elem()
			switch {
			case !structured:
				if !v.IsNil() {
					res.StructuredContent = out
				}
			case v.Kind() == reflect.Pointer && v.IsNil():
				res.StructuredContent = reflect.New(outType.Elem()).Interface()
			case v.Kind() == reflect.Map && v.IsNil():
				res.StructuredContent = struct{}{}
			default:
				res.StructuredContent = out
			}
		}
		return res, nil
	})
}

// objectSchemaFor returns the JSON Schema of t, which must describe an
// object (never null: AddTool sends an empty object for a nil output).
// output asks for the schema of what encoding/json writes, rather than of
// what a client should send.
func objectSchemaFor(t reflect.Type, output bool) (json.RawMessage, error) {
	if t.Kind() == reflect.Interface {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	d := deriver{output: output, seen: map[reflect.Type]bool{}}
	sc, err := d.schema(t)
	if err != nil {
		return nil, err
	}
	if sc["type"] = dropNull(sc["type"]); sc["type"] != "object" {
		return nil, errors.New("want a struct, a map with string keys, or a pointer to one, for a JSON object")
	}
	return json.Marshal(sc)
}

var (
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
)

// deriver derives JSON Schemas from Go types.
type deriver struct {
	output bool
	seen   map[reflect.Type]bool // structs being derived, to refuse recursion
}

func (d *deriver) schema(t reflect.Type) (map[string]any, error) {
	nullable := false
	for t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	switch {
	case t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler):
		return d.typed("string", nullable), nil
	case t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler):
		return map[string]any{}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return d.typed("boolean", nullable), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return d.typed("integer", nullable), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s := d.typed("integer", nullable)
		s["minimum"] = 0
		return s, nil
	case reflect.Float32, reflect.Float64:
		return d.typed("number", nullable), nil
	case reflect.String:
		return d.typed("string", nullable), nil
	case reflect.Interface:
		return map[string]any{}, nil
	case reflect.Slice, reflect.Array:
		return d.arraySchema(t, nullable)
	case reflect.Map:
		return d.mapSchema(t)
	case reflect.Struct:
		return d.structSchema(t, nullable)
	}
	return nil, fmt.Errorf("%v: JSON has no %v", t, t.Kind())
}

// arraySchema is the schema of a slice or array type: []byte is base64
// text, as encoding/json writes it.
func (d *deriver) arraySchema(t reflect.Type, nullable bool) (map[string]any, error) {
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
		s := d.typed("string", true)
		s["contentEncoding"] = "base64"
		return s, nil
	}
	items, err := d.schema(t.Elem())
	if err != nil {
		return nil, err
	}
	s := d.typed("array", nullable || t.Kind() == reflect.Slice)
	s["items"] = items
	if t.Kind() == reflect.Array {
		s["minItems"], s["maxItems"] = t.Len(), t.Len()
	}
	return s, nil
}

// mapSchema is the schema of a map type with string keys.
func (d *deriver) mapSchema(t reflect.Type) (map[string]any, error) {
	if t.Key().Kind() != reflect.String {
		return nil, fmt.Errorf("%v: a map's keys must be strings to be a JSON object", t)
	}
	s := d.typed("object", true)
	values, err := d.schema(t.Elem())
	if err != nil {
		return nil, err
	}
	if len(values) > 0 {
		s["additionalProperties"] = values
	}
	return s, nil
}

// structSchema is the schema of a struct type, its fields as properties.
func (d *deriver) structSchema(t reflect.Type, nullable bool) (map[string]any, error) {
	if d.seen[t] {
		return nil, fmt.Errorf("%v refers to itself, which a schema here cannot describe; set the schema by hand", t)
	}
	d.seen[t] = true
	defer delete(d.seen, t)
	fields, err := d.fields(t)
	if err != nil {
		return nil, err
	}
	props := map[string]any{}
	var required []string
	for _, p := range fields {
		props[p.name] = p.schema
		if p.required {
			required = append(required, p.name)
		}
	}
	s := d.typed("object", nullable)
	s["properties"] = props
	if len(required) > 0 {
		s["required"] = required
	}
	return s, nil
}

// typed returns {"type": name}, or {"type": [name, "null"]} for a value
// that encoding/json may write as null in an output.
func (d *deriver) typed(name string, nullable bool) map[string]any {
	if nullable && d.output {
		return map[string]any{"type": []string{name, "null"}}
	}
	return map[string]any{"type": name}
}

// property is a struct field as a property of an object.
type property struct {
	name     string
	schema   map[string]any
	required bool
}

// fields returns the properties of struct t in field order, as
// encoding/json encodes them. A field of t hides one of the same name
// promoted from an embedded struct.
func (d *deriver) fields(t reflect.Type) ([]property, error) {
	var props, promoted []property
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				inner, err := d.fields(ft)
				if err != nil {
					return nil, err
				}
				promoted = append(promoted, inner...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		optional := false
		for _, o := range strings.Split(opts, ",") {
			optional = optional || o == "omitempty" || o == "omitzero"
		}
		var ps map[string]any
		if slices.Contains(strings.Split(opts, ","), "string") {
			ps = map[string]any{"type": "string"}
		} else {
			var err error
			if ps, err = d.schema(f.Type); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			if optional && d.output {
				ps["type"] = dropNull(ps["type"])
			}
		}
		if desc := f.Tag.Get("jsonschema"); desc != "" {
			ps["description"] = desc
		}
		props = append(props, property{name, ps, !optional})
	}
	for _, p := range promoted {
		if !slices.ContainsFunc(props, func(q property) bool { return q.name == p.name }) {
			props = append(props, p)
		}
	}
	return props, nil
}

// dropNull removes "null" from a type list: omitempty leaves a nil value
// out rather than writing null.
func dropNull(t any) any {
	if list, ok := t.([]string); ok && len(list) == 2 && list[1] == "null" {
		return list[0]
	}
	return t
}
