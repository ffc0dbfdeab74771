// Package registercmd provides the commands that register an MCP server
// with AI assistants, for urfave/cli/v2 apps: init, remove, restore, list
// and doctor; and tools and call, which start any stdio server, or a
// registered one, and list or call its tools from a shell. mcpship has
// them all; an app that serves its own commands over MCP (see package
// cliadapter) adds init, remove and doctor with [Commands], which
// register the app itself; a program on another framework (Cobra,
// urfave/cli v3) runs the same three with [Run].
//
// Every change to a config file goes through package installer: the rest
// of the file is kept byte for byte, a backup is taken first, and
// --dry-run prints the diff instead.
//
// Mistakes on the command line are errors that carry exit code 64
// (cli.Exit, EX_USAGE); other failures are plain errors, exit code 1 by
// convention. An error about a config file names the client and scope,
// what happened to what file, and what to do next. Messages name the
// program by the app's Name. docs/register.md has the exit-code table.
package registercmd
