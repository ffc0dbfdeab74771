package manifest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/mcpship/mcpship/internal/confirm"
	"github.com/mcpship/mcpship/internal/sandbox"
	"github.com/mcpship/mcpship/internal/toolresult"
	"github.com/mcpship/mcpship/mcp"
)

// tool is a checked Tool, ready to run.
type tool struct {
	m      *Manifest
	spec   *Tool
	path   string // JSON path in the manifest, for messages
	elems  []elem
	inputs map[string]*input
	order  []string // input names, sorted

	output       string
	stderr       bool // in every result, not only isError ones
	okCodes      []int
	dir          string
	env          map[string]string
	passEnv      []string
	timeout      time.Duration
	maxOut       int
	budget       int // characters of a result; errorBudget, of an isError one
	errorBudget  int
	summary      *template.Template
	readOnly     bool
	worker       *warm           // nil: every call runs cold
	negative     []slot          // numeric inputs in positional slots, for Warnings
	outputSchema json.RawMessage // nil without one
	icons        []mcp.Icon
	cache        *cacheSpec
	confirm      *confirm.Prompt // nil: calls run unasked
}

// slot is a command element, by JSON path, and the input it starts with.
type slot struct{ path, input string }

// program is the command's first element as written.
func (t *tool) program() string {
	return filepath.Base(t.spec.Command[0])
}

// SetDefault gives inputs a session default, as "mcpship serve --set"
// does: name is INPUT (every tool's input of that name) or TOOL.INPUT.
// value is parsed for the input's type: a string as is, a number or
// boolean from its text, an array from JSON ("[\"a\",\"b\"]") or as a
// single item. It returns how many inputs it set.
func (m *Manifest) SetDefault(name, value string) (int, error) {
	toolName, inName, scoped := strings.Cut(name, ".")
	if !scoped {
		toolName, inName = "", name
	}
	n := 0
	for _, t := range m.tools {
		in, ok := t.inputs[inName]
		if !ok || (scoped && t.spec.Name != toolName) {
			continue
		}
		v, err := in.parse(value)
		if err != nil {
			return n, fmt.Errorf("--set %s=%s: tool %s: %v", name, value, t.spec.Name, err)
		}
		in.def, in.hasDef = v, true
		n++
	}
	return n, nil
}

// property is the JSON Schema of one input, or of an array's items.
type property struct {
	Type        string    `json:"type"`
	Description string    `json:"description,omitempty"`
	Items       *property `json:"items,omitempty"`
	MinItems    int       `json:"minItems,omitempty"`
	// Values is the schema of an object's values.
	Values  *property `json:"additionalProperties,omitempty"`
	Enum    []any     `json:"enum,omitempty"`
	Minimum *float64  `json:"minimum,omitempty"`
	Default any       `json:"default,omitempty"`
}

// objectSchema is the JSON Schema of a tool's arguments. encoding/json
// writes the properties in sorted order, which is input order.
type objectSchema struct {
	Type                 string               `json:"type"`
	Properties           map[string]*property `json:"properties"`
	AdditionalProperties bool                 `json:"additionalProperties"`
	Required             []string             `json:"required,omitempty"`
}

// inputSchema builds the JSON Schema of the tool's arguments, properties
// in input order.
func (t *tool) inputSchema() json.RawMessage {
	s := objectSchema{Type: "object", Properties: make(map[string]*property, len(t.order))}
	for _, name := range t.order {
		in := t.inputs[name]
		p := &property{Type: in.Type, Description: in.Description}
		at := p // where enum and minimum go: the items of an array
		switch in.Type {
		case "array":
			p.Items = &property{Type: in.Items}
			at = p.Items
			if in.Required {
				p.MinItems = 1
			}
		case "object":
			p.Values = &property{Type: in.Items}
			at = p.Values
		}
		at.Enum, at.Minimum = in.Enum, in.Minimum
		if in.hasDef {
			p.Default = in.def
		}
		if in.Required && !in.hasDef {
			s.Required = append(s.Required, name)
		}
		s.Properties[name] = p
	}
	b, err := json.Marshal(s) // built from checked values only
	if err != nil {
		panic(fmt.Sprintf("manifest: schema: %v", err))
	}
	return b
}

// mcpTool is the tool as tools/list shows it.
func (t *tool) mcpTool() mcp.Tool {
	ann := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(t.readOnly),
		DestructiveHint: t.spec.Destructive, IdempotentHint: t.spec.Idempotent, OpenWorldHint: t.spec.OpenWorld}
	if t.spec.Annotations != nil {
		ann.Title = t.spec.Annotations.Title
	}
	tool := mcp.Tool{
		Name:         t.spec.Name,
		Title:        t.spec.Title,
		Description:  t.spec.Description,
		InputSchema:  t.inputSchema(),
		OutputSchema: t.outputSchema,
		Annotations:  ann,
		Icons:        t.icons,
	}
	tool.Meta = toolresult.ToolMeta(t.budget)
	if t.readOnly {
		if tool.Meta == nil {
			tool.Meta = map[string]any{}
		}
		tool.Meta[SandboxMeta] = sandbox.Status(t.openWorld())
	}
	return tool
}

// ServeArgs are the arguments that make mcpship serve the manifest file:
// serve --manifest FILE.
func ServeArgs(file string) []string { return []string{"serve", "--manifest", file} }

// AddTools registers the manifest's tools with srv.
func (m *Manifest) AddTools(srv *mcp.Server) error {
	for _, t := range m.tools {
		if err := srv.AddTool(t.mcpTool(), t.handle); err != nil {
			return fmt.Errorf("%s: %s: %w", m.file, t.path, err)
		}
	}
	return nil
}

// Wait blocks until no command started for the manifest's tools is
// running, and makes later calls fail without running anything; then it
// stops the tools' workers, their process groups included. When a
// server stops, it cancels the calls still running; each then stops its
// process group (SIGTERM, SIGKILL after KillGrace). Call Wait after Serve
// returns so that mcpship does not exit before that is done and leave
// processes behind.
func (m *Manifest) Wait() {
	m.running.closeAndWait()
	m.workers.Close()
}

// ToolNames returns the names of the manifest's tools, in order.
func (m *Manifest) ToolNames() []string {
	names := make([]string, len(m.tools))
	for i, t := range m.tools {
		names[i] = t.spec.Name
	}
	return names
}
