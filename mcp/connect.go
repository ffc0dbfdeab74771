package mcp

import (
	"context"
	"io"
)

// Connect serves s over an in-memory connection and returns a client of
// it, as [StartCommand] does for a server command: the client's first
// call is [Client.Initialize]. The session is the one [Server.Serve] runs
// over a program's standard streams, without a process or an
// operating-system pipe: the connection for tests and examples. opts may
// be nil.
//
// The session runs until ctx is done or the client is closed.
// [Client.Close] waits for it to end and returns [Server.Serve]'s error;
// once it has ended, the client's calls fail with [ErrConnectionClosed].
func (s *Server) Connect(ctx context.Context, opts *ClientOptions) *Client {
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	c := NewClient(clientIn, clientOut, opts)
	c.exited = make(chan struct{})
	go func() {
		c.waitErr = s.Serve(ctx, serverIn, serverOut)
		serverOut.Close() // the client reads the end of the connection
		serverIn.Close()  // and its writes fail rather than wait
		close(c.exited)
	}()
	return c
}
