package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/mcp"

	"github.com/mcpship/mcpship/internal/clihelp"
	"github.com/mcpship/mcpship/internal/register"
)

// Tools returns the "tools" command, which starts an MCP server, given as
// a command after "--" or registered under --name, and lists its tools.
func Tools() *cli.Command {
	return &cli.Command{
		Name:      "tools",
		Usage:     "start an MCP server and list its tools",
		ArgsUsage: "[-- COMMAND ARGS... | --name NAME]",
		Description: "Starts the server (a command after \"--\", run directly, or one registered with the\n" +
			"assistants under --name, as doctor starts it), performs the MCP handshake and prints\n" +
			"each tool: its name, title, description and inputs with their types, whether they are\n" +
			"required, and their defaults. --json prints the tools as the server sent them.\n" +
			"Exits 1 when the server cannot be started or does not answer, 64 on a usage error.",
		Flags:        serverFlags(),
		OnUsageError: clihelp.OnUsageError,
		Action:       interruptible(runTools),
	}
}

// Call returns the "call" command, which starts an MCP server as [Tools]
// does and calls one of its tools.
func Call() *cli.Command {
	return &cli.Command{
		Name:      "call",
		Usage:     "start an MCP server and call one of its tools",
		ArgsUsage: "TOOL [ARGUMENTS] [-- COMMAND ARGS... | --name NAME]",
		Description: "Calls TOOL with ARGUMENTS, a JSON object ('{\"path\": \"a.txt\"}'; {} when left out),\n" +
			"@FILE to read them from a file, or - to read them from standard input. The server is\n" +
			"started as by tools. Prints the result's text, then its structuredContent as indented\n" +
			"JSON; --json prints the whole result as the server sent it. Flags go before TOOL.\n" +
			"Progress the server reports while the tool runs is shown on standard error.\n" +
			"Exits 1 when the tool's result is an error (isError) or the server fails, 64 on a\n" +
			"usage error: a tool the server does not have, arguments that are not a JSON object.",
		Flags:        serverFlags(),
		OnUsageError: clihelp.OnUsageError,
		Action:       interruptible(runCall),
	}
}

