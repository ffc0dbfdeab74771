// Package publish writes what carries a server to its users, besides the
// bundle itself (package mcpb): the official MCP Registry's server.json
// ([WriteServerJSON]), install links and one-line commands for the
// assistants that have them ([Links]), a Claude Code plugin
// ([WriteClaudePlugin]) and a Gemini CLI extension ([WriteGeminiExtension]).
//
// Every format starts a server the same way, described by an [Entry]: the
// command and arguments an assistant runs, as "mcpship init" registers
// them.
package publish
