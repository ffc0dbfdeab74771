package manifest

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/mcpship/mcpship/internal/resultcache"
	"github.com/mcpship/mcpship/mcp"
)

// cacheSpec is a checked Cache.
type cacheSpec struct {
	inputs []resultcache.Template
	errors bool
	disk   bool
}

// compileCache checks the tool's cache, which needs the tool's inputs
// and its readOnly.
func (t *tool) compileCache(probs *problemList) {
	c := t.spec.Cache
	if c == nil {
		return
	}
	at := t.path + ".cache"
	if !t.readOnly {
		probs.add(at, "a cache serves a stored result instead of running the command, which is right only for a read-only tool, "+
			"and this one is not declared \"readOnly\": true; declare it if the command changes nothing, or drop \"cache\"")
	}
	if len(c.Inputs) == 0 {
		probs.add(at, "no \"inputs\": list the files, folders and globs the result depends on, relative to the tool's "+
			"working directory, such as [\"{file}\", \"Gemfile.lock\", \"sig/\"]; without them no edit would ever be seen")
	}
	spec := &cacheSpec{errors: c.Errors, disk: c.Disk}
	for i, s := range c.Inputs {
		p := fmt.Sprintf("%s.inputs[%d]", at, i)
		tmpl, err := resultcache.ParseTemplate(s)
		if err != nil {
			probs.add(p, "%v", err)
			continue
		}
		for _, name := range tmpl.Names() {
			in, ok := t.inputs[name]
			switch {
			case !ok:
				probs.add(p, "{%s} names no input; declare it under \"inputs\" or fix the spelling (inputs: %s)", name, orNone(t.order))
			case in.Type == "object" || in.Type == "boolean":
				probs.add(p, "{%s} is a %s input, which names no file; use inputs whose values are paths", name, in.Type)
			}
		}
		spec.inputs = append(spec.inputs, tmpl)
	}
	t.cache = spec
}

// cached serves a call from the manifest's result cache, or runs it
// there.
func (t *tool) cached(ctx context.Context, req *mcp.CallRequest, vals map[string]any, prog string, argv, env []string) (*mcp.CallToolResult, error) {
	call, err := t.cacheCall(vals, prog, argv, env)
	if err != nil {
		t.m.results().Log("not caching this call", t.spec.Name, err)
		res, _, err := t.execute(ctx, req, prog, argv, env)
		return res, err
	}
	return t.m.results().Do(ctx, call, func() resultcache.Outcome {
		res, r, err := t.execute(ctx, req, prog, argv, env)
		if err != nil || r == nil {
			return resultcache.Outcome{Result: res, Err: err}
		}
		whole := r.startErr == nil && !r.timedOut && r.code >= 0 &&
			r.out.Stdout.Total() <= int64(t.maxOut) && r.out.Stderr.Total() <= int64(t.maxOut) &&
			!r.out.Cut // it links to an output the session keeps only for a while
		return resultcache.Outcome{Result: res, Keep: whole && (!res.IsError || t.cache.errors)}
	})
}

// cacheCall is the key and inputs of a call: the tool, the manifest's
// digest, the argv, the working directory, the environment the command
// gets, the executable's identity, and the input patterns.
func (t *tool) cacheCall(vals map[string]any, prog string, argv, env []string) (resultcache.Call, error) {
	exe, err := resultcache.FileID(prog)
	if err != nil {
		return resultcache.Call{}, err
	}
	dir := t.dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return resultcache.Call{}, err
		}
	}
	env = slices.Sorted(slices.Values(env))
	inputs := t.cacheInputs(vals)
	key := resultcache.MakeKey([]string{t.spec.Name, t.m.digest, exe, dir}, argv, env, inputs)
	return resultcache.Call{Tool: t.spec.Name, Key: key, Dir: dir, Inputs: inputs, Disk: t.cache.disk}, nil
}

// cacheInputs are the tool's cache inputs for a call's values: each
// template filled as [resultcache.Template.Expand] says, one path per
// item of an array input.
func (t *tool) cacheInputs(vals map[string]any) []string {
	values := func(name string) []string {
		v, given := vals[name]
		if !given {
			return nil
		}
		if list, ok := v.([]any); ok {
			out := make([]string, len(list))
			for i, x := range list {
				out[i] = scalarString(x)
			}
			return out
		}
		return []string{scalarString(v)}
	}
	var out []string
	for _, tmpl := range t.cache.inputs {
		out = append(out, tmpl.Expand(values)...)
	}
	return out
}

// results returns the manifest's result cache, made on first use.
func (m *Manifest) results() *resultcache.Cache {
	m.cache.once.Do(func() {
		m.cache.results = resultcache.New(resultcache.Options{Logger: m.Logger})
	})
	return m.cache.results
}

// CacheStats returns the counts of the manifest's result cache: zero
// until a tool with a cache is called.
func (m *Manifest) CacheStats() resultcache.Stats { return m.results().Stats() }
