package probe

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/mcpship/mcpship/mcp"

	"github.com/mcpship/mcpship/internal/register"
)

// width is where tools wraps descriptions.
const width = 80

// printTools writes the tools of the server that init describes, for
// people.
func printTools(w io.Writer, init *mcp.InitializeResult, tools []mcp.Tool) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s (protocol %s): %s\n", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion, register.Plural(len(tools), "tool"))
	if init.Capabilities.Tools == nil {
		b.WriteString("(it does not offer tools: its capabilities have no \"tools\")\n")
	}
	if init.Instructions != "" {
		writeWrapped(&b, init.Instructions, "")
	}
	for _, t := range tools {
		b.WriteString("\n" + t.Name)
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		if title != "" {
			b.WriteString(": " + title)
		}
		b.WriteString("\n")
		if t.Description != title {
			writeWrapped(&b, t.Description, "    ")
		}
		writeInputs(&b, t.InputSchema)
		if out := outputs(t.OutputSchema); out != "" {
			b.WriteString("    output: " + out + "\n")
		}
		if h := hints(t.Annotations); h != "" {
			b.WriteString("    hints: " + h + "\n")
		}
	}
	_, err := io.WriteString(w, printable(b.String()))
	return err
}

// printable returns s with each control character but the newline
// written as its Go escape (\x1b), so that what a server says of itself
// cannot move the cursor or recolour the terminal.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r != '\n' && unicode.IsControl(r) {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// schema is the part of an input's JSON Schema that tools shows.
type schema struct {
	Type        json.RawMessage   `json:"type"` // a name or a list of names
	Description string            `json:"description"`
	Default     json.RawMessage   `json:"default"`
	Enum        []json.RawMessage `json:"enum"`
	Const       json.RawMessage   `json:"const"`
	Items       *schema           `json:"items"`
	AnyOf       []*schema         `json:"anyOf"`
	OneOf       []*schema         `json:"oneOf"`
	Properties  json.RawMessage   `json:"properties"`
	Required    []string          `json:"required"`
}

// writeInputs writes a line for each top-level property of the input
// schema raw, in the server's order: its name, type, whether it is
// required, its default and its description.
func writeInputs(w *bytes.Buffer, raw json.RawMessage) {
	var s schema
	if json.Unmarshal(raw, &s) != nil {
		fmt.Fprintf(w, "    inputs: %s\n", raw)
		return
	}
	names, props := members(s.Properties)
	if len(names) == 0 {
		w.WriteString("    (no inputs)\n")
		return
	}
	var rows bytes.Buffer
	tw := tabwriter.NewWriter(&rows, 0, 0, 2, ' ', 0)
	for _, name := range names {
		var p schema
		if json.Unmarshal(props[name], &p) != nil {
			fmt.Fprintf(tw, "    %s\t%s\t\n", name, props[name])
			continue
		}
		kind := p.kind()
		for _, r := range s.Required {
			if r == name {
				kind += ", required"
			}
		}
		if len(p.Default) > 0 {
			kind += ", default " + compact(p.Default)
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", name, kind, strings.Join(strings.Fields(p.Description), " "))
	}
	tw.Flush()
	for _, line := range strings.SplitAfter(rows.String(), "\n") {
		w.WriteString(strings.TrimRight(line, " \n"))
		if strings.HasSuffix(line, "\n") {
			w.WriteString("\n")
		}
	}
}

// outputs describes an output schema by its top-level properties and
// their types, "" when there is none.
func outputs(raw json.RawMessage) string {
	var s schema
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	names, props := members(s.Properties)
	if len(names) == 0 {
		return s.kind()
	}
	for i, name := range names {
		var p schema
		kind := "any"
		if json.Unmarshal(props[name], &p) == nil {
			kind = p.kind()
		}
		names[i] = name + " " + kind
	}
	return strings.Join(names, ", ")
}

// kind names the values s allows: a type ("array of string"), the values
// of an enum or a const, or the kinds of its anyOf or oneOf.
func (s *schema) kind() string {
	if s == nil {
		return "any"
	}
	var kinds []string
	switch {
	case len(s.Enum) > 0:
		for _, v := range s.Enum {
			kinds = append(kinds, compact(v))
		}
	case len(s.Const) > 0:
		kinds = append(kinds, compact(s.Const))
	case len(s.AnyOf) > 0 || len(s.OneOf) > 0:
		for _, a := range append(s.AnyOf, s.OneOf...) {
			kinds = append(kinds, a.kind())
		}
	default:
		var one string
		if json.Unmarshal(s.Type, &one) == nil {
			kinds = []string{one}
		} else if json.Unmarshal(s.Type, &kinds) != nil || len(kinds) == 0 {
			kinds = []string{"any"}
		}
		for i, k := range kinds {
			if k == "array" && s.Items != nil {
				kinds[i] = "array of " + s.Items.kind()
			}
		}
	}
	return strings.Join(kinds, " | ")
}

// members returns the names of the JSON object raw's members in order, and
// their values.
func members(raw json.RawMessage) ([]string, map[string]json.RawMessage) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.Token() // {
	var names []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if d.Decode(&v) != nil {
			break
		}
		if name := k.(string); m[name] != nil && !contains(names, name) {
			names = append(names, name)
		}
	}
	return names, m
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// hints describes the hints a tool's annotations give explicitly.
func hints(a *mcp.ToolAnnotations) string {
	if a == nil {
		return ""
	}
	var h []string
	say := func(v *bool, yes, no string) {
		switch {
		case v == nil:
		case *v:
			h = append(h, yes)
		default:
			h = append(h, no)
		}
	}
	say(a.ReadOnlyHint, "read-only", "may write")
	say(a.DestructiveHint, "destructive", "not destructive")
	say(a.IdempotentHint, "idempotent", "not idempotent")
	say(a.OpenWorldHint, "open world", "closed world")
	return strings.Join(h, ", ")
}

