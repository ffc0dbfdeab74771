package cliadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/mcp"
)

// handle runs one call: a fresh app, a synthetic argv, captured output.
func (t *tool) handle(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
	var vals map[string]json.RawMessage
	if err := req.Bind(&vals); err != nil {
		return nil, err
	}
	a := t.a
	if a.opts.Serial {
		a.serial.Lock()
		defer a.serial.Unlock()
	}
	app := a.newApp()
	if app.Compiled.IsZero() {
		app.Compiled = a.compiled
	}
	argv, err := t.argv(app.Name, vals)
	if err != nil {
		return nil, err
	}
	stdout := &capBuffer{max: a.opts.MaxOutputBytes}
	stderr := &capBuffer{max: a.opts.MaxOutputBytes}
	app.Reader = strings.NewReader("") // never the protocol stream
	app.Writer, app.ErrWriter = stdout, stderr
	app.ExitErrHandler = func(*cli.Context, error) {} // never os.Exit
	app.DisableSliceFlagSeparator = true              // each item is one value, commas and all
	isolate(app)
	runErr := app.RunContext(ctx, argv)
	code := a.opts.exitCode(runErr)
	okCodes := t.spec.OKExitCodes
	if okCodes == nil {
		okCodes = []int{0}
	}
	if !slices.Contains(okCodes, code) {
		var b strings.Builder
		fmt.Fprintf(&b, "%s exited with status %d", strings.Join(argv[:1+len(t.path)], " "), code)
		if runErr != nil {
			fmt.Fprintf(&b, ": %v", runErr)
		}
		for _, s := range []struct {
			name string
			buf  *capBuffer
		}{{"stderr", stderr}, {"stdout", stdout}} {
			if text := s.buf.text(); text != "" {
				fmt.Fprintf(&b, "\n%s:\n%s", s.name, strings.TrimRight(text, "\n"))
			}
		}
		return mcp.ErrorResult("%s", b.String()), nil
	}
	out := stdout.text()
	if t.spec.JSON && !stdout.truncated() {
		var obj map[string]any
		if json.Unmarshal([]byte(out), &obj) == nil && obj != nil {
			return mcp.StructuredResult(obj, out), nil
		}
	}
	if out == "" {
		out = "(no output)"
	}
	if code != 0 {
		out += fmt.Sprintf("\n(exit status %d)", code)
	}
	return mcp.TextResult(out), nil
}

// isolate keeps urfave/cli's package-level help flag, help command and
// version flag out of the app: Run writes to them, so concurrent runs of
// even separate apps would race. A call's argv never asks for help.
func isolate(app *cli.App) {
	app.HideHelp, app.HideHelpCommand, app.HideVersion = true, true, true
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.HideHelp, c.HideHelpCommand = true, true
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

// capBuffer keeps the first max bytes written; safe for concurrent writes
// from the goroutines of one command.
type capBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += len(p)
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *capBuffer) truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total > len(b.buf)
}

// text returns what was kept, with a note when output was dropped.
func (b *capBuffer) text() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(b.buf)
	if b.total > len(b.buf) {
		s += fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", len(b.buf), b.total)
	}
	return s
}
