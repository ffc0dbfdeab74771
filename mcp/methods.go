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

// era is a set of protocol eras: the legacy revisions, which begin with
// initialize, and the modern one, whose requests carry their revision in
// _meta.
type era uint8

const (
	legacy era = 1 << iota
	modern
)

// A method is a row of the method table: what the server does with a
// request for it, in which eras, and how the HTTP handler checks it.
type method struct {
	// serve answers the request; meta is nil for a legacy one. nil for a
	// method that only a proxy serves.
	serve func(ss *session, id msgID, params json.RawMessage, meta *requestMeta)
	eras  era // the eras that have the method
	// beforeInit: a legacy client may send it before initialize.
	beforeInit bool
	// local: served here even when the server has a proxy, which serves
	// every other method of the request's era.
	local bool
	// hint: asked by a legacy client, it is answered with what a request
	// of revision 2026-07-28 needs; any other method the legacy era lacks
	// is unknown in it.
	hint bool
	// resources: served only when ServerOptions.Resources is set.
	resources bool
	// cached: revision 2026-07-28 gives its result a ttlMs and a
	// cacheScope, which a proxied result gets when it has none.
	cached bool
	// nameParam is the member of its params that the Mcp-Name header of
	// a 2026-07-28 request must match; "" for none.
	nameParam string
}

// methods is the method table. A method missing from it is served by the
// proxy, if the server has one, in either era (unknownMethod). It is set
// in init, since its rows refer to functions that read it.
var methods map[string]method

func init() {
	methods = map[string]method{
		"initialize":               {serve: (*session).initialize, eras: legacy, beforeInit: true, local: true},
		"ping":                     {serve: (*session).ping, eras: legacy, beforeInit: true, local: true},
		"server/discover":          {serve: (*session).discover, eras: modern, local: true, hint: true},
		"subscriptions/listen":     {serve: (*session).listen, eras: modern, local: true},
		"tools/list":               {serve: (*session).listTools, eras: legacy | modern, cached: true},
		"tools/call":               {serve: (*session).callTool, eras: legacy | modern, nameParam: "name"},
		"logging/setLevel":         {serve: (*session).setLevel, eras: legacy},
		"resources/list":           {serve: resourceMethod("resources/list"), eras: legacy | modern, resources: true, cached: true},
		"resources/read":           {serve: resourceMethod("resources/read"), eras: legacy | modern, resources: true, cached: true, nameParam: "uri"},
		"resources/templates/list": {serve: resourceMethod("resources/templates/list"), eras: legacy | modern, resources: true, cached: true},
		"resources/subscribe":      {eras: legacy},
		"resources/unsubscribe":    {eras: legacy},
		"prompts/list":             {eras: legacy | modern, cached: true},
		"prompts/get":              {eras: legacy | modern, nameParam: "name"},
	}
}

// unknownMethod is the row of a method missing from the table.
var unknownMethod = method{eras: legacy | modern}

func resourceMethod(name string) func(*session, msgID, json.RawMessage, *requestMeta) {
	return func(ss *session, id msgID, params json.RawMessage, meta *requestMeta) {
		ss.resources(id, name, params, meta)
	}
}

// methodOf returns the row of a method, and whether the table has it.
func methodOf(name string) (method, bool) {
	m, ok := methods[name]
	if !ok {
		return unknownMethod, false
	}
	return m, true
}

// proxied reports whether the server's proxy serves m.
func (ss *session) proxied(m method) bool { return ss.srv.opts.proxy != nil && !m.local }

