// Package cobraadapter serves commands of a Cobra app as MCP tools,
// in-process: each call runs the app with a synthetic argv and its own
// captured output (the command's OutOrStdout and ErrOrStderr).
//
// The app comes from a constructor, func() *cobra.Command returning the
// root, called afresh for every call. Cobra keeps parsed flag values in
// the commands' flag sets, so one tree cannot run two calls at once, and
// a reused tree would carry values from one call into the next; a fresh
// tree per call avoids both, and calls run concurrently. Before each call
// the adapter also sets every flag of the tree to its default and marks
// it unchanged (a list takes its default back whole), so a call sees only
// the flags it gives, even in variables the flags are bound to. A
// constructor that returns the same tree every time, as in an app laid
// out as cobra-cli generates it (package-level commands, flags bound to
// package-level variables in init), works: its calls run one at a time.
// An app that builds a fresh tree but binds its flags to package-level
// variables, or whose commands share other global state, must set
// Options.Serial, which runs one call at a time. Commands print with cmd.Print*, cmd.OutOrStdout() and
// cmd.ErrOrStderr(); what they write to os.Stdout is not the tool's
// output (see Options.RedirectStdout).
//
// A flag becomes an input of the type of its pflag value: bool,
// string, int and uint of every size, float32 and float64, duration,
// count, and the slices and arrays of those; a flag of another type is a
// string input, passed to the flag as written. Flags marked with
// MarkFlagRequired are required inputs; hidden and deprecated flags are
// left out. Persistent flags of the command's parents are inputs too.
//
// A host app gets "mcp", "init", "remove" and "doctor" subcommands from
// one call to [Commands]:
//
//	func newRoot() *cobra.Command {
//		root := &cobra.Command{Use: "rigor"}
//		root.AddCommand(checkCmd(), baselineCmd())
//		root.AddCommand(cobraadapter.Commands(newRoot, cobraadapter.Options{
//			Prefix: "rigor_",
//			Tools:  []cobraadapter.Tool{{Command: "check", ReadOnly: true, Args: "paths", OKExitCodes: []int{0, 1}}},
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
package cobraadapter
