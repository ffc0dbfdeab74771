package cliadapter

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/toolresult"
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
	out := toolresult.New(a.opts.MaxOutputBytes, "cliadapter.Options.MaxOutputBytes")
	app.Reader = strings.NewReader("") // never the protocol stream
	app.Writer, app.ErrWriter = &out.Stdout, &out.Stderr
	app.ExitErrHandler = func(*cli.Context, error) {} // never os.Exit
	app.DisableSliceFlagSeparator = true              // each item is one value, commas and all
	isolate(app)
	runErr := app.RunContext(ctx, argv)
	code := a.opts.exitCode(runErr)
	okCodes := t.spec.OKExitCodes
	if okCodes == nil {
		okCodes = []int{0}
	}
	prog := strings.Join(argv[:1+len(t.path)], " ")
	switch {
	case !slices.Contains(okCodes, code) && runErr != nil:
		return out.Error("%s exited with status %d: %v", prog, code, runErr), nil
	case !slices.Contains(okCodes, code):
		return out.Error("%s exited with status %d.", prog, code), nil
	case t.spec.JSON:
		return out.JSONOrText(code), nil
	}
	return out.Text(code), nil
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
