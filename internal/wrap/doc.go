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
// bounds on depth, runs and time. A tool is read-only only when its help
// says it only reads; the others are drafted as not read-only and listed
// in [Result.Review]. Commands that do not return or run what they are
// given, and inputs that take code or commands, are left out unless
// [Options.Allow] names them. [Result] says what was recognised, what was
// guessed, what could not be read and what was left out; docs/wrap.md
// describes each layout and how the safety decision is made.
//
//	res, err := wrap.Draft(ctx, []string{"yamllint"}, wrap.Options{})
//	if err != nil { ... }           // not found, or no readable help
//	os.WriteFile("mcpship.json", res.Manifest, 0o644)
package wrap
