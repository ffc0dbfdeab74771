package manifest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/mcpship/mcpship/mcp"
)

// compileDeclared checks what the tool declares about itself beyond its
// inputs: its annotations by their MCP names (merged into the fields
// readOnly, destructive, idempotent and openWorld), its output schema and
// its icons.
func (t *tool) compileDeclared(probs *problemList) {
	spec := t.spec
	if a := spec.Annotations; a != nil {
		at := t.path + ".annotations"
		for _, h := range []struct {
			field, hint string
			flat        **bool
			value       *bool
		}{
			{"readOnly", "readOnlyHint", &spec.ReadOnly, a.ReadOnlyHint},
			{"destructive", "destructiveHint", &spec.Destructive, a.DestructiveHint},
			{"idempotent", "idempotentHint", &spec.Idempotent, a.IdempotentHint},
			{"openWorld", "openWorldHint", &spec.OpenWorld, a.OpenWorldHint},
		} {
			switch {
			case h.value == nil:
			case *h.flat != nil && **h.flat != *h.value:
				probs.add(at+"."+h.hint, "%v contradicts \"%s\": %v; give the hint once", *h.value, h.field, **h.flat)
			default:
				*h.flat = h.value
			}
		}
	}
	if spec.OutputSchema != nil {
		at := t.path + ".outputSchema"
		raw, err := json.Marshal(spec.OutputSchema)
		switch {
		case err != nil:
			probs.add(at, "cannot be encoded: %v", err)
		case t.output != "json":
			probs.add(at, "an outputSchema needs \"output\": \"json\": only JSON output becomes structuredContent")
		default:
			if err := checkOutputSchema(raw); err != nil {
				// The mcp package names the place in the schema as
				// outputSchema.properties.n: put it in the manifest's path.
				msg := err.Error()
				where := at
				if rest, ok := strings.CutPrefix(msg, "outputSchema"); ok && strings.Contains(rest, ": ") {
					sub, text, _ := strings.Cut(rest, ": ")
					where, msg = at+sub, text
				}
				probs.add(where, "invalid output schema: %s", msg)
			} else {
				t.outputSchema = raw
			}
		}
	}
	for i, ic := range spec.Icons {
		at := fmt.Sprintf("%s.icons[%d]", t.path, i)
		switch {
		case ic.Src == "":
			probs.add(at, "missing \"src\": give the icon's https: URL or a data: URI")
		case !strings.HasPrefix(ic.Src, "https://") && !strings.HasPrefix(ic.Src, "data:image/"):
			probs.add(at+".src", "%q is not an https: URL or a data:image/ URI; clients fetch icons themselves, so a file path or an http: URL would not show", ic.Src)
		}
		if ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark" {
			probs.add(at+".theme", "%q is not a theme; use \"light\" or \"dark\", or leave it out", ic.Theme)
		}
		if ic.MimeType != "" && !strings.HasPrefix(ic.MimeType, "image/") {
			probs.add(at+".mimeType", "%q is not an image type, such as \"image/png\" or \"image/svg+xml\"", ic.MimeType)
		}
		for j, sz := range ic.Sizes {
			if !iconSize().MatchString(sz) {
				probs.add(fmt.Sprintf("%s.sizes[%d]", at, j), "%q is not a size; write WIDTHxHEIGHT, as \"48x48\", or \"any\"", sz)
			}
		}
		t.icons = append(t.icons, mcp.Icon{Src: ic.Src, MimeType: ic.MimeType, Sizes: ic.Sizes, Theme: ic.Theme})
	}
}

var iconSize = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([1-9][0-9]*x[1-9][0-9]*|any)$`) })

// checkOutputSchema checks raw as the mcp package does when the tool is
// registered (a JSON Schema of an object, which it can check results
// against), so that manifest check refuses what serve would.
func checkOutputSchema(raw json.RawMessage) error {
	srv := mcp.NewServer(mcp.Implementation{Name: "check", Version: "0"}, nil)
	err := srv.AddTool(mcp.Tool{Name: "check", OutputSchema: raw}, func(context.Context, *mcp.CallRequest) (*mcp.CallToolResult, error) {
		return nil, nil
	})
	if err != nil {
		_, msg, _ := strings.Cut(err.Error(), "outputSchema: ")
		return fmt.Errorf("%s", msg)
	}
	return nil
}
