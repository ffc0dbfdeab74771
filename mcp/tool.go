package mcp

import (
	"context"
	"encoding/json"
	"fmt"
)

// Tool describes a tool as tools/list shows it.
type Tool struct {
	// Name identifies the tool; it must match ^[a-zA-Z0-9_-]{1,64}$, the
	// rule Claude Desktop, Claude Code and most other clients enforce.
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is a JSON Schema for the arguments. It must describe an
	// object; [Server.AddTool] adds an empty "properties" when it has
	// none, and [AddTool] derives the whole schema when it is empty. Calls
	// are checked against it, and a top-level property's "default" is
	// added to the arguments of a call that leaves the property out.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema, when set, is a JSON Schema of an object that
	// describes the result's [CallToolResult.StructuredContent], which
	// every result that is not an error must then carry. A result whose
	// structuredContent is missing or does not match is sent as an
	// isError result that says what differs, with the content it had.
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	// Icons are images a client may show for the tool (revision
	// 2025-11-25).
	Icons []Icon         `json:"icons,omitempty"`
	Meta  map[string]any `json:"_meta,omitempty"`
}

// Icon is an image for a tool: its URL (https: or a data: URI), and
// optionally its MIME type, its sizes ("48x48", "any") and the theme it is
// drawn for ("light" or "dark").
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// ToolAnnotations are hints about a tool's behaviour. Clients may use them
// to decide whether to ask the user before a call; they are not enforced.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Bool returns a pointer to b, for the hints of [ToolAnnotations].
func Bool(b bool) *bool { return &b }

// Content is one block of a tool result: text, an image or audio clip, a
// link to a resource, or a resource's contents embedded.
type Content struct {
	Type     string `json:"type"`               // "text", "image", "audio", "resource_link" or "resource"
	Text     string `json:"text,omitempty"`     // for "text"
	Data     string `json:"data,omitempty"`     // base64, for "image" and "audio"
	MimeType string `json:"mimeType,omitempty"` // for "image", "audio" and "resource_link"

	// For "resource_link" (revision 2025-06-18 and later; check
	// [CallRequest.ProtocolVersion] before sending one to an older client):
	// a resource the client can fetch, with a name for display.
	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Size        int64  `json:"size,omitempty"` // bytes, when known

	// For "resource": the resource's contents.
	Resource *ResourceContents `json:"resource,omitempty"`
}

// ResourceContents is a resource's contents, embedded in a result or
// read with resources/read: its URI and either its text or its bytes.
type ResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"` // a text resource
	Blob     string `json:"blob,omitempty"` // base64, a binary resource
}

// MarshalJSON implements [json.Marshaler]: contents without Blob are text,
// and carry "text" even when it is empty, as clients require one of the
// two.
func (rc ResourceContents) MarshalJSON() ([]byte, error) {
	type plain ResourceContents
	if rc.Blob != "" {
		return json.Marshal(plain(rc))
	}
	return json.Marshal(struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType,omitempty"`
		Text     string `json:"text"`
	}{rc.URI, rc.MimeType, rc.Text})
}

// CallToolResult is the result of tools/call: what a [ToolHandler]
// returns, and what [Client.CallTool] receives.
type CallToolResult struct {
	Content []Content `json:"content"`
	// StructuredContent is the result as JSON, for tools with an
	// OutputSchema or machine-readable output. The server adds a text copy
	// to Content when Content is empty, as the specification asks.
	StructuredContent any `json:"structuredContent,omitempty"`
	// IsError marks a failure of the tool itself (bad arguments, a failed
	// run), which the model should see, as opposed to a protocol error.
	IsError bool           `json:"isError,omitempty"`
	Meta    map[string]any `json:"_meta,omitempty"`

	input *inputRequired // set by InputRequired
}

// TextResult returns a result holding one text block.
func TextResult(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{{Type: "text", Text: text}}}
}

// ErrorResult returns a result with IsError set, holding one text block
// made as [fmt.Sprintf] does.
func ErrorResult(format string, args ...any) *CallToolResult {
	r := TextResult(fmt.Sprintf(format, args...))
	r.IsError = true
	return r
}

// StructuredResult returns a result carrying v as
// [CallToolResult.StructuredContent], with
// summary as its text block (the JSON of v when summary is empty).
func StructuredResult(v any, summary string) *CallToolResult {
	r := &CallToolResult{StructuredContent: v}
	if summary != "" {
		r.Content = []Content{{Type: "text", Text: summary}}
	}
	return r
}

// ToolHandler runs one call of a tool. The context is cancelled when the
// client cancels the call or the server shuts down.
//
// A returned [*Error] (or an error wrapping one, as [errors.As] finds it)
// is sent to the client as a JSON-RPC error: use it for a request the
// server cannot serve. Any other error becomes a result with IsError set
// and the error's text, which is how MCP reports a tool that failed, for the
// model to read. A panic is recovered and reported as a JSON-RPC error with
// [CodeInternalError]; the session goes on.
type ToolHandler func(ctx context.Context, req *CallRequest) (*CallToolResult, error)

// ValidToolName reports whether name is accepted by [Server.AddTool]: it
// matches ^[a-zA-Z0-9_-]{1,64}$.
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// ObjectSchema returns a JSON Schema for an object with the given
// properties (each a JSON Schema, such as map[string]any{"type": "string"})
// and required property names, for [Tool.InputSchema] or
// [Tool.OutputSchema]. It panics if properties cannot be encoded.
func ObjectSchema(properties map[string]any, required ...string) json.RawMessage {
	if properties == nil {
		properties = map[string]any{}
	}
	s := map[string]any{"type": "object", "properties": properties}
	if len(required) > 0 {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcp.ObjectSchema: %v", err))
	}
	return b
}
