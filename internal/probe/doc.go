// Package probe is the engine behind mcpship's doctor, tools and call:
// it starts a server as its client would (a registered one, found through
// package register, or any command), performs the MCP handshake, and
// checks it, lists its tools or calls one, showing the results in a
// terminal. A remote server is checked over streamable HTTP. What looks
// secret in a server's command line and its stderr is hidden, as list
// hides it.
//
// Mistakes on the command line are errors with exit code 64, failures
// exit code 1 and an interrupt 130; docs/tools.md has the table.
package probe
