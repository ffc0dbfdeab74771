package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpship/mcpship/mcp"
)

// result turns a run into the tool's result, by the policy of package
// toolresult.
func (t *tool) result(r *runResult) *mcp.CallToolResult {
	prog := t.program()
	var refused string
	if !r.timedOut && r.startErr == nil && r.workerErr == nil {
		refused = t.refused(r)
	}
	switch {
	case refused != "":
		return r.out.Error("%s", t.refusal(refused))
	case r.startErr != nil:
		return r.out.Error("cannot start %s: %v (working directory %q; see %s.dir in %s)", prog, r.startErr, t.dirName(), t.path, t.m.file)
	case r.workerErr != nil:
		return r.out.Error("%v", r.workerErr)
	case r.timedOut && r.warm:
		return r.out.Error("%s", t.warmTimeout())
	case r.timedOut:
		return r.out.Error("%s timed out after %v and was stopped (SIGTERM to its process group, SIGKILL after %v).", prog, t.timeout, KillGrace)
	case r.code < 0:
		return r.out.Error("%s was killed by a signal.", prog)
	case !slices.Contains(t.okCodes, r.code):
		return r.out.Error("%s exited with status %d.", prog, r.code)
	case t.output == "text":
		return r.out.Text(r.code)
	}
	var summary func(map[string]any) string
	if t.summary != nil {
		summary = func(obj map[string]any) string {
			var b strings.Builder
			if err := t.summary.Execute(&b, obj); err != nil {
				return fmt.Sprintf("(the summary template failed: %v)", err)
			}
			return b.String()
		}
	}
	res := r.out.JSON(prog, r.code, summary)
	if t.outputSchema != nil && !res.IsError && res.StructuredContent == nil {
		// Cut to the budget: what is left is not the JSON the schema
		// describes, and a result without structuredContent would break
		// clients that check it.
		res.IsError = true
		res.Content = append([]mcp.Content{{Type: "text", Text: fmt.Sprintf(
			"%s printed JSON longer than the output budget of %d characters (outputBudget in %s), so it cannot be given as structuredContent; the head and the tail follow, and the whole JSON is the resource named below.",
			prog, t.budget, t.m.file)}}, res.Content...)
	}
	return res
}

func (t *tool) dirName() string {
	if t.dir == "" {
		return "."
	}
	return t.dir
}