// request dispatches a message with an id, by the method table: a
// request whose _meta names a revision other than a legacy one is of the
// modern era, any other of the legacy era.
func (ss *session) request(id msgID, name string, params json.RawMessage) {
	meta, err := readMeta(params)
	if err != nil {
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: %v", err))
		return
	}
	m, known := methodOf(name)
	switch {
	case meta != nil && meta.ProtocolVersion != "" && !slices.Contains(legacyVersions, meta.ProtocolVersion):
		if ss.checkModern(id, meta) {
			ss.serveIn(modern, id, name, m, params, meta)
		}
	case ss.env.stateless && known && m.eras&modern != 0:
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: %s needs _meta with %q and %q (revision 2026-07-28); a legacy client sends initialize first",
			name, metaProtocolVersion, metaClientCapabilities))
	case ss.env.stateless:
		ss.reply(id, nil, errorf(CodeMethodNotFound, "method not found: %s (revision 2026-07-28)", name))
	case m.eras&legacy == 0 && m.hint:
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: %s needs _meta with %q and %q (revision 2026-07-28); legacy clients send initialize",
			name, metaProtocolVersion, metaClientCapabilities))
	case m.eras&legacy == 0:
		ss.serveIn(legacy, id, name, unknownMethod, params, nil)
	default:
		ss.serveIn(legacy, id, name, m, params, nil)
	}
}

// checkModern checks the _meta of a modern request, answering it when
// the request cannot be served.
func (ss *session) checkModern(id msgID, meta *requestMeta) bool {
	switch {
	case !slices.Contains(modernVersions, meta.ProtocolVersion):
		ss.reply(id, nil, &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
			Data: map[string]any{"supported": allVersions, "requested": meta.ProtocolVersion}})
	case len(meta.ClientCapabilities) == 0 || meta.ClientCapabilities[0] != '{':
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: _meta[%q] is required and must be an object", metaClientCapabilities))
	case meta.LogLevel != nil && meta.LogLevel.rank() < 0:
		ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: _meta[%q] must be one of %s", metaLogLevel, levelNames))
	default:
		return true
	}
	return false
}

// serveIn serves a request of era e whose method has the row m: the
// proxy's, this server's own, or method not found.
func (ss *session) serveIn(e era, id msgID, name string, m method, params json.RawMessage, meta *requestMeta) {
	proxied := ss.proxied(m)
	switch {
	case m.eras&e == 0 || !proxied && (m.serve == nil || m.resources && ss.srv.opts.Resources == nil):
		ss.reply(id, nil, notFound(name, meta))
	case e == legacy && !m.beforeInit && !ss.initialized:
		ss.reply(id, nil, errorf(CodeInvalidRequest, "invalid request: %s before initialize; send initialize first, or (revision 2026-07-28) carry _meta[%q]",
			name, metaProtocolVersion))
	case proxied:
		ss.forward(id, name, params, meta)
	default:
		m.serve(ss, id, params, meta)
	}
}

// notFound is the error of a method the server does not serve: in the
// revision of meta, when the request has one.
func notFound(name string, meta *requestMeta) *Error {
	if meta == nil {
		return errorf(CodeMethodNotFound, "method not found: %s", name)
	}
	return errorf(CodeMethodNotFound, "method not found: %s (revision %s)", name, meta.ProtocolVersion)
}

func (ss *session) ping(id msgID, _ json.RawMessage, _ *requestMeta) { ss.reply(id, struct{}{}, nil) }

// setLevel answers logging/setLevel.
func (ss *session) setLevel(id msgID, params json.RawMessage, _ *requestMeta) {
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

// discover answers server/discover.
func (ss *session) discover(id msgID, _ json.RawMessage, _ *requestMeta) {
	ss.reply(id, &discoverResult{
		ResultType:        "complete",
		SupportedVersions: allVersions,
		Capabilities:      ss.announced(),
		Instructions:      ss.srv.opts.Instructions,
		TTLms:             0,
		CacheScope:        "public",
		Meta:              ss.resultMeta(),
	}, nil)
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
// capabilities of a proxy when it has one.
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
func (ss *session) initialize(id msgID, params json.RawMessage, _ *requestMeta) {
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
func (ss *session) listTools(id msgID, params json.RawMessage, meta *requestMeta) {
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
