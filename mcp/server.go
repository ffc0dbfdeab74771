package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpship/mcpship/internal/mcpproxy"
)

// Implementation names a program that speaks MCP: serverInfo in the
// initialize result ([NewServer]), clientInfo in the request
// ([ClientOptions.Info]).
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// ServerOptions tune a [Server]. The zero value of each field picks the
// default documented on it.
type ServerOptions struct {
	// Instructions tell the client how to use the server's tools; sent in
	// the initialize and server/discover results when not empty.
	Instructions string
	// MaxMessageBytes is the longest message read; a longer one is
	// answered with an error and skipped. Default [DefaultMaxMessageBytes].
	MaxMessageBytes int
	// MaxConcurrentCalls bounds how many tool calls run at once; more wait
	// their turn without blocking the reading of further messages, until
	// the calls not yet answered hold more than 4 MiB of arguments: then
	// reading waits for one of them to answer. Default 16.
	MaxConcurrentCalls int
	// PageSize is the number of tools per tools/list page. Default 0: all
	// tools on one page, which every client handles.
	PageSize int
	// DrainTimeout bounds how long Serve waits for running calls after the
	// input ends. Default 10s.
	DrainTimeout time.Duration
	// ShutdownTimeout bounds the same wait when Serve's context is
	// cancelled, as on SIGTERM. Default 2s.
	ShutdownTimeout time.Duration
	// Logger receives the server's own diagnostics (never the protocol
	// stream). Default: discard.
	Logger *slog.Logger
	// Resources, when set, is where resources/list and resources/read
	// find the server's resources, and the server announces the
	// resources capability. Default nil: no resources, and no capability.
	Resources ResourceSource

	// proxy, when set (by mcpship's own packages, through
	// internal/mcpproxy), makes the server a proxy for another MCP
	// server: it announces that server's capabilities and passes it
	// every request the method table does not keep local; tools added to
	// the server are not served.
	proxy mcpproxy.Proxy
}

// Server is an MCP server of tools. Register tools with [AddTool] or
// [Server.AddTool], then call [Server.Serve] once per connection. A Server
// is safe for concurrent use.
type Server struct {
	info Implementation
	opts ServerOptions
	log  *slog.Logger

	stateKey   [32]byte // authenticates request states (InputRequired), unless the transport has a key
	streams    streams  // the GET streams of legacy HTTP sessions and the listen streams, for Notify
	maxListens int      // listen streams open at once
	fwdTools   forwardedTools

	mu    sync.RWMutex
	tools []*registeredTool
	index map[string]int // tool name → position in tools
	pages []json.RawMessage
}

type registeredTool struct {
	tool    Tool
	input   *schema
	output  *schema // nil without an output schema
	handler ToolHandler
	headers []headerParam // arguments mirrored into Mcp-Param-* headers
}

