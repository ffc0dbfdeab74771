// Package cliadapter serves commands of a urfave/cli/v2 app as MCP tools,
// in-process: each call runs the app with a synthetic argv and its own
// captured Writer and ErrWriter.
//
// The app comes from a constructor, func() *cli.App, called afresh for
// every call. urfave/cli v2 keeps parsed flag state in the App and Command
// structs, so one App cannot run two calls at once, and a reused App can
// carry values from one call into the next; a fresh App per call avoids
// both, and calls run concurrently. Each call sees only the flags it
// gives, the others at their defaults, even in Destination variables
// shared by every App (package-level ones): urfave/cli sets those to
// their defaults on each run, and the adapter empties the lists among
// them before it. Two calls at once would still write the same
// variables, so an app whose flags write into shared Destination
// variables, or whose actions share other global state, must set
// Options.Serial, which runs one call at a time.
//
// A host app gets its own "mcp" subcommand from [Commands], and from
// package registercmd the "init", "remove" and "doctor" subcommands that
// register it with AI assistants:
//
//	func newApp() *cli.App {
//		app := &cli.App{Name: "rigor", Commands: []*cli.Command{checkCmd(), baselineCmd()}}
//		app.Commands = append(app.Commands, cliadapter.Commands(newApp, cliadapter.Options{
//			Prefix: "rigor_",
//			Tools:  []cliadapter.Tool{{Command: "check", ReadOnly: true, Args: "paths", OKExitCodes: []int{0, 1}}},
//		})...)
//		app.Commands = append(app.Commands, registercmd.Commands(registercmd.Program{Args: []string{"mcp"}})...)
//		return app
//	}
//
// "rigor init" then registers the absolute path of the running binary with
// the argument "mcp", under the name "rigor", for Claude Code in the
// project (--client, --all, --scope and --name choose otherwise), and
// "rigor doctor" starts it as the assistant would and lists its tools.
// The registration commands live apart so that an app without them does
// not link the config editors. An app that has commands of those names
// already, or wants other names, can build them with
// [github.com/mcpship/mcpship/registercmd.Init], Remove and Doctor itself.
//
// Commands are opt-in: only those listed in Options.Tools are served, and
// those not marked ReadOnly only when the server runs with --allow-write.
//
// Packages cobraadapter and cliv3adapter do the same, with the same
// Options and Tool, for Cobra and urfave/cli v3 apps.
package cliadapter
