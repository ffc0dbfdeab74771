// Package cliv3adapter serves commands of a urfave/cli/v3 app as MCP
// tools, in-process: each call runs the app with a synthetic argv and its
// own captured Writer and ErrWriter.
//
// The app comes from a constructor, func() *cli.Command returning the
// root, called afresh for every call. urfave/cli keeps parsed flag state
// in the Command and Flag structs, so one tree cannot run two calls at
// once, and a reused tree can carry values from one call into the next; a
// fresh tree per call avoids both, and calls run concurrently. Each call
// sees only the flags it gives, the others at their defaults, even in
// Destination variables shared by every tree (package-level ones):
// urfave/cli sets those to their defaults on each run. Two calls at once
// would still write the same variables, so an app whose flags write into
// shared Destination variables, or whose actions share other global
// state, must set Options.Serial, which runs one call at a time.
//
// A flag becomes an input of the type of its value: bool, string, int
// and uint of every size, float32 and float64, time.Duration, and the
// slices of those; flags of other types (timestamps, maps, generic
// values) are left out and keep their defaults, as are hidden flags.
// Required flags are required inputs. A flag of a parent command that is
// not Local is an input of its subcommands' tools too, as v3 applies it to
// them.
//
// A host app gets "mcp", "init", "remove" and "doctor" subcommands from
// one call to [Commands]:
//
//	func newRoot() *cli.Command {
//		root := &cli.Command{Name: "rigor", Commands: []*cli.Command{checkCmd(), baselineCmd()}}
//		root.Commands = append(root.Commands, cliv3adapter.Commands(newRoot, cliv3adapter.Options{
//			Prefix: "rigor_",
//			Tools:  []cliv3adapter.Tool{{Command: "check", ReadOnly: true, Args: "paths", OKExitCodes: []int{0, 1}}},
//		})...)
//		return root
//	}
//
// "rigor mcp" serves; "rigor init" registers the absolute path of the
// running binary with the argument "mcp", under the name "rigor", for
// Claude Code in the project (--client, --all, --scope and --name choose
// otherwise); "rigor doctor" starts it as the assistant would and lists
// its tools; "rigor remove" takes it out again. The last three are the
// commands of package registercmd, run through [registercmd.Run], so they
// are the same in every program: their flags and help are mcpship's.
//
// Commands are opt-in: only those listed in Options.Tools are served, and
// those not marked ReadOnly only when the server runs with --allow-write.
package cliv3adapter
