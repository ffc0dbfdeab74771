// Package register is the engine behind mcpship's init, remove, restore,
// list and doctor, and its tools and call, which start any stdio server,
// or a registered one, and list or call its tools from a shell. The
// public package registercmd gives an app its own init, remove and
// doctor on top of it.
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
package register
