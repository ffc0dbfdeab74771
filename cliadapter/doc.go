// Package cliadapter serves commands of a urfave/cli/v2 app as MCP tools,
// in-process: each call runs the app with a synthetic argv and its own
// captured Writer and ErrWriter.
//
// The app comes from a constructor, func() *cli.App, called afresh for
// every call. urfave/cli v2 keeps parsed flag state in the App and Command
// structs, so one App cannot run two calls at once, and a reused App can
// carry values from one call into the next; a fresh App per call avoids
// both, and calls run concurrently. An app whose flags write into shared
// (package-level) Destination variables, or whose actions share other
// global state, must set Options.Serial, which runs one call at a time.
//
// A host app gets its own "mcp" subcommand (and "init", once Options.Init
// is given) in one call:
//
//	func newApp() *cli.App {
//		app := &cli.App{Name: "rigor", Commands: []*cli.Command{checkCmd(), initCmd()}}
//		app.Commands = append(app.Commands, cliadapter.Commands(newApp, cliadapter.Options{
//			Prefix: "rigor_",
//			Tools:  []cliadapter.Tool{{Command: "check", Args: "paths", OKExitCodes: []int{0, 1}}},
//		})...)
//		return app
//	}
//
// Commands are opt-in: only those listed in Options.Tools are served, and
// those marked Write only when the server runs with --allow-write.
package cliadapter
