package clitool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/mcpship/mcpship/internal/resultcache"
	"github.com/mcpship/mcpship/internal/toolresult"
	"github.com/mcpship/mcpship/mcp"
)

// compileCache checks spec.Cache against the tool's inputs.
func (t *tool) compileCache() error {
	pkg, spec := t.r.app.Pkg, t.spec
	if len(spec.Cache) == 0 {
		return nil
	}
	if !spec.ReadOnly {
		return fmt.Errorf("%s: Tool.Cache of %q: a cached result is served instead of running the command, which is right only for a read-only one, and this one is not marked ReadOnly", pkg, spec.Command)
	}
	for _, s := range spec.Cache {
		tmpl, err := resultcache.ParseTemplate(s)
		if err != nil {
			return fmt.Errorf("%s: Tool.Cache of %q: %v", pkg, spec.Command, err)
		}
		for _, name := range tmpl.Names() {
			if _, ok := t.flags[name]; !ok && name != t.args {
				return fmt.Errorf("%s: Tool.Cache of %q: {%s} names neither a served flag nor the positional input %q", pkg, spec.Command, name, t.args)
			}
		}
		t.cache = append(t.cache, tmpl)
	}
	return nil
}

// cacheInputs are the tool's cache inputs for a call's values: each
// template filled as [resultcache.Template.Expand] says, one path per
// item of a list.
func (t *tool) cacheInputs(vals map[string]json.RawMessage) []string {
	values := func(name string) []string {
		raw, ok := vals[name]
		if !ok {
			return nil
		}
		v, _ := flagValues(raw)
		return v
	}
	var out []string
	for _, tmpl := range t.cache {
		out = append(out, tmpl.Expand(values)...)
	}
	return out
}

// cached serves a call from the app's result cache, or runs it there.
// The key is the tool, the command line, the working directory, the
// environment and the executable, which holds the app's code.
func (t *tool) cached(ctx context.Context, vals map[string]json.RawMessage, argv []string, run func() (*mcp.CallToolResult, *toolresult.Capture)) (*mcp.CallToolResult, error) {
	r := t.r
	dir, err := os.Getwd()
	exe := ""
	if err == nil {
		if exe, err = os.Executable(); err == nil {
			exe, err = resultcache.FileID(exe)
		}
	}
	if err != nil {
		r.cache.Log("not caching this call", t.mcpTool.Name, err)
		res, _ := run()
		return res, nil
	}
	inputs := t.cacheInputs(vals)
	key := resultcache.MakeKey([]string{t.mcpTool.Name, exe, dir}, argv, slices.Sorted(slices.Values(os.Environ())), inputs)
	call := resultcache.Call{Tool: t.mcpTool.Name, Key: key, Dir: dir, Inputs: inputs}
	return r.cache.Do(ctx, call, func() resultcache.Outcome {
		res, out := run()
		if ctx.Err() != nil {
			return resultcache.Outcome{Err: ctx.Err()}
		}
		max := int64(r.opts.MaxOutputBytes)
		whole := out != nil && out.Stdout.Total() <= max && out.Stderr.Total() <= max &&
			!out.Cut // it links to an output the server keeps only for a while
		return resultcache.Outcome{Result: res, Keep: whole && !res.IsError}
	})
}
