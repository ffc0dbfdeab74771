// Package mcpproxy is the seam through which an [mcp.Server] passes the
// requests it does not serve itself to another MCP server, such as the
// stdio server command that mcpship serves over HTTP (internal/bridge).
//
// The seam is mcpship's own, not a promise to users of package mcp: it is
// an interface and a request type here, and hooks that package mcp sets in
// its init, as grpc-go reaches its internals. A hook's type names mcp's
// types, which this package cannot import (mcp imports it); the comment
// on each gives the type it holds.
//
// [mcp.Server]: https://pkg.go.dev/github.com/mcpship/mcpship/mcp#Server
package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
)

// A Proxy serves the requests of an mcp.Server's clients that the Server
// does not serve itself.
//
// The Server answers initialize, ping and server/discover, with the
// Proxy's capabilities, and speaks both eras of the protocol to its
// clients; every other request goes to Serve in the legacy form
// (revision 2026-07-28's _meta keys taken out of its params, which
// [Request.ModernParams] keeps), and its result comes back as it is, with
// what revision 2026-07-28 adds to a result added. A 2026-07-28 request
// for a method that revision removed (logging/setLevel,
// resources/subscribe and resources/unsubscribe) is answered method not
// found instead, and the Mcp-Param headers of a 2026-07-28 tools/call are
// checked against the input schema of the tool, as the Proxy's tools/list
// gives it.
//
// The Server serves revision 2026-07-28's subscriptions/listen itself,
// acknowledging what the Proxy's capabilities promise (list changes where
// they say listChanged, resource updates where resources say subscribe).
type Proxy interface {
	// Capabilities returns the capabilities to announce: the JSON object
	// of the other server's initialize result.
	Capabilities() json.RawMessage
	// Serve sends one request and returns its result, a JSON object. An
	// *mcp.Error is passed to the client as it is; any other error
	// becomes an internal error whose message is the error's.
	Serve(ctx context.Context, r *Request) (json.RawMessage, error)
	// Listen is given each subscriptions/listen whose acknowledgement is
	// not empty, before the acknowledgement goes out: r.Params holds the
	// filter the client sent, and [Request.Notify] sends a notification
	// on the stream when the acknowledged filter admits it. stop, when
	// not nil, is called once the stream ends; an error ends the listen
	// with it instead of the acknowledgement.
	Listen(ctx context.Context, r *Request) (stop func(), err error)
	// EndSession is told when a legacy HTTP session ends, so that the
	// Proxy lets go of what it kept for it (subscriptions, a log level).
	EndSession(id string)
}

// Request is one request that an mcp.Server passes to its [Proxy].
type Request struct {
	// Method and Params are the request's. Params is nil when it had none.
	Method string
	Params json.RawMessage
	// ModernParams are the params of a request of revision 2026-07-28 as
	// the client sent them, _meta keys of that revision included, for a
	// Proxy whose other server speaks that revision too; nil for a legacy
	// request.
	ModernParams json.RawMessage
	// ProtocolVersion is the revision the client speaks, and
	// ClientCapabilities the JSON object of capabilities it declared.
	ProtocolVersion    string
	ClientCapabilities json.RawMessage
	// Session is the id of the legacy HTTP session the request came in;
	// "" for a stateless request (revision 2026-07-28) and over stdio.
	Session string
	// Header holds the HTTP request's headers; nil over stdio.
	Header http.Header
	// Client is the client that sent the request, set by the Server; nil
	// for a request the Server makes itself.
	Client Client
}

// Client is how a [Proxy] reaches the client whose request it serves.
type Client interface {
	// Notify sends the client a notification about the request, such as
	// notifications/progress; over HTTP it goes in the request's
	// response. Notifications after Serve has returned are dropped, and
	// so is notifications/message for a request of revision 2026-07-28
	// that did not ask for log messages at its level (_meta's logLevel).
	// For a subscriptions/listen given to Listen, it sends a notification
	// on the listen's stream if the acknowledged filter admits it, until
	// the stream ends.
	Notify(method string, params any)
	// Request sends the client a request about the request, such as the
	// other server's sampling/createMessage, and returns the client's
	// result. Only a legacy client can answer one: over HTTP it goes on
	// the event stream of the request's response, and the client posts
	// its answer in its session. For a stateless request (revision
	// 2026-07-28), or a client that accepts only JSON responses, it fails
	// with an *mcp.Error of code method not found; once Serve has
	// returned, with an internal error.
	Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

// Notify sends a notification to the request's client (see
// [Client.Notify]); without a client it does nothing.
func (r *Request) Notify(method string, params any) {
	if r.Client != nil {
		r.Client.Notify(method, params)
	}
}

// Request sends a request to the request's client (see
// [Client.Request]).
func (r *Request) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if r.Client == nil {
		return nil, errors.New(method + ": no client is asking")
	}
	return r.Client.Request(ctx, method, params)
}

// Hooks that package mcp sets in its init.
var (
	// WithProxy holds a func(*mcp.ServerOptions, Proxy) that makes a
	// server of those options pass to the Proxy what it does not serve.
	WithProxy any
	// NotifySession holds a func(s *mcp.Server, session, method string,
	// params any) bool: mcp.Server.Notify for one legacy HTTP session
	// alone when session is not "".
	NotifySession any
	// WithClientHooks holds a func(*mcp.ClientOptions, OnRequest,
	// OnResponse) that sets a client's answers to the server's requests
	// and its hook for responses.
	WithClientHooks any
)

// OnRequest answers a request the server sends a client (but ping, which
// the client answers itself), on a goroutine of its own, with ctx
// cancelled when the connection ends: its result, or its error (an
// *mcp.Error as it is). Without one, the client answers method not found.
type OnRequest func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)

// OnResponse is called on the client's reading goroutine with the
// context of an mcp.Client.Call as soon as the server's answer to it is
// read, before the server's next message: what the client's
// OnNotification gets after it, the server sent after that answer. A
// caller that tells, by a value of the context, which of its calls a
// notification may belong to learns here, in the server's order, that one
// has ended. It is not called for a call whose context ended first.
type OnResponse func(ctx context.Context)
