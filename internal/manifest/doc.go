// Package manifest serves command-line programs as MCP tools, declared in
// a JSON manifest: each tool names its inputs, the argv to run, and how to
// read the result. docs/manifest.md describes the format.
//
// A call never goes through a shell: every value is one argv element, a
// value in a positional slot that starts with '-' is refused unless the
// command has a literal "--" before it, stdin is the null device, and each
// call runs in its own process group, which is stopped (SIGTERM, then
// SIGKILL after KillGrace) when the call is cancelled or times out, and
// cleaned of leftovers when its leader exits. On Linux, processes that
// left the group are found by the call's MCPSHIP_CALL variable and
// stopped too (mcpship becomes a child subreaper to see them), and a
// running command gets SIGKILL if mcpship dies; docs/manifest.md says
// what each OS guarantees.
//
//	m, err := manifest.Load("mcpship.json") // err is *Problems when invalid
//	if err != nil { ... }
//	err = m.AddTools(srv)
package manifest
