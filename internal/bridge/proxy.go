package bridge

import (
	"github.com/mcpship/mcpship/internal/mcpproxy"
	"github.com/mcpship/mcpship/mcp"
)

var _ mcpproxy.Proxy = (*Bridge)(nil)

// NewServer returns the server that serves the bridge's command: named
// and instructed as the command's initialize result says, with the
// limits of opts, and passing the bridge every request it does not answer
// itself. The bridge carries the children's notifications that belong to
// no request to the sessions of that server.
func (b *Bridge) NewServer(opts mcp.ServerOptions) *mcp.Server {
	info, instructions := b.Info()
	opts.Instructions = instructions
	mcpproxy.WithProxy.(func(*mcp.ServerOptions, mcpproxy.Proxy))(&opts, b)
	s := mcp.NewServer(info, &opts)
	b.srv.Store(s)
	return s
}

// notifySession sends a notification that belongs to no request to the
// GET stream of one legacy session of s, or of every session and listen
// stream when session is "" (see [mcp.Server.Notify]).
func notifySession(s *mcp.Server, session, method string, params any) bool {
	return mcpproxy.NotifySession.(func(*mcp.Server, string, string, any) bool)(s, session, method, params)
}

// withClientHooks sets the answers of a client of a child to the child's
// requests, and its hook for responses.
func withClientHooks(o *mcp.ClientOptions, onRequest mcpproxy.OnRequest, onResponse mcpproxy.OnResponse) {
	mcpproxy.WithClientHooks.(func(*mcp.ClientOptions, mcpproxy.OnRequest, mcpproxy.OnResponse))(o, onRequest, onResponse)
}
