package cliadapter

import "github.com/mcpship/mcpship/internal/clitool"

// Options choose which commands of an app become tools, and how they run.
type Options struct {
	// Prefix is put before every tool name, as "rigor_" in rigor_check.
	Prefix string
	// Tools lists the commands to serve. Nothing else is served.
	Tools []Tool
	// AllowWrite serves the tools not marked ReadOnly as well. The "mcp"
	// subcommand sets it from its --allow-write flag.
	AllowWrite bool
	// Serial runs one call at a time, for apps whose flags write to
	// shared Destination variables or whose actions share global state.
	// Each call sees only its own flags either way.
	Serial bool
	// ExitCode maps the error the app returns to an exit code. Default:
	// the code of an error with an ExitCode method, such as a
	// cli.ExitCoder, else 1 (and 0 for no error).
	ExitCode func(error) int
	// MaxOutputBytes caps what is kept of each call's output and of its
	// error output. Default 1 MiB.
	MaxOutputBytes int
	// RedirectStdout makes the "mcp" command point the variable os.Stdout
	// at os.Stderr while it serves, for apps whose commands print to
	// os.Stdout rather than to their App's Writer: such prints would
	// otherwise go into the protocol stream. It changes a global of the
	// process, so it is off unless asked. See [mcp.StdioOptions].
	RedirectStdout bool
}

// Tool chooses one command and shapes its tool.
type Tool struct {
	// Command is the command's path below the app, such as "check" or
	// "db status"; "" is the app's own action.
	Command string
	// Name is the tool's name after Options.Prefix. Default: the
	// command's path, its names rather than aliases, with each character
	// other than a letter or digit turned into '_' (the app's name for "").
	Name string
	// Title and Description default to the command's Usage, and its
	// Usage and Description.
	Title, Description string
	// Args names the array input that carries positional arguments.
	// Default "args".
	Args string
	// NoArgs leaves positional arguments out, for commands that take none.
	NoArgs bool
	// Exclude names flags to leave out of the tool, such as "follow".
	Exclude []string
	// Enum gives the values a string flag accepts, by flag name, such as
	// {"format": {"json", "text"}}: the input lists them, and a call with
	// another value is refused before the command runs.
	Enum map[string][]string
	// OKExitCodes are the exit codes that are a normal result; any other
	// makes the result an error (isError). Default [0].
	OKExitCodes []int
	// JSON says the command prints JSON, at least when asked (such as
	// with a --json flag): output that is one whole JSON object goes into
	// structuredContent, an array v as {"result": v}; other output is
	// text, as without JSON.
	JSON bool
	// ReadOnly declares that the command changes nothing: it is served
	// without AllowWrite, and announced read-only (MCP's readOnlyHint),
	// so clients may run it without asking. A command not marked ReadOnly
	// may change things: it is served only with AllowWrite, and
	// announced with MCP's defaults for a tool that writes, so clients
	// ask before each call. Default false.
	ReadOnly bool
	// Cache lists the files, folders ("sig/") and globs ("sig/**/*.rbs")
	// the command's result depends on, relative to the working directory,
	// with {name} placeholders for the call's flags and positional input
	// ({args}), as a manifest's "cache" inputs (docs/manifest.md). When
	// set, a result is kept and an identical call is answered with it,
	// without running the command, while those files are unchanged and
	// the call's command line, the working directory, the environment and
	// the executable are the same. Errors and cut output are never kept.
	// Only for a command marked ReadOnly.
	Cache []string
	// OutputBudget is the most characters of text a result carries, 1,000
	// to 67,108,864. A longer result is cut to its head and its tail, with
	// a note saying how much was cut; under the "mcp" subcommand the whole
	// output is kept as a resource of the session, which the note names
	// and the result links to (resource_link), for resources/read. With
	// AddTools on a server of your own, nothing is kept and the note says
	// so. Default 40,000 (10,000 for an isError result), as for manifest
	// tools; setting it sets both.
	OutputBudget int
	// Confirm is a question, such as "Delete {args}?", that the user must
	// accept through the client before each call runs, with {name}
	// placeholders for the call's flags and positional input, each value
	// quoted. It is asked as a form elicitation (revisions 2025-06-18 on);
	// a decline, a cancel, no answer or a client that cannot ask ends the
	// call with an isError result, and the command does not run, as for a
	// manifest's "confirm" (docs/manifest.md). Not with ReadOnly.
	Confirm string
}

// shared returns the options and tools as package clitool takes them.
func (o *Options) shared() (clitool.Options, []clitool.Tool) {
	tools := make([]clitool.Tool, len(o.Tools))
	for i, t := range o.Tools {
		tools[i] = clitool.Tool(t)
	}
	return clitool.Options{Prefix: o.Prefix, AllowWrite: o.AllowWrite, Serial: o.Serial, ExitCode: o.ExitCode, MaxOutputBytes: o.MaxOutputBytes}, tools
}
