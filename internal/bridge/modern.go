package bridge

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/mcpship/mcpship/mcp"
)

// modernVersion is the revision whose requests a child that speaks it
// gets as they are: with their per-request _meta (the client's
// capabilities), so that it answers the client's calls itself, its
// InputRequired results and their requestState included.
const modernVersion = "2026-07-28"

// discoverTimeout bounds the server/discover of speaksModern: a legacy
// server answers at once that it has no such method, and one that does
// not answer is taken for a legacy one, which the bridge serves all the
// same.
const discoverTimeout = 5 * time.Second

// speaksModern asks a child that was initialised whether it speaks
// revision 2026-07-28 as well, with server/discover; a legacy server
// answers method not found.
func speaksModern(ctx context.Context, cl *mcp.Client) bool {
	ctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	defer cancel()
	var res struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	err := cl.Call(ctx, "server/discover", map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    modernVersion,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}}, &res)
	return err == nil && slices.Contains(res.SupportedVersions, modernVersion)
}

// modernParams returns the params of a 2026-07-28 request for a child
// that speaks that revision: as the client sent them, but without the
// log level it asked for, since the log messages of a child shared by
// many clients say nothing of the request they belong to (a
// notifications/message of the child's goes where relay sends it).
func modernParams(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) != nil {
		return params
	}
	if _, ok := meta["io.modelcontextprotocol/logLevel"]; !ok {
		return params
	}
	delete(meta, "io.modelcontextprotocol/logLevel")
	p["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return b
}
