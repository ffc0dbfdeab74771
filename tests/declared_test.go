package tests

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/mcp"
)

// TestDeclaredOutput: a manifest tool's title, icons, annotations and
// outputSchema reach tools/list; a result that matches its outputSchema
// goes out as structuredContent, one that does not is an isError result
// naming each difference, with no structuredContent for strict clients to
// refuse.
func TestDeclaredOutput(t *testing.T) {
	c := serve(t, "--manifest", outputManifest)
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcp.Tool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
	}
	r := byName["report"]
	if r.Title != "Report" || !reflect.DeepEqual(r.Icons, []mcp.Icon{{Src: "https://example.com/standin.png", MimeType: "image/png", Sizes: []string{"48x48"}, Theme: "light"}}) {
		t.Errorf("report: title %q, icons %+v", r.Title, r.Icons)
	}
	if a := r.Annotations; a == nil || a.Title != "Stand-in report" || a.OpenWorldHint == nil || *a.OpenWorldHint || a.ReadOnlyHint == nil || !*a.ReadOnlyHint {
		t.Errorf("report annotations %+v", r.Annotations)
	}
	var schema map[string]any
	if err := json.Unmarshal(r.OutputSchema, &schema); err != nil || schema["type"] != "object" || schema["required"] == nil {
		t.Errorf("report outputSchema %s: %v", r.OutputSchema, err)
	}
	if a := byName["report_wrong"].Annotations; a == nil || *a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("report_wrong annotations %+v: readOnlyHint false and destructiveHint true from the annotations object", a)
	}
	if len(byName["print"].Icons) != 0 || byName["print"].OutputSchema != nil {
		t.Errorf("print declares nothing, got %+v", byName["print"])
	}

	sc := ok(t, callTool(t, c, "report", map[string]any{"words": []string{"a"}}))
	if sc["program"] != "standin" {
		t.Errorf("structuredContent %v", sc)
	}
	res := callTool(t, c, "report_wrong", map[string]any{"words": []string{"a", "b"}})
	if res.StructuredContent != nil {
		t.Error("a result that does not match its outputSchema keeps its structuredContent")
	}
	for _, want := range []string{"the result of tool report_wrong does not match its outputSchema",
		"- structuredContent.argv: more than 1 items", `- structuredContent: missing required property "version"`,
		"- structuredContent.program: expected integer, got string", `"program":"standin"`} {
		isError(t, res, want)
	}
	// Cut to the budget: not the JSON the schema describes.
	res = callTool(t, c, "report_wrong", map[string]any{"words": []string{"big"}})
	isError(t, res, "printed JSON longer than the output budget of 2000 characters")
	if res.StructuredContent != nil || res.Content[len(res.Content)-1].Type != "resource_link" {
		t.Errorf("cut result of a tool with an outputSchema: %+v", res.Content)
	}
}

// TestDeclaredOutputErrors: manifest check and serve refuse an
// outputSchema that is not a JSON Schema of an object, bad icons and
// annotations that contradict the fields, naming each place.
func TestDeclaredOutputErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.json")
	for _, tc := range []struct{ tool, want string }{
		{`"output":"json","outputSchema":{"type":"object","properties":{"n":{"type":"strin"}}}`,
			`tools[0].outputSchema.properties.n.type: invalid output schema: "strin" is not a JSON Schema type; use one of string, number, integer, boolean, object, array, null`},
		{`"output":"json","outputSchema":{"type":"array"}`, `tools[0].outputSchema: invalid output schema: must describe an object, with "type": "object"`},
		{`"output":"json","outputSchema":{"type":"object","required":"n"}`, `tools[0].outputSchema.required: invalid output schema: must be an array of strings`},
		{`"output":"json","outputSchema":[]`, `tools[0].outputSchema: invalid output schema: must describe an object`},
		{`"outputSchema":{"type":"object"}`, `tools[0].outputSchema: an outputSchema needs "output": "json"`},
		{`"icons":[{"src":"icon.png"}]`, `tools[0].icons[0].src: "icon.png" is not an https: URL or a data:image/ URI`},
		{`"icons":[{"src":"https://x/i.png","theme":"blue","sizes":["48"]}]`, `tools[0].icons[0].theme: "blue" is not a theme`},
		{`"icons":[{"mimeType":"image/png"}]`, `tools[0].icons[0]: missing "src"`},
		{`"readOnly":false,"annotations":{"readOnlyHint":true}`, `tools[0].annotations.readOnlyHint: true contradicts "readOnly": false; give the hint once`},
		{`"readOnly":true,"annotations":{"destructiveHint":true}`, `"destructive" and "idempotent" describe a tool that changes things, and this one is "readOnly": true`},
		{`"annotations":{"readOnlyHint":true},"idempotent":false`, `"destructive" and "idempotent" describe a tool that changes things, and this one is "readOnly": true`},
		{`"annotations":{"readOnly":true}`, `tools[0].annotations.readOnly: unknown field "readOnly"; the fields here are destructiveHint, idempotentHint, openWorldHint, readOnlyHint, title`},
	} {
		m := `{"tools":[{"name":"t","description":"d","command":["echo"],` + tc.tool + `}]}`
		if err := os.WriteFile(file, []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"manifest", "check", file}, {"serve", "--manifest", file}} {
			out, err := exec.Command(binPath, args...).CombinedOutput()
			code := -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if wantCode := map[string]int{"manifest": 1, "serve": 64}[args[0]]; code != wantCode || !strings.Contains(string(out), tc.want) {
				t.Errorf("%s with %s: exit %d, want %d and %q:\n%s", args[0], tc.tool, code, wantCode, tc.want, out)
			}
		}
	}
}