func serverFlags() []cli.Flag {
	return append(append([]cli.Flag{
		&cli.StringFlag{Name: "name", Usage: "the server registered under this name (see 'list'), instead of a command after --"},
	}, register.FilterFlags()...),
		&cli.DurationFlag{Name: "timeout", Value: time.Minute, Usage: "time the server has to start and answer everything, 0 for no limit"},
		&cli.BoolFlag{Name: "show-stderr", Usage: "pass the server's standard error through as it comes; without it, its end is shown if the server fails"},
		&cli.StringFlag{Name: "project", Usage: "project directory, to find --name in project and local scopes (default: the current directory)"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON for machines"},
	)
}

func runTools(c *cli.Context) error {
	ctx, cancel, err := withTimeout(c)
	if err != nil {
		return err
	}
	defer cancel()
	s, err := start(ctx, c, c.Args().Slice())
	if err != nil {
		return err
	}
	raw, tools, err := s.tools(ctx)
	if err != nil {
		return err
	}
	s.Close()
	if c.Bool("json") {
		return register.PrintJSON(c.App.Writer, struct {
			ProtocolVersion string             `json:"protocolVersion"`
			ServerInfo      mcp.Implementation `json:"serverInfo"`
			Instructions    string             `json:"instructions,omitempty"`
			Tools           []json.RawMessage  `json:"tools"`
		}{s.init.ProtocolVersion, s.init.ServerInfo, s.init.Instructions, raw})
	}
	return printTools(c.App.Writer, s.init, tools)
}

func runCall(c *cli.Context) error {
	words, argv := c.Args().Slice(), []string(nil)
	if i := slices.Index(words, "--"); i >= 0 {
		words, argv = words[:i], words[i+1:]
	}
	for _, w := range words {
		if strings.HasPrefix(w, "-") && w != "-" {
			return register.Usagef("%s after TOOL: flags go before TOOL (%s call --json TOOL '{}' -- COMMAND), everything after -- is the server's command", w, c.App.Name)
		}
	}
	if argv == nil && !c.IsSet("name") {
		return register.Usagef("name the tool, then the server: a command after \"--\" (%s call TOOL '{}' -- %s serve --manifest mcpship.json), or --name and the name of a registered one (see '%s list')",
			c.App.Name, c.App.Name, c.App.Name)
	}
	if len(words) == 0 || len(words) > 2 {
		return register.Usagef("call takes TOOL and at most one ARGUMENTS (a JSON object, quoted as one word) before \"--\", got %q", words)
	}
	tool, arg := words[0], ""
	if len(words) == 2 {
		arg = words[1]
	}
	args, err := arguments(c.App.Reader, arg, len(words) == 2)
	if err != nil {
		return err
	}
	ctx, cancel, err := withTimeout(c)
	if err != nil {
		return err
	}
	defer cancel()
	s, err := start(ctx, c, argv)
	if err != nil {
		return err
	}
	_, tools, err := s.tools(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(tools, func(t mcp.Tool) bool { return t.Name == tool }) {
		s.Close()
		if len(tools) == 0 {
			return register.Usagef("no tool named %q: %s has no tools", tool, s.what)
		}
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		return register.Usagef("no tool named %q; %s has: %s", tool, s.what, strings.Join(names, ", "))
	}
	var raw json.RawMessage
	params := map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{"progressToken": 1}}
	if err := s.Call(ctx, "tools/call", params, &raw); err != nil {
		return s.fail("tools/call", err)
	}
	s.Close()
	var res toolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("%s: protocol error: the result of tools/call is not a CallToolResult: %v", s.what, err)
	}
	if c.Bool("json") {
		err = register.PrintJSON(c.App.Writer, raw)
	} else {
		err = printResult(c.App.Writer, &res)
	}
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s failed: its result is an error (isError)", tool)
	}
	return nil
}

// withTimeout returns the context of a run of tools or call, which ends
// after --timeout.
func withTimeout(c *cli.Context) (context.Context, context.CancelFunc, error) {
	d := c.Duration("timeout")
	switch {
	case d < 0:
		return nil, nil, register.Usagef("--timeout must not be negative; 0 means no limit")
	case d == 0:
		ctx, cancel := context.WithCancel(c.Context)
		return ctx, cancel, nil
	}
	ctx, cancel := context.WithTimeout(c.Context, d)
	return ctx, cancel, nil
}

// arguments returns the JSON object of a call's arguments: arg itself, the
// file it names after "@", or standard input for "-"; {} when not given.
func arguments(stdin io.Reader, arg string, given bool) (json.RawMessage, error) {
	if !given {
		return json.RawMessage("{}"), nil
	}
	data, from := []byte(arg), "the arguments"
	var err error
	switch {
	case arg == "-":
		data, err = io.ReadAll(stdin)
		from = "the arguments on standard input"
	case strings.HasPrefix(arg, "@"):
		data, err = os.ReadFile(arg[1:])
		from = "the arguments in " + arg[1:]
	}
	if err != nil {
		return nil, register.Usagef("cannot read the arguments: %v", err)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // a byte order mark, as some editors write
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, register.Usagef("%s are empty: give a JSON object, such as '{\"path\": \"a.txt\"}', or '{}'", from)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return nil, register.Usagef("%s are not valid JSON: %v", from, err)
		}
		line, col, text := position(data, se.Offset)
		return nil, register.Usagef("%s are not valid JSON: line %d, column %d: %v\n    %s\n    %s^",
			from, line, col, err, text, strings.Repeat(" ", col-1))
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, register.Usagef("%s must be a JSON object, such as '{\"path\": \"a.txt\"}', not %s", from, jsonKind(v))
	}
	return data, nil
}

