package mcp

import (
	"context"
	"encoding/json"
	"errors"
)

// Resource describes a resource as resources/list shows it: data the
// client reads with resources/read by its URI, such as the whole output of
// a call whose result was cut.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	// Size is the resource's length in bytes, when known.
	Size int64          `json:"size,omitempty"`
	Meta map[string]any `json:"_meta,omitempty"`
}

// ResourceSource is where a [Server] finds the resources it serves; set
// it as [ServerOptions.Resources]. The server asks it at each
// resources/list and resources/read, so the resources can come and go (a
// call's output kept for a while) or live elsewhere (another server's,
// forwarded). Both methods run on the goroutine that reads the session's
// messages, and should answer quickly.
type ResourceSource interface {
	// ListResources returns a page of resources, from cursor ("" for the
	// first page), and the cursor of the next page ("" on the last).
	ListResources(ctx context.Context, cursor string) (list []Resource, next string, err error)
	// ReadResource returns the contents of the resource uri: usually one
	// [ResourceContents], with Text, or Blob for bytes that are not
	// UTF-8 text. A URI it does not know is an [*Error] with
	// [CodeResourceNotFound].
	ReadResource(ctx context.Context, uri string) ([]ResourceContents, error)
}

// ResourcesCapability announces resources. The fields say which optional
// features the server offers.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// capabilities are what the server announces: tools, log messages, and
// resources when it has a source of them.
func (s *Server) capabilities() ServerCapabilities {
	c := ServerCapabilities{Tools: &ToolsCapability{}, Logging: &struct{}{}}
	if s.opts.Resources != nil {
		c.Resources = &ResourcesCapability{}
	}
	return c
}

type listResourcesResult struct {
	ResultType string         `json:"resultType,omitempty"`
	Resources  []Resource     `json:"resources"`
	NextCursor string         `json:"nextCursor,omitempty"`
	TTLms      *int           `json:"ttlMs,omitempty"`
	CacheScope string         `json:"cacheScope,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

type readResourceResult struct {
	ResultType string             `json:"resultType,omitempty"`
	Contents   []ResourceContents `json:"contents"`
	TTLms      *int               `json:"ttlMs,omitempty"`
	CacheScope string             `json:"cacheScope,omitempty"`
	Meta       map[string]any     `json:"_meta,omitempty"`
}

type listTemplatesResult struct {
	ResultType        string         `json:"resultType,omitempty"`
	ResourceTemplates []struct{}     `json:"resourceTemplates"`
	TTLms             *int           `json:"ttlMs,omitempty"`
	CacheScope        string         `json:"cacheScope,omitempty"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

// resources answers resources/list, resources/read and (with an empty
// list: a source has no templates) resources/templates/list; meta is nil
// for a legacy request. A server without a source has no such methods.
// Resources are private to the session that asked: revision 2026-07-28's
// results say so, and that they may not be cached.
func (ss *session) resources(id msgID, method string, params json.RawMessage, meta *requestMeta) {
	src := ss.srv.opts.Resources
	if src == nil {
		ss.reply(id, nil, errorf(CodeMethodNotFound, "method not found: %s (this server has no resources)", method))
		return
	}
	var p struct {
		Cursor json.RawMessage `json:"cursor"`
		URI    json.RawMessage `json:"uri"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			ss.reply(id, nil, errorf(CodeInvalidParams, "invalid params: %v", err))
			return
		}
	}
	cursor, cursorOK := stringParam(p.Cursor)
	uri, uriOK := stringParam(p.URI)
	var ttl *int
	var scope string
	var rmeta map[string]any
	resultType := ""
	if meta != nil {
		zero := 0
		resultType, ttl, scope, rmeta = "complete", &zero, "private", ss.resultMeta()
	}
	switch method {
	case "resources/templates/list":
		ss.reply(id, &listTemplatesResult{resultType, []struct{}{}, ttl, scope, rmeta}, nil)
	case "resources/list":
		switch {
		case !cursorOK:
			ss.reply(id, nil, errorf(CodeInvalidParams, `invalid params: "cursor" must be a string, the nextCursor of the previous resources/list result`))
			return
		case p.Cursor != nil && cursor == "":
			ss.reply(id, nil, errorf(CodeInvalidParams, `invalid cursor "": omit the cursor to list from the start`))
			return
		}
		list, next, err := src.ListResources(ss.ctx, cursor)
		if err != nil {
			ss.reply(id, nil, asError(err))
			return
		}
		if list == nil {
			list = []Resource{}
		}
		ss.reply(id, &listResourcesResult{resultType, list, next, ttl, scope, rmeta}, nil)
	case "resources/read":
		if !uriOK || uri == "" {
			ss.reply(id, nil, errorf(CodeInvalidParams, `invalid params: resources/read needs the resource's "uri", a string`))
			return
		}
		contents, err := src.ReadResource(ss.ctx, uri)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				e = asError(err)
			}
			ss.reply(id, nil, e)
			return
		}
		if contents == nil {
			contents = []ResourceContents{}
		}
		ss.reply(id, &readResourceResult{resultType, contents, ttl, scope, rmeta}, nil)
	}
}

// stringParam decodes a param that must be a string when present: ok is
// false for any other JSON value. An absent or null param is "".
func stringParam(raw json.RawMessage) (s string, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	return s, json.Unmarshal(raw, &s) == nil
}
