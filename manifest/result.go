package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpship/mcpship/mcp"
)

// result turns a run into the tool's result.
func (t *tool) result(r *runResult) *mcp.CallToolResult {
	prog := t.program()
	switch {
	case r.startErr != nil:
		return mcp.ErrorResult("cannot start %s: %v (working directory %q; see %s.dir in %s)", prog, r.startErr, t.dirName(), t.path, t.m.file)
	case r.timedOut:
		return mcp.ErrorResult("%s timed out after %v and was stopped (SIGTERM to its process group, SIGKILL after %v).%s",
			prog, t.timeout, KillGrace, t.streams(r))
	case r.code < 0:
		return mcp.ErrorResult("%s was killed by a signal.%s", prog, t.streams(r))
	case !slices.Contains(t.okCodes, r.code):
		return mcp.ErrorResult("%s exited with status %d.%s", prog, r.code, t.streams(r))
	}
	status := ""
	if r.code != 0 {
		status = fmt.Sprintf(" (exit status %d)", r.code)
	}
	if t.output == "text" {
		text := string(r.stdout.buf) + t.truncation(&r.stdout, "stdout")
		if text == "" {
			text = "(no output)"
		}
		return mcp.TextResult(text + status)
	}
	if r.stdout.truncated() {
		return mcp.ErrorResult("%s printed %d bytes of JSON, more than the %d this tool keeps (maxOutputBytes in %s); narrow the request or raise the limit.",
			prog, r.stdout.total, t.maxOut, t.m.file)
	}
	dec := json.NewDecoder(bytes.NewReader(r.stdout.buf))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return mcp.ErrorResult("%s was expected to print JSON but printed something else (%v).%s", prog, describeErr(err), t.streams(r))
	}
	obj, ok := v.(map[string]any)
	if !ok { // structuredContent must be an object
		obj = map[string]any{"result": v}
	}
	raw, _ := json.Marshal(obj)
	res := &mcp.CallToolResult{StructuredContent: obj}
	if t.summary != nil {
		var b strings.Builder
		if err := t.summary.Execute(&b, obj); err != nil {
			b.Reset()
			fmt.Fprintf(&b, "(the summary template failed: %v)", err)
		}
		res.Content = append(res.Content, mcp.Content{Type: "text", Text: b.String() + status})
	}
	res.Content = append(res.Content, mcp.Content{Type: "text", Text: string(raw)})
	return res
}

func describeErr(err error) string {
	if err == nil {
		return "more than one JSON value"
	}
	return err.Error()
}

func (t *tool) dirName() string {
	if t.dir == "" {
		return "."
	}
	return t.dir
}

// streams formats stderr and stdout for an error result.
func (t *tool) streams(r *runResult) string {
	var b strings.Builder
	for _, s := range []struct {
		name string
		buf  *capBuffer
	}{{"stderr", &r.stderr}, {"stdout", &r.stdout}} {
		if s.buf.total == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n%s%s", s.name, strings.TrimRight(string(s.buf.buf), "\n"), t.truncation(s.buf, s.name))
	}
	return b.String()
}

// truncation says how much of a stream was dropped, or is "".
func (t *tool) truncation(b *capBuffer, name string) string {
	if !b.truncated() {
		return ""
	}
	return fmt.Sprintf("\n[%s truncated: %d of %d bytes shown; maxOutputBytes is %d]", name, len(b.buf), b.total, t.maxOut)
}