// position returns the line and column (both from 1, the column in bytes)
// of the byte just before offset in data, where encoding/json stopped, and
// that line's text.
func position(data []byte, offset int64) (line, col int, text string) {
	at := max(0, min(int(offset)-1, len(data)))
	start := strings.LastIndexByte(string(data[:at]), '\n') + 1
	end := len(data)
	if i := strings.IndexByte(string(data[start:]), '\n'); i >= 0 {
		end = start + i
	}
	return strings.Count(string(data[:start]), "\n") + 1, at - start + 1, strings.TrimRight(string(data[start:end]), "\r")
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// progress says what the params of notifications/progress report: the
// message, and how far the call has got when the server says so.
func progress(params json.RawMessage) string {
	var p struct {
		Progress float64 `json:"progress"`
		Total    float64 `json:"total"`
		Message  string  `json:"message"`
	}
	_ = json.Unmarshal(params, &p)
	switch {
	case p.Total > 0 && p.Message != "":
		return fmt.Sprintf("%s (%g of %g)", p.Message, p.Progress, p.Total)
	case p.Total > 0:
		return fmt.Sprintf("progress: %g of %g", p.Progress, p.Total)
	case p.Message != "":
		return p.Message
	}
	return fmt.Sprintf("progress: %g", p.Progress)
}

// server is a server that tools or call started, after the handshake.
type server struct {
	*started
	init    *mcp.InitializeResult
	what    string // the server for people: its registered name, or its command line
	timeout time.Duration
	secrets []string // what its messages hide (entrySecrets)
	shown   bool     // its standard error went through as it came (--show-stderr)
}

// start starts the server that argv (a command after "--") or --name
// names and performs the MCP handshake within ctx.
func start(ctx context.Context, c *cli.Context, argv []string) (*server, error) {
	e, dir, err := chosen(c, argv)
	if err != nil {
		return nil, err
	}
	secrets := register.Secrets(e)
	what := register.Hide(register.CommandLine(e), secrets)
	if len(argv) == 0 {
		what = fmt.Sprintf("server %q", e.Name)
	}
	cmd := command(e, dir)
	if c.Bool("show-stderr") {
		cmd.Stderr = c.App.ErrWriter
	}
	mc, err := startServer(cmd, &mcp.ClientOptions{
		Info:             mcp.Implementation{Name: c.App.Name, Version: c.App.Version},
		TerminateTimeout: time.Second,
		Strict:           true,
		OnNotification: func(method string, params json.RawMessage) {
			if method == "notifications/progress" {
				fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", c.App.Name, progress(params))
			}
		},
	}, nil)
	if err != nil {
		if len(argv) > 0 {
			return nil, register.Usagef("%s", notStarted(e.Command, err, ""))
		}
		return nil, fmt.Errorf("%s: not found: %s", what, notStarted(e.Command, err, " the assistant uses"))
	}
	s := &server{started: mc, what: what, timeout: c.Duration("timeout"), secrets: secrets, shown: c.Bool("show-stderr")}
	if s.init, err = mc.Initialize(ctx, ""); err != nil {
		return nil, s.fail("initialize", err)
	}
	return s, nil
}

// chosen returns the server to start: argv, in the current directory, or
// the stdio server registered under --name in the files that --client and
// --scope choose, with the directory doctor would start it in.
func chosen(c *cli.Context, argv []string) (e installer.Entry, dir string, err error) {
	name := c.String("name")
	switch {
	case c.IsSet("name") && len(argv) > 0:
		return e, "", register.Usagef("give either --name or a command after \"--\", not both")
	case len(argv) > 0 && (c.IsSet("client") || c.IsSet("scope")):
		return e, "", register.Usagef("--client and --scope choose where to look for --name; a command after \"--\" is started as it is")
	case len(argv) > 0:
		return installer.Entry{Command: argv[0], Args: argv[1:]}, "", nil
	case !c.IsSet("name"):
		return e, "", register.Usagef("name the server: a command after \"--\" (%s %s -- %s serve --manifest mcpship.json), or --name and the name of a registered one (see '%s list')",
			c.App.Name, c.Command.Name, c.App.Name, c.App.Name)
	case name == "":
		return e, "", register.Usagef("--name must not be empty")
	}
	clients, scope, env, err := register.Filters(c)
	if err != nil {
		return e, "", err
	}
	regs, known, _, err := register.Registered(c, env, clients, scope, name)
	switch {
	case err != nil:
		return e, "", err
	case len(regs) == 0:
		return e, "", register.NotRegistered(name, known)
	}
	var local []register.Found
	for _, r := range regs {
		if r.NotStdio() == "" {
			local = append(local, r)
		}
	}
	if len(local) == 0 {
		r := regs[0]
		return e, "", fmt.Errorf("%s %s: server %q in %s is %s; %s %s starts only local stdio servers",
			r.Client, r.Scope, name, r.File, r.NotStdio(), c.App.Name, c.Command.Name)
	}
	for _, r := range local[1:] {
		if !sameCommand(r.Entry, local[0].Entry) {
			var each []string
			for _, r := range local {
				each = append(each, fmt.Sprintf("  %s %s (%s): %s", r.Client, r.Scope, r.File, register.CommandLine(r.Entry)))
			}
			return e, "", register.Usagef("servers with different commands are registered as %q; choose one with --client and --scope:\n%s",
				name, strings.Join(each, "\n"))
		}
	}
	return local[0].Entry, env.ProjectDir, nil
}

// sameCommand says whether a and b start the same program the same way.
func sameCommand(a, b installer.Entry) bool {
	return a.Command == b.Command && slices.Equal(a.Args, b.Args) && a.Cwd == b.Cwd &&
		(len(a.Env) == 0 && len(b.Env) == 0 || reflect.DeepEqual(a.Env, b.Env))
}

// tools returns the server's tools as it sent them and decoded, following
// pagination as [mcp.Client.ListTools] does.
func (s *server) tools(ctx context.Context) ([]json.RawMessage, []mcp.Tool, error) {
	if s.init.Capabilities.Tools == nil {
		// A server that does not announce tools has none; clients do
		// not ask it for them, and many answer "method not found".
		return []json.RawMessage{}, nil, nil
	}
	var raw []json.RawMessage
	cursor := ""
	seen := map[string]bool{"": true}
	for {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := s.Call(ctx, "tools/list", params, &page); err != nil {
			return nil, nil, s.fail("tools/list", err)
		}
		raw = append(raw, page.Tools...)
		if page.NextCursor == "" {
			break
		}
		if seen[page.NextCursor] {
			s.Close()
			return nil, nil, fmt.Errorf("%s: protocol error: tools/list: the nextCursor %q was given before; the pages would never end", s.what, page.NextCursor)
		}
		cursor = page.NextCursor
		seen[cursor] = true
	}
	tools := make([]mcp.Tool, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &tools[i]); err != nil {
			s.Close()
			return nil, nil, fmt.Errorf("%s: protocol error: tools/list: tool %d: %v", s.what, i+1, err)
		}
	}
	if raw == nil {
		raw = []json.RawMessage{}
	}
	return raw, tools, nil
}

// fail stops the server and returns the error for err, what the client
// got for the request step: what happened, as doctor says it, and the end
// of the server's standard error.
func (s *server) fail(step string, err error) error {
	problem, detail := failure(step, err, s.timeout)
	exitErr := s.Close()
	switch {
	case problem == "exited" && exitErr != nil:
		detail += " (" + exitErr.Error() + ")"
	case problem == "timed out":
		detail += "; raise --timeout, or 0 for no limit"
	}
	msg := fmt.Sprintf("%s: %s: %s", s.what, problem, detail)
	if tail := strings.TrimSpace(s.Stderr()); tail != "" && !s.shown {
		msg += "\nthe end of its standard error:\n    " + strings.Join(lastLines(tail, 10), "\n    ")
	}
	return errors.New(register.Hide(msg, s.secrets))
}
