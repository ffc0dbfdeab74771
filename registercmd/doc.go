// Package registercmd provides the commands that register an MCP server
// with AI assistants, for urfave/cli/v2 apps: init, remove, restore, list
// and doctor. mcpship has them all; an app that serves its own commands
// over MCP (see package cliadapter) gets init, remove and doctor, which
// register the app itself.
//
// Every change to a config file goes through package installer: the rest
// of the file is kept byte for byte, a backup is taken first, and
// --dry-run prints the diff instead.
//
// Mistakes on the command line are errors that carry exit code 64
// (cli.ExitCoder, EX_USAGE); other failures are plain errors, exit code 1
// by convention. Messages name the program by the app's Name.
package registercmd
