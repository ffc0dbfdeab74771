package mcp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// Protocol revisions this server speaks, newest first. The legacy ones
// begin with initialize; the modern one carries its version in every
// request's _meta.
var (
	legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	modernVersions = []string{"2026-07-28"}
	allVersions    = append(slices.Clone(modernVersions), legacyVersions...)
)

// LatestLegacyVersion is the revision an initialize request gets when it
// asks for one this server does not know.
const LatestLegacyVersion = "2025-11-25"

// removedMethods are the legacy methods that revision 2026-07-28 has no
// more, besides initialize and ping: a client of that revision asks for
// log messages in _meta, and has no session to keep a subscription in.
// Such a request is answered method not found, never forwarded.
var removedMethods = map[string]bool{"logging/setLevel": true, "resources/subscribe": true, "resources/unsubscribe": true}

// Keys of the per-request _meta object of revision 2026-07-28.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// requestMeta is the _meta member of request params.
type requestMeta struct {
	ProtocolVersion    string          `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	LogLevel           *LogLevel       `json:"io.modelcontextprotocol/logLevel"`
	ProgressToken      json.RawMessage `json:"progressToken"`
}

// readMeta returns the _meta of params, or nil when it has none.
func readMeta(params json.RawMessage) (*requestMeta, error) {
	if !bytes.Contains(params, []byte(`"_meta"`)) {
		return nil, nil
	}
	var p struct {
		Meta *requestMeta `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	return p.Meta, nil
}

// request dispatches a message with an id.
func (ss *session) request(id ID, method string, params json.RawMessage) {
	meta, err := readMeta(params)
	if err != nil {
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: %v", err))
		return
	}
	if meta != nil && meta.ProtocolVersion != "" && !slices.Contains(legacyVersions, meta.ProtocolVersion) {
		ss.modernRequest(id, method, params, meta)
		return
	}
	if ss.stateless {
		switch method {
		case "server/discover", "tools/list", "tools/call", "resources/list", "resources/read", "resources/templates/list", "subscriptions/listen":
			ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: %s needs _meta with %q and %q (revision 2026-07-28); a legacy client sends initialize first",
				method, metaProtocolVersion, metaClientCapabilities))
		default:
			ss.reply(id, nil, errorf(CodeMethodNotFound, "method not found: %s (revision 2026-07-28)", method))
		}
		return
	}
	switch method {
	case "initialize":
		ss.initialize(id, params)
		return
	case "ping":
		ss.reply(id, struct{}{}, nil)
		return
	case "server/discover":
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: server/discover needs _meta with %q and %q (revision 2026-07-28); legacy clients send initialize",
			metaProtocolVersion, metaClientCapabilities))
		return
	case "tools/list", "tools/call", "logging/setLevel":
	default:
		if ss.forwarded(method) || isResourceMethod(method) && ss.srv.opts.Resources != nil {
			break
		}
		ss.reply(id, nil, errorf(CodeMethodNotFound, "method not found: %s", method))
		return
	}
	if !ss.initialized {
		ss.reply(id, nil, errorf(CodeInvalidRequest, "invalid request: %s before initialize; send initialize first, or (revision 2026-07-28) carry _meta[%q]",
			method, metaProtocolVersion))
		return
	}
	if ss.forwarded(method) {
		ss.forward(id, method, params, nil)
		return
	}
	switch method {
	case "tools/list":
		ss.listTools(id, params, nil)
	case "tools/call":
		ss.callTool(id, params, nil)
	case "resources/list", "resources/read", "resources/templates/list":
		ss.resources(id, method, params, nil)
	case "logging/setLevel":
		var p struct {
			Level LogLevel `json:"level"`
		}
		if err := json.Unmarshal(params, &p); err != nil || p.Level.rank() < 0 {
			ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: level must be one of %s", levelNames))
			return
		}
		ss.logLevel = p.Level.rank()
		ss.reply(id, struct{}{}, nil)
	}
}

// modernRequest serves a request of revision 2026-07-28 or later:
// stateless, with the protocol version and client capabilities in _meta.
func (ss *session) modernRequest(id ID, method string, params json.RawMessage, meta *requestMeta) {
	if !slices.Contains(modernVersions, meta.ProtocolVersion) {
		ss.reply(id, nil, &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
			Data: map[string]any{"supported": allVersions, "requested": meta.ProtocolVersion}})
		return
	}
	if len(meta.ClientCapabilities) == 0 || meta.ClientCapabilities[0] != '{' {
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: _meta[%q] is required and must be an object", metaClientCapabilities))
		return
	}
	if meta.LogLevel != nil && meta.LogLevel.rank() < 0 {
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: _meta[%q] must be one of %s", metaLogLevel, levelNames))
		return
	}
	if method == "subscriptions/listen" {
		ss.listen(id, params, meta)
		return
	}
	if ss.forwarded(method) && !removedMethods[method] {
		ss.forward(id, method, params, meta)
		return
	}
	switch method {
	case "server/discover":
		ss.reply(id, &discoverResult{
			ResultType:        "complete",
			SupportedVersions: allVersions,
			Capabilities:      ss.announced(),
			Instructions:      ss.srv.opts.Instructions,
			TTLms:             0,
			CacheScope:        "public",
			Meta:              ss.resultMeta(),
		}, nil)
	case "tools/list":
		ss.listTools(id, params, meta)
	case "tools/call":
		ss.callTool(id, params, meta)
	default:
		if isResourceMethod(method) && ss.srv.opts.Resources != nil {
			ss.resources(id, method, params, meta)
			return
		}
		ss.reply(id, nil, errorf(CodeMethodNotFound, "method not found: %s (revision %s)", method, meta.ProtocolVersion))
	}
}

