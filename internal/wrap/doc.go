// Package wrap drafts a manifest (see package manifest) for a command-line
// program by reading its own help: the commands and subcommands it lists,
// each command's flags with their types, enums, lists and defaults, its
// positional arguments and descriptions. It recognises the help layouts of
// Cobra (and kubectl's templates for it), urfave/cli v2 and v3, Go's flag
// package, Python's argparse and Click, and Rust's clap, and reads
// anything else conservatively.
//
// Help is read by running the program directly, never through a shell,
// with stdin on the null device, under a timeout, and subcommands within
// bounds on depth, runs and time. Commands and flags that look like they
// write, delete, push, deploy, run other commands or do not return are
// left out unless [Options.Allow] names them. [Result] says what was
// recognised, what was guessed, what could not be read and what was left
// out; docs/wrap.md describes each layout.
//
//	res, err := wrap.Draft(ctx, []string{"yamllint"}, wrap.Options{})
//	if err != nil { ... }           // not found, or no readable help
//	os.WriteFile("mcpship.json", res.Manifest, 0o644)
package wrap
