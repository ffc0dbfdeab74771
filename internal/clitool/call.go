package clitool

import (
	"context"
	"encoding/json"
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
	r := t.r
	if r.opts.Serial {
		r.serial.Lock()
		defer r.serial.Unlock()
	}
	out := toolresult.New(r.opts.MaxOutputBytes, r.app.Pkg+".Options.MaxOutputBytes")
	runErr := r.app.Run(ctx, t.path, argv, &out.Stdout, &out.Stderr)
	code := r.exitCode(runErr)
	okCodes := t.spec.OKExitCodes
	if okCodes == nil {
		okCodes = []int{0}
	}
	prog := strings.Join(argv[:1+len(t.path)], " ")
	switch {
	case !slices.Contains(okCodes, code) && runErr != nil && runErr.Error() != "":
		return out.Error("%s exited with status %d: %v", prog, code, runErr), nil
	case !slices.Contains(okCodes, code):
		return out.Error("%s exited with status %d.", prog, code), nil
	case t.spec.JSON:
		return out.JSONOrText(code), nil
	}
	return out.Text(code), nil
}
