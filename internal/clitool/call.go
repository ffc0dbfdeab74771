package clitool

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/mcpship/mcpship/internal/toolresult"
	"github.com/mcpship/mcpship/mcp"
)

// handle runs one call: its command line, a fresh app, captured output.
func (t *tool) handle(ctx context.Context, req *mcp.CallRequest) (*mcp.CallToolResult, error) {
	var vals map[string]json.RawMessage
	if err := req.Bind(&vals); err != nil {
		return nil, err
	}
	argv, err := t.argv(vals)
	if err != nil {
		return nil, err
	}
	if t.confirm != nil {
		if res := t.confirm.Ask(req, confirmValues(vals), argv); res != nil {
			return res, nil
		}
	}
	if t.cache != nil {
		return t.cached(ctx, vals, argv, func() (*mcp.CallToolResult, *toolresult.Capture) { return t.execute(ctx, req, argv) })
	}
	res, _ := t.execute(ctx, req, argv)
	return res, nil
}

// execute runs one call's argv in a fresh app and makes its result.
func (t *tool) execute(ctx context.Context, req *mcp.CallRequest, argv []string) (*mcp.CallToolResult, *toolresult.Capture) {
	r := t.r
	if r.opts.Serial {
		r.serial.Lock()
		defer r.serial.Unlock()
	}
	out := toolresult.New(r.opts.MaxOutputBytes, r.app.Pkg+".Options.MaxOutputBytes")
	out.Budget = t.budget(req)
	panicked, runErr := r.run(ctx, t.path, argv, out)
	prog := strings.Join(argv[:1+len(t.path)], " ")
	if panicked != nil {
		return out.Error("%s panicked: %v", prog, panicked), nil
	}
	code := r.exitCode(runErr)
	okCodes := t.spec.OKExitCodes
	if okCodes == nil {
		okCodes = []int{0}
	}
	switch {
	case !slices.Contains(okCodes, code) && runErr != nil && runErr.Error() != "":
		return out.Error("%s exited with status %d: %v", prog, code, runErr), out
	case !slices.Contains(okCodes, code):
		return out.Error("%s exited with status %d.", prog, code), out
	case t.spec.JSON:
		return out.JSONOrText(code), out
	}
	return out.Text(code), out
}

// run runs one call's argv. A panic of the command ends the call as it
// ends a program: its value is returned, with the stack on out's stderr,
// and the server goes on serving.
func (r *runner) run(ctx context.Context, path, argv []string, out *toolresult.Capture) (panicked any, err error) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(&out.Stderr, "panic: %v\n\n%s", p, debug.Stack())
			panicked = p
		}
	}()
	return nil, r.app.Run(ctx, path, argv, &out.Stdout, &out.Stderr)
}

// budget is how the call's result is cut to fit the client: the tool's
// OutputBudget or the default, with the whole output kept in the
// runner's Outputs, linked for clients that know resource_link (revision
// 2025-06-18 on), as for manifest tools.
func (t *tool) budget(req *mcp.CallRequest) *toolresult.Budget {
	b := &toolresult.Budget{Chars: toolresult.DefaultChars, ErrorChars: toolresult.DefaultErrorChars,
		Setting: t.r.app.Pkg + ".Tool.OutputBudget", Link: req.ProtocolVersion >= "2025-06-18"}
	if n := t.spec.OutputBudget; n != 0 {
		b.Chars, b.ErrorChars = n, n
	}
	if store := t.r.opts.Outputs; store != nil {
		b.Keep = store.Keeper(t.mcpTool.Name)
	}
	return b
}
