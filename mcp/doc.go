// Package mcp implements the Model Context Protocol over stdio and
// Streamable HTTP: a tools server, a small client, and the wire types they
// share.
//
// It uses only the standard library. Messages are JSON-RPC 2.0 objects, one
// per line (newline-delimited JSON) as the MCP stdio transport specifies,
// or one per HTTP request.
//
// # Serving tools
//
// A [Server] holds tools; [Server.Serve] runs one session over a pair of
// streams, and [Server.ServeStdio] over the process's standard input and
// output, with the signal handling a subprocess server needs. [AddTool]
// registers a tool whose input and output schemas come
// from Go types, and whose handler, a [ToolHandlerFor], gets the arguments
// decoded:
//
//	type greetIn struct {
//		Name string `json:"name" jsonschema:"who to greet"`
//	}
//	s := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
//	err := mcp.AddTool(s, mcp.Tool{Name: "greet", Description: "Say hello"},
//		func(ctx context.Context, req *mcp.CallRequest, in greetIn) (*mcp.CallToolResult, any, error) {
//			return mcp.TextResult("Hello, " + in.Name), nil, nil
//		})
//	...
//	err = s.ServeStdio(ctx, nil)
//
// [Server.AddTool] takes a hand-written JSON Schema ([ObjectSchema] builds
// a simple one) and a [ToolHandler], which reads the arguments with
// [CallRequest.Bind]. Either way the server checks each call's arguments
// against the schema and fills in the defaults it gives before the handler
// runs; a handler reports progress with [CallRequest.Progress] and log
// messages with [CallRequest.Log]. What a handler's error becomes is told
// at [ToolHandler]. A handler that needs input first (the user's answer,
// the client's model, the client's roots) returns [InputRequired], and is
// called again with [CallRequest.InputResponses]: the question goes out in
// the result to a client of revision 2026-07-28, which calls again, and as
// requests of the server's own to one of an earlier revision.
//
// # Resources
//
// A server with [ServerOptions.Resources] set answers resources/list and
// resources/read by asking that [ResourceSource], and announces the
// resources capability; one without has neither. A result can point to a
// resource with a "resource_link" [Content], as mcpship does with the whole
// output of a call whose result was cut to fit the client.
//
// # Serving over HTTP
//
// [NewHTTPHandler] returns an [http.Handler] that serves a Server on the
// Streamable HTTP transport, in both eras of the protocol, with sessions
// for legacy clients (bounded, ended when idle) and stateless requests for
// revision 2026-07-28; it checks Host and Origin, and a bearer token when
// [HTTPOptions.AuthToken] is set. The session logic is the one stdio uses.
// Handlers that share [HTTPOptions.SessionKey] serve each other's legacy
// sessions, so replicas need no affinity. A client of revision 2025-11-25
// that loses a call's stream resumes it with Last-Event-ID; a handler may
// end its stream itself with [CallRequest.CloseStream].
//
// # Notifications
//
// [Server.Notify] sends the notifications that belong to no request,
// such as notifications/tools/list_changed: on the GET stream of legacy
// HTTP sessions, and on the subscriptions/listen streams of revision
// 2026-07-28, which replace that stream and resources/subscribe. A listen
// is a request whose response stays open (an event stream over HTTP,
// with the keep-alive comments of other streams): the server first sends
// notifications/subscriptions/acknowledged with the part of the client's
// filter it honours, then each notification the filter admits, carrying
// the request's id in _meta, and never a log message, which in that
// revision belongs to the request that asked for it. The client ends it
// by closing the response, or over stdio with notifications/cancelled;
// the server ends it when it shuts down (with the request's result over
// HTTP, with notifications/cancelled over stdio), or at once when it
// honours nothing asked. A server keeps at most 1024 listens open at once;
// one past that is refused with an error that says so.
//
// # Calling tools
//
// A [Client] talks to a server over a pair of streams ([NewClient]) or to
// a server command it starts ([StartCommand]): [Client.Initialize], then
// [Client.ListTools] and [Client.CallTool]. A JSON-RPC error reply comes
// back as an [*Error]; a connection that has ended, as
// [ErrConnectionClosed].
//
// # Protocol revisions
//
// The server speaks the legacy handshake revisions 2024-11-05, 2025-03-26,
// 2025-06-18 and 2025-11-25, and the stateless revision 2026-07-28
// (server/discover and per-request _meta), choosing per request as a
// dual-era server does. The design, and what its performance rests on, is
// described in docs/design.md.
package mcp