func (ss *session) resultMeta() map[string]any {
	return map[string]any{metaServerInfo: ss.srv.info}
}

// ServerCapabilities are the features a server announces.
type ServerCapabilities struct {
	Tools     *ToolsCapability     `json:"tools,omitempty"`
	Logging   *struct{}            `json:"logging,omitempty"`
	Resources *ResourcesCapability `json:"resources,omitempty"`
}

// ToolsCapability announces tools; ListChanged, that the server notifies
// the client when its list changes.
type ToolsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// InitializeResult is the server's answer to initialize, as
// [Client.Initialize] returns it.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// initializeResult is InitializeResult as the server sends it, with the
// capabilities of a Forwarder when it has one.
type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    any            `json:"capabilities"`
	ServerInfo      Implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions,omitempty"`
}

type discoverResult struct {
	ResultType        string         `json:"resultType"`
	SupportedVersions []string       `json:"supportedVersions"`
	Capabilities      any            `json:"capabilities"`
	Instructions      string         `json:"instructions,omitempty"`
	TTLms             int            `json:"ttlMs"`
	CacheScope        string         `json:"cacheScope"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

// initialize answers the legacy handshake. A version this server knows is
// echoed; any other gets LatestLegacyVersion, as the lifecycle rules ask.
// Params that are not an InitializeRequest's are refused and leave the
// session uninitialized, so that a valid initialize may follow.
func (ss *session) initialize(id ID, params json.RawMessage) {
	if ss.initialized {
		ss.reply(id, nil, errorf(CodeInvalidRequest, "invalid request: the session is already initialized"))
		return
	}
	if msg := checkInitializeParams(params); msg != "" {
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: %s", msg))
		return
	}
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: %v", err))
		return
	}
	version := LatestLegacyVersion
	if slices.Contains(legacyVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	ss.version = version
	ss.clientCaps = p.Capabilities
	ss.reply(id, &initializeResult{
		ProtocolVersion: version,
		Capabilities:    ss.announced(),
		ServerInfo:      ss.srv.info,
		Instructions:    ss.srv.opts.Instructions,
	}, nil)
	ss.initialized = true
}

// initializeSchema is the shape of InitializeRequest's params that every
// revision requires: clientInfo is an Implementation.
var initializeSchema = sync.OnceValue(func() *schema {
	s, err := compileSchema([]byte(`{"type":"object","required":["protocolVersion","capabilities","clientInfo"],"properties":{
		"protocolVersion":{"type":"string"},
		"capabilities":{"type":"object"},
		"clientInfo":{"type":"object","required":["name","version"],"properties":{
			"name":{"type":"string"},"version":{"type":"string"},"title":{"type":"string"}}}}}`))
	if err != nil {
		panic(err)
	}
	return s
})

// checkInitializeParams returns what is wrong with the params of an
// initialize request, naming each member, or "" when nothing is.
func checkInitializeParams(params json.RawMessage) string {
	if len(params) == 0 || string(params) == "null" {
		return `initialize needs params with "protocolVersion", "capabilities" and "clientInfo" (the client's "name" and "version")`
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err.Error()
	}
	var errs []string
	initializeSchema().validate("params", v, &errs)
	return strings.Join(errs, "; ")
}

type listToolsResult struct {
	ResultType string          `json:"resultType,omitempty"`
	Tools      json.RawMessage `json:"tools"`
	NextCursor string          `json:"nextCursor,omitempty"`
	TTLms      *int            `json:"ttlMs,omitempty"`
	CacheScope string          `json:"cacheScope,omitempty"`
	Meta       map[string]any  `json:"_meta,omitempty"`
}

// listTools answers tools/list; meta is nil for a legacy request.
func (ss *session) listTools(id ID, params json.RawMessage, meta *requestMeta) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: %v", err))
			return
		}
	}
	cursor := ""
	if p.Cursor != nil {
		cursor = *p.Cursor
		if cursor == "" {
			ss.reply(id, nil, errorf(CodeInvalidParams, `invalid cursor "": omit the cursor to list from the start`))
			return
		}
	}
	tools, next, err := ss.srv.listPage(cursor)
	if err != nil {
		ss.reply(id, nil, asError(err))
		return
	}
	res := &listToolsResult{Tools: tools, NextCursor: next}
	if meta != nil {
		ttl := 0
		res.ResultType, res.TTLms, res.CacheScope, res.Meta = "complete", &ttl, "public", ss.resultMeta()
	}
	ss.reply(id, res, nil)
}

// asError converts err to a JSON-RPC error, keeping the code of an *Error.
func asError(err error) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	return errorf(CodeInternalError, "internal error: %v", err)
}