// writeWrapped writes text with each line indented and wrapped at width,
// keeping its line breaks; nothing when text is empty.
func writeWrapped(w *bytes.Buffer, text, indent string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		n := 0
		for _, word := range strings.Fields(line) {
			switch {
			case n == 0:
				w.WriteString(indent)
			case len(indent)+n+1+len(word) > width:
				w.WriteString("\n" + indent)
				n = 0
			default:
				w.WriteString(" ")
				n++
			}
			w.WriteString(word)
			n += len(word)
		}
		w.WriteString("\n")
	}
}

// toolResult is what call shows of a tools/call result; structuredContent is
// kept as it was sent, so that numbers keep their digits.
type toolResult struct {
	Content           []mcp.Content   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// printResult writes a call's result for people: each content block, text
// as it is and others as one line that says what they are, then the
// structuredContent as indented JSON. A text block that is only the JSON
// of the structuredContent, the copy for clients that read only text, is
// left out.
func printResult(w io.Writer, r *toolResult) error {
	var b bytes.Buffer
	structured := len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null"
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			if structured && sameJSON(c.Text, r.StructuredContent) {
				continue
			}
			b.WriteString(c.Text)
			if !strings.HasSuffix(c.Text, "\n") {
				b.WriteString("\n")
			}
		case "image", "audio":
			fmt.Fprintf(&b, "[%s %s, %s]\n", c.Type, c.MimeType, size(c.Data))
		case "resource_link":
			fmt.Fprintf(&b, "[resource link %s: %s]\n", c.Name, c.URI)
		case "resource":
			if c.Resource == nil {
				b.WriteString("[resource]\n")
				continue
			}
			fmt.Fprintf(&b, "[resource %s %s", c.Resource.URI, c.Resource.MimeType)
			if c.Resource.Text == "" {
				fmt.Fprintf(&b, ", %s]\n", size(c.Resource.Blob))
				continue
			}
			b.WriteString("]\n" + c.Resource.Text)
			if !strings.HasSuffix(c.Resource.Text, "\n") {
				b.WriteString("\n")
			}
		default:
			fmt.Fprintf(&b, "[%s content]\n", c.Type)
		}
	}
	if structured {
		if err := json.Indent(&b, r.StructuredContent, "", "  "); err != nil {
			return err
		}
		b.WriteString("\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// sameJSON says whether text is a JSON text of the same value as raw.
func sameJSON(text string, raw json.RawMessage) bool {
	var a, b any
	da := json.NewDecoder(strings.NewReader(text))
	da.UseNumber()
	db := json.NewDecoder(bytes.NewReader(raw))
	db.UseNumber()
	if da.Decode(&a) != nil || da.More() || db.Decode(&b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// size says how many bytes the base64 data holds.
func size(data string) string {
	n, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return fmt.Sprintf("%d characters of invalid base64", len(data))
	}
	return register.Plural(len(n), "byte")
}