// NewServer returns a server that identifies itself as info. opts may be nil.
func NewServer(info Implementation, opts *ServerOptions) *Server {
	s := &Server{info: info, index: map[string]int{}, maxListens: defaultMaxListens}
	rand.Read(s.stateKey[:])
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxConcurrentCalls <= 0 {
		o.MaxConcurrentCalls = 16
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 10 * time.Second
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 2 * time.Second
	}
	s.log = o.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// AddTool registers a tool with a hand-written input schema; [AddTool]
// derives the schemas from Go types instead. It fails when the name is not
// valid (see
// [ValidToolName]) or taken, or the input schema is not a JSON Schema of an
// object, or gives a property a default that the property's own schema
// refuses, or the output schema is not a JSON Schema of an object. Tools
// are listed in the order they were added.
func (s *Server) AddTool(t Tool, h ToolHandler) error {
	if !ValidToolName(t.Name) {
		return fmt.Errorf("mcp: invalid tool name %q: use 1 to 64 letters, digits, '_' or '-'", t.Name)
	}
	if h == nil {
		return fmt.Errorf("mcp: tool %q: nil handler", t.Name)
	}
	in, schemaJSON, err := objectSchema(t.InputSchema)
	if err != nil {
		return fmt.Errorf("mcp: tool %q: inputSchema: %v", t.Name, err)
	}
	t.InputSchema = schemaJSON
	headers, err := headerParams(schemaJSON)
	if err != nil {
		return fmt.Errorf("mcp: tool %q: inputSchema: %v", t.Name, err)
	}
	var out *schema
	if len(t.OutputSchema) > 0 {
		if out, err = outputSchema(t.OutputSchema); err != nil {
			return fmt.Errorf("mcp: tool %q: outputSchema: %v", t.Name, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.index[t.Name]; dup {
		return fmt.Errorf("mcp: tool %q registered twice", t.Name)
	}
	s.index[t.Name] = len(s.tools)
	s.tools = append(s.tools, &registeredTool{tool: t, input: in, output: out, handler: h, headers: headers})
	s.pages = nil // rebuilt on the next tools/list
	return nil
}

// Tools returns the registered tools in listing order.
func (s *Server) Tools() []Tool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Tool, len(s.tools))
	for i, rt := range s.tools {
		out[i] = rt.tool
	}
	return out
}

// objectSchema checks that raw is a JSON Schema of an object and returns it
// compiled, and as JSON with "properties" present (clients such as Codex
// reject an object schema without it).
func objectSchema(raw json.RawMessage) (*schema, json.RawMessage, error) {
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	doc, err := decodeSchema(raw)
	m, ok := doc.(map[string]any)
	if err != nil || !ok {
		return nil, nil, errors.New("must be a JSON object")
	}
	if m["type"] != "object" {
		return nil, nil, errors.New(`must have "type": "object"`)
	}
	if p, ok := m["properties"]; !ok || p == nil {
		m["properties"] = map[string]any{}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, nil, err
		}
		fields["properties"] = json.RawMessage("{}")
		if raw, err = json.Marshal(fields); err != nil {
			return nil, nil, err
		}
	}
	sc, err := compileValue(m, "schema")
	if err != nil {
		return nil, nil, err
	}
	if err := sc.checkDefaults(); err != nil {
		return nil, nil, err
	}
	return sc, raw, nil
}

// outputSchema compiles a tool's output schema, which must describe an
// object: structuredContent is one, and clients refuse a tool whose
// outputSchema does not say "type": "object".
func outputSchema(raw json.RawMessage) (*schema, error) {
	doc, err := decodeSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if m, ok := doc.(map[string]any); !ok || m["type"] != "object" {
		return nil, errors.New(`must describe an object, with "type": "object" (structuredContent is one)`)
	}
	return compileValue(doc, "outputSchema")
}

func (s *Server) tool(name string) (*registeredTool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.index[name]
	if !ok {
		return nil, false
	}
	return s.tools[i], true
}

// listPage returns the JSON array of tools on the page that cursor points
// to, and the cursor of the next page ("" on the last).
func (s *Server) listPage(cursor string) (json.RawMessage, string, error) {
	start := 0
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		s.mu.RLock()
		i, ok := s.index[string(b)]
		s.mu.RUnlock()
		if err != nil || !ok {
			return nil, "", errorf(CodeInvalidParams, "invalid cursor %q: pass the nextCursor of the previous tools/list result", cursor)
		}
		start = i + 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	size := s.opts.PageSize
	if size <= 0 {
		size = max(len(s.tools), 1)
	}
	if s.pages == nil {
		for i := 0; i < len(s.tools) || i == 0; i += size {
			end := min(i+size, len(s.tools))
			list := make([]Tool, 0, end-i)
			for _, rt := range s.tools[i:end] {
				list = append(list, rt.tool)
			}
			b, err := json.Marshal(list)
			if err != nil {
				return nil, "", err
			}
			s.pages = append(s.pages, b)
		}
	}
	if start%size != 0 || start/size >= len(s.pages) {
		return nil, "", errorf(CodeInvalidParams, "invalid cursor %q: the tool list has changed; list again from the start", cursor)
	}
	page := start / size
	next := ""
	if end := start + size; end < len(s.tools) {
		next = base64.RawURLEncoding.EncodeToString([]byte(s.tools[end-1].tool.Name))
	}
	return s.pages[page], next, nil
}

// Serve runs one MCP session over r and w until r ends or ctx is done, then
// lets running calls finish (bounded by [ServerOptions.DrainTimeout], or
// [ServerOptions.ShutdownTimeout] when ctx was cancelled), writes their
// replies and returns. It returns nil at the end of input or cancellation,
// and an error when writing fails, when a write is still blocked at the
// end of that bound (a client that stopped reading: Serve gives up on it
// rather than wait), or when reading fails other than by reaching the end.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	return newSession(s, w).stdio.serve(ctx, r)
}
