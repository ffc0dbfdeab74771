package manifest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpship/mcpship/mcp"
)

// manyTools returns a manifest of n tools shaped like those of
// bench/cmd/manytools: a required string, an integer with a default, an
// array and a boolean flag.
func manyTools(n int) []byte {
	type input map[string]any
	tools := make([]map[string]any, n)
	for i := range tools {
		tools[i] = map[string]any{
			"name":        fmt.Sprintf("tool_%04d", i),
			"description": fmt.Sprintf("Tool number %d: check the files given and report what it finds.", i),
			"command":     []string{"echo", "{path}", "{count}", "{tags}", "{verbose}"},
			"inputs": map[string]input{
				"path":    {"required": true, "description": "the file to check"},
				"count":   {"type": "integer", "default": 10, "description": "how many findings at most"},
				"tags":    {"type": "array", "description": "tags to select"},
				"verbose": {"type": "boolean", "flag": "--verbose", "description": "say more"},
			},
		}
	}
	b, err := json.MarshalIndent(map[string]any{"tools": tools}, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkServe1000 measures what serve does with a manifest of 1,000
// tools before it answers: parse and check it, look for what would make
// calls fail (each of these tools has a number in a positional slot),
// register its tools, and answer initialize and one tools/list.
func BenchmarkServe1000(b *testing.B) {
	data := manyTools(1000)
	const list = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"
	b.ReportAllocs()
	for b.Loop() {
		m, err := Parse("m.json", data)
		if err != nil {
			b.Fatal(err)
		}
		if w := m.Warnings(); w == nil || len(w.List) != 1000 {
			b.Fatalf("warnings: %v", w)
		}
		srv := mcp.NewServer(mcp.Implementation{Name: "b", Version: "1"}, nil)
		if err := m.AddTools(srv); err != nil {
			b.Fatal(err)
		}
		var out strings.Builder
		if err := srv.Serve(context.Background(), strings.NewReader(list), &out); err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(out.String(), `"tool_0999"`) {
			b.Fatalf("tools/list: %.200s", out.String())
		}
	}
}
