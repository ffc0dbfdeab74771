package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

const numbersManifest = `{"defaults": {"output": "json"}, "tools": [
  {"name": "nums", "description": "Pass numbers.", "command": ["standin", "{count}", "{ids}", "--at={count}"],
   "inputs": {"count": {"type": "integer"}, "ids": {"type": "array", "items": "number", "minimum": 0}}}
]}`

// TestNumbersReachTheProgramExactly calls a manifest tool through the
// built binary with numbers in every spelling JSON allows: whole numbers
// reach the program as decimal integers, digit for digit, and a negative
// number in a positional slot is refused with the manifest's fix.
func TestNumbersReachTheProgramExactly(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mcpship.json")
	if err := os.WriteFile(file, []byte(numbersManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	c := serve(t, "--manifest", file)
	args := json.RawMessage(`{"count": 1e15, "ids": [100000000000000000000, 2.50, 1.5e3, 0.0]}`)
	wantArgv(t, callTool(t, c, "nums", args), "1000000000000000", "100000000000000000000", "2.50", "1500", "0", "--at=1000000000000000")
	isError(t, callTool(t, c, "nums", map[string]any{"count": -1}),
		`the value -1 is negative, and standin would read it as an option here, so this tool cannot pass it; use a value of 0 or more. `+
			`(The manifest can fix this: give the input a "flag", put "--" before it in "command", or declare "minimum": 0`)
	isError(t, callTool(t, c, "nums", map[string]any{"ids": []int{-1}}), "less than the minimum 0")
}
