// Package register is the engine behind mcpship's init, remove, restore
// and list, and add's registration ([Register]). Package probe, which
// starts servers (doctor, tools, call), reads what is registered through
// [Registered] and shows it as list does ([CommandLine], [Secrets]). The
// public package registercmd gives an app its own init, remove and
// doctor on top of both.
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
