package clitool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mcpship/mcpship/internal/resultcache"
	"github.com/mcpship/mcpship/internal/toolresult"
	"github.com/mcpship/mcpship/mcp"
)

// cachePart is a piece of a Tool.Cache pattern: text, or a {placeholder}
// naming a served flag or the positional input.
type cachePart struct{ text, input string }

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
		parts, err := parseCachePattern(s)
		if err != nil {
			return fmt.Errorf("%s: Tool.Cache of %q: %v", pkg, spec.Command, err)
		}
		var text strings.Builder
		for _, p := range parts {
			if p.input == "" {
				text.WriteString(p.text)
				continue
			}
			text.WriteString("x")
			if _, ok := t.flags[p.input]; !ok && p.input != t.args {
				return fmt.Errorf("%s: Tool.Cache of %q: {%s} names neither a served flag nor the positional input %q", pkg, spec.Command, p.input, t.args)
			}
		}
		if err := resultcache.CheckPattern(text.String()); err != nil {
			return fmt.Errorf("%s: Tool.Cache of %q: %q %v", pkg, spec.Command, s, err)
		}
		t.cache = append(t.cache, parts)
	}
	return nil
}

// parseCachePattern splits s into text and {name} placeholders; "{{" and
// "}}" are literal braces.
func parseCachePattern(s string) ([]cachePart, error) {
	var parts []cachePart
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case (c == '{' || c == '}') && i+1 < len(s) && s[i+1] == c:
			lit.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 2 {
				return nil, fmt.Errorf("%q has a '{' with no name and '}' after it; write {{ for a literal brace", s)
			}
			if lit.Len() > 0 {
				parts = append(parts, cachePart{text: lit.String()})
				lit.Reset()
			}
			parts = append(parts, cachePart{input: s[i+1 : i+end]})
			i += end
		case c == '}':
			return nil, fmt.Errorf("%q has a '}' with no opening '{'; write }} for a literal brace", s)
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 {
		parts = append(parts, cachePart{text: lit.String()})
	}
	return parts, nil
}

// cacheInputs are the tool's cache patterns for a call's values: one per
// value of each placeholder, each value quoted so that it names one path.
// A pattern whose placeholder has no value is left out.
func (t *tool) cacheInputs(vals map[string]json.RawMessage) []string {
	var out []string
	for _, parts := range t.cache {
		patterns := []string{""}
		for _, p := range parts {
			if p.input == "" {
				for i := range patterns {
					patterns[i] += p.text
				}
				continue
			}
			var values []string
			if raw, ok := vals[p.input]; ok {
				values, _ = flagValues(raw)
			}
			var next []string
			for _, prefix := range patterns {
				for _, v := range values {
					if v != "" {
						next = append(next, prefix+resultcache.Escape(v))
					}
				}
			}
			patterns = next
		}
		for _, p := range patterns {
			if p != "" {
				out = append(out, p)
			}
		}
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
