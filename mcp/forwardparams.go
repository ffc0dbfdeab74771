package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// forwardedTools is what a Server with a Forwarder knows of the other
// server's tools: the arguments each mirrors into Mcp-Param-* headers,
// read from its tools/list, so that the HTTP handler checks the headers
// of a call of a forwarded tool as it checks those of its own tools.
type forwardedTools struct {
	mu      sync.Mutex
	headers map[string][]headerParam // by tool name; nil until listed, or after a list change
	listed  time.Time                // when the Forwarder was last asked
}

// relistAfter is how soon after asking the Forwarder for its tools the
// server asks again for a tool it did not list, so that calls of unknown
// tools do not each cost a tools/list.
const relistAfter = time.Second

// maxListPages bounds the pages of one tools/list of the Forwarder.
const maxListPages = 100

// forwardedHeaders returns the header arguments of the Forwarder's tool
// name, asking the Forwarder for its tools (with hdr, the request's
// headers, which may choose what it serves) when it has not listed them,
// or did not list name and was last asked a while ago.
func (s *Server) forwardedHeaders(ctx context.Context, hdr http.Header, name string) []headerParam {
	ft := &s.fwdTools
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if hps, ok := ft.headers[name]; ok {
		return hps
	}
	if ft.headers != nil && time.Since(ft.listed) < relistAfter {
		return nil
	}
	ft.listed = time.Now()
	headers := map[string][]headerParam{}
	cursor := ""
	for range maxListPages {
		var params json.RawMessage
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		res, err := s.opts.Forward.Forward(ctx, &ForwardRequest{Method: "tools/list", Params: params,
			ProtocolVersion: LatestLegacyVersion, ClientCapabilities: json.RawMessage("{}"), Header: hdr})
		if err != nil {
			s.log.Debug("the forwarded server's tools could not be listed to check Mcp-Param headers", "err", err)
			break
		}
		cursor = addHeaderParams(headers, res)
		if cursor == "" {
			break
		}
	}
	ft.headers = headers
	return headers[name]
}

// sawToolList records the tools of a tools/list result of the
// Forwarder's that a client asked for.
func (s *Server) sawToolList(res json.RawMessage) {
	ft := &s.fwdTools
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if ft.headers == nil {
		ft.headers = map[string][]headerParam{}
	}
	addHeaderParams(ft.headers, res)
}

// toolsChanged forgets what the server knew of the Forwarder's tools,
// whose list changed.
func (s *Server) toolsChanged() {
	ft := &s.fwdTools
	ft.mu.Lock()
	ft.headers = nil
	ft.mu.Unlock()
}

// addHeaderParams adds the header arguments of the tools of a tools/list
// result to headers, and returns the result's nextCursor. A tool whose
// annotations break the transport's rules mirrors nothing: a client
// calls it without Mcp-Param headers.
func addHeaderParams(headers map[string][]headerParam, res json.RawMessage) string {
	var r struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if json.Unmarshal(res, &r) != nil {
		return ""
	}
	for _, t := range r.Tools {
		hps, err := headerParams(t.InputSchema)
		if err != nil {
			hps = nil
		}
		headers[t.Name] = hps
	}
	return r.NextCursor
}
