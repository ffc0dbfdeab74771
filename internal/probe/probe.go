package probe

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/internal/sandbox"
	"github.com/mcpship/mcpship/mcp"
)

// health is the outcome of probing one registered server: whether it
// starts and answers an MCP handshake and tools/list.
type health struct {
	OK bool `json:"ok"`
	// Problem is "", "not found", "exited", "timed out", "protocol error"
	// or "interrupted"; for a remote server also "unreachable",
	// "unauthorized" or "not set" (a variable its headers take).
	Problem         string `json:"problem,omitempty"`
	Detail          string `json:"detail,omitempty"` // what went wrong, for people
	Stderr          string `json:"stderr,omitempty"` // the end of the server's stderr on failure
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	ServerName      string `json:"serverName,omitempty"`
	ServerVersion   string `json:"serverVersion,omitempty"`
	Tools           int    `json:"tools"`
	Millis          int64  `json:"ms"` // from start to the tools/list answer, or to the failure
	// Warnings are what a server that answered logged at level WARN on
	// its standard error (mcpship serve: a program its tools run that is
	// not on PATH).
	Warnings []string `json:"warnings,omitempty"`
}

// probe starts s as its client would (its command, arguments and
// environment on top of this process's, in dir when s names no directory),
// performs the MCP handshake and lists its tools, all within timeout, then
// stops it.
func probe(ctx context.Context, s installer.Entry, dir string, timeout time.Duration, policy *sandbox.Policy) health {
	start := time.Now()
	h := handshake(ctx, s, dir, timeout, policy)
	h.Millis = time.Since(start).Milliseconds()
	return h
}

func handshake(ctx context.Context, s installer.Entry, dir string, timeout time.Duration, policy *sandbox.Policy) (h health) {
	if s.Command == "" {
		return health{Problem: "not found", Detail: "the entry has no command, so the client cannot start it"}
	}
	c, err := startServer(command(s, dir), &mcp.ClientOptions{
		Info:             mcp.Implementation{Name: "mcpship-doctor", Version: "1"},
		TerminateTimeout: time.Second,
		Strict:           true,
	}, policy)
	if err != nil {
		return health{Problem: "not found", Detail: notStarted(s.Command, err, " the assistant uses")}
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() {
		exitErr := c.stop(parent)
		if h.OK {
			h.Warnings = warnings(c.Stderr())
		} else {
			h.Stderr = strings.TrimSpace(c.Stderr())
			if h.Problem == "exited" && exitErr != nil {
				h.Detail += " (" + exitErr.Error() + ")"
			}
		}
	}()
	fail := func(step string, err error) health {
		if parent.Err() != nil { // interrupted, not the server's doing
			return health{Problem: "interrupted", Detail: fmt.Sprintf("stopped while waiting for the answer to %s", step)}
		}
		problem, detail := failure(step, err, timeout)
		return health{Problem: problem, Detail: detail}
	}
	init, err := c.Initialize(ctx, "")
	if err != nil {
		return fail("initialize", err)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		return fail("tools/list", err)
	}
	return health{OK: true, ProtocolVersion: init.ProtocolVersion, ServerName: init.ServerInfo.Name,
		ServerVersion: init.ServerInfo.Version, Tools: len(tools)}
}

// A started is a server that doctor, tools, call or add's check started.
type started struct {
	*mcp.Client
	cmd *exec.Cmd
}

// startServer starts cmd as an MCP server, in a process group of its own,
// confined by policy (package sandbox; nil: unconfined).
func startServer(cmd *exec.Cmd, opts *mcp.ClientOptions, policy *sandbox.Policy) (*started, error) {
	ownGroup(cmd)
	var c *mcp.Client
	err := sandbox.Do(policy, func() (err error) {
		c, err = mcp.StartCommand(cmd, opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &started{Client: c, cmd: cmd}, nil
}

// stop stops the server as its client would (its input closed, then
// SIGTERM, then SIGKILL), then kills what it left running in its group,
// such as a child holding its output. Once ctx has ended (an interrupt),
// it kills the group first. It returns the server's exit error.
func (s *started) stop(ctx context.Context) error {
	if ctx.Err() != nil {
		killGroup(s.cmd)
	}
	err := s.Client.Close()
	killGroup(s.cmd)
	return err
}

// Close stops the server and what it left running.
func (s *started) Close() error { return s.stop(context.Background()) }

// command returns the command that starts s as its client would: its
// command and arguments, its environment on top of this process's, in its
// directory or else in dir.
func command(s installer.Entry, dir string) *exec.Cmd {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = dir
	if s.Cwd != "" {
		cmd.Dir = s.Cwd
	}
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// notStarted says why the command name could not be started; where is
// whose PATH it was looked up in (" the assistant uses", or "").
func notStarted(name string, err error, where string) string {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("cannot start %q: %v; is it installed, and on the PATH%s?", name, err, where)
	}
	return fmt.Sprintf("cannot start %q: %v", name, err)
}

// failure classifies err, which a started server's client returned for
// the request step: the problem ("timed out", "exited" or "protocol
// error", as doctor reports them) and what happened, for people.
func failure(step string, err error, timeout time.Duration) (problem, detail string) {
	var rpcErr *mcp.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out", fmt.Sprintf("no answer to %s within %v", step, timeout)
	case errors.As(err, &rpcErr):
		return "protocol error", fmt.Sprintf("%s: %v", step, err)
	case errors.Is(err, mcp.ErrConnectionClosed):
		return "exited", fmt.Sprintf("the server stopped before answering %s", step)
	}
	return "protocol error", strings.TrimPrefix(err.Error(), "mcp: ")
}

// warnRE matches a line that log/slog's text handler wrote at level WARN,
// as mcpship serve logs, and its message.
var warnRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)\blevel=WARN msg=("(?:[^"\\]|\\.)*"|\S+)`) })

// warnings returns the messages of the WARN lines in a server's stderr.
func warnings(stderr string) []string {
	var out []string
	for _, m := range warnRE().FindAllStringSubmatch(stderr, -1) {
		msg := m[1]
		if s, err := strconv.Unquote(msg); err == nil {
			msg = s
		}
		out = append(out, msg)
	}
	return out
}
