package mcp

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// StdioOptions configure [Server.ServeStdio]. The zero value serves the
// process's standard input and output and changes no global state.
type StdioOptions struct {
	// Stdin and Stdout default to os.Stdin and os.Stdout.
	Stdin  io.Reader
	Stdout io.Writer
	// RedirectStdout, when Stdout is os.Stdout, points the variable
	// os.Stdout at os.Stderr while serving, so that a stray print anywhere
	// in the process goes to standard error instead of into the protocol
	// stream. It changes a global of the process, so a library sets it
	// only when its caller asks. Default false.
	RedirectStdout bool
}

// ServeStdio runs [Server.Serve] on standard input and output, the
// transport of a server that a client starts as a subprocess, until the
// input ends, ctx is done or the process receives SIGINT or SIGTERM.
// While it serves, a client that goes away makes writes fail with EPIPE
// (and Serve return) instead of killing the process with SIGPIPE. The
// signal handling is undone when it returns. A nil o is the zero
// [StdioOptions].
func (s *Server) ServeStdio(ctx context.Context, o *StdioOptions) error {
	var opts StdioOptions
	if o != nil {
		opts = *o
	}
	in, out := opts.Stdin, opts.Stdout
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	// With SIGPIPE notified, a write to a closed standard output fails
	// with EPIPE; without, the runtime would end the process.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	sctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f, ok := out.(*os.File); ok && opts.RedirectStdout && f == os.Stdout {
		os.Stdout = os.Stderr
		defer func() { os.Stdout = f }()
	}
	err := s.Serve(sctx, in, out)
	if sctx.Err() != nil && ctx.Err() == nil {
		s.log.Info("stopped by signal")
	}
	return err
}
