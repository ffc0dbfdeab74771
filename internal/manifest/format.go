package manifest

import (
	"log/slog"
	"sync"
	"time"

	"github.com/mcpship/mcpship/internal/procgroup"
	"github.com/mcpship/mcpship/internal/resultcache"
	"github.com/mcpship/mcpship/internal/spill"
	"github.com/mcpship/mcpship/internal/toolresult"
	"github.com/mcpship/mcpship/internal/worker"
)

// Manifest is the decoded form of a manifest file. docs/manifest.md
// describes each field; the JSON names are given in the struct tags.
type Manifest struct {
	// Defaults apply to every tool that does not set the field itself.
	Defaults Settings `json:"defaults"`
	// Tools are served in this order.
	Tools []Tool `json:"tools"`

	// Description says in one line what the tools do, Version is their
	// semantic version and Author is "Name" or "Name <email>": what
	// mcpship pack takes for a bundle that its flags do not describe.
	Description string `json:"description"`
	Version     string `json:"version"`
	Author      string `json:"author"`

	// ProgressInterval is how long a running command may go without a
	// new stderr line before a call that gave a progressToken gets a
	// heartbeat (notifications/progress): the elapsed time and the last
	// line the command wrote to stderr. Each new line is reported as it
	// comes regardless. It is not read from the file. Default
	// DefaultProgressInterval.
	ProgressInterval time.Duration `json:"-"`
	// Logger receives what happens outside a call, such as a worker
	// that could not start, and the result cache's debug lines (a hit, a
	// miss and why, the counts). It is not read from the file; nil
	// discards.
	Logger *slog.Logger `json:"-"`
	// Outputs keeps the whole output of results cut to their budget, as
	// resources the results link to. It is not read from the file.
	// Default nil: nothing is kept, and the cut says so.
	Outputs *spill.Store `json:"-"`

	file    string       // the manifest's path, for messages
	dir     string       // its directory: relative dirs and programs resolve here
	tools   []*tool      // compiled, parallel to Tools
	running calls        // calls whose process group may still run
	workers worker.Set   // warm workers, by command, directory and environment
	probs   *problemList // positions, for Warnings
	digest  string       // of the file's bytes: a cached result's key has it
	cache   struct {
		once    sync.Once
		results *resultcache.Cache
	}
}

// Settings are the execution settings a tool takes from Manifest.Defaults
// unless it sets them itself.
type Settings struct {
	// Output is "text" (the default: stdout as text) or "json" (stdout
	// parsed as JSON into structuredContent).
	Output string `json:"output"`
	// Stderr says when what the command writes to stderr is in the
	// result: "errors" (the default: in isError results only; otherwise
	// it is reported as progress) or "always", for programs that report
	// findings there.
	Stderr string `json:"stderr"`
	// OKExitCodes are the exit codes that are a normal result; any other
	// makes the result an error (isError). Default [0].
	OKExitCodes []int `json:"okExitCodes"`
	// Dir is the working directory; a relative one is relative to the
	// manifest file. Default: mcpship's working directory.
	Dir string `json:"dir"`
	// Env sets environment variables for the command.
	Env map[string]string `json:"env"`
	// PassEnv names variables passed through from mcpship's environment,
	// on top of DefaultPassEnv. Nothing else is passed.
	PassEnv []string `json:"passEnv"`
	// Timeout bounds one call, as "30s" or "2m". Default DefaultTimeout.
	Timeout time.Duration `json:"timeout"`
	// MaxOutputBytes caps what is kept of stdout and of stderr each.
	// Default DefaultMaxOutputBytes.
	MaxOutputBytes int `json:"maxOutputBytes"`
	// OutputBudget is the most characters of text a result carries; a
	// longer one is cut to its head and tail, and the whole output kept
	// as a resource. Default DefaultOutputBudget, and
	// DefaultErrorBudget for isError results.
	OutputBudget int `json:"outputBudget"`
}

// Tool declares one MCP tool and the command it runs.
type Tool struct {
	// Name is the tool's name: 1 to 64 letters, digits, '_' or '-'.
	Name string `json:"name"`
	// Title is a short human-readable name.
	Title string `json:"title"`
	// Description says what the tool does and when to use it.
	Description string `json:"description"`
	// Command is the program and its arguments, one element per argument.
	// "{input}" placeholders are replaced by the call's values.
	Command []string `json:"command"`
	// Inputs are the tool's arguments, by name.
	Inputs map[string]*Input `json:"inputs"`
	// Summary is a Go text/template over the parsed JSON output, giving
	// the text shown next to structuredContent (output "json" only).
	Summary string `json:"summary"`
	// ReadOnly declares that the command changes nothing: clients may
	// then run it without asking. Default false, as MCP's readOnlyHint.
	ReadOnly *bool `json:"readOnly"`
	// Destructive becomes the MCP destructiveHint: a change may destroy
	// something (MCP's default, true). Not with ReadOnly.
	Destructive *bool `json:"destructive"`
	// Idempotent becomes the MCP idempotentHint: calling again with the
	// same arguments changes nothing more (MCP's default, false). Not
	// with ReadOnly.
	Idempotent *bool `json:"idempotent"`
	// OpenWorld becomes the MCP openWorldHint: the tool reaches outside
	// services (MCP's default, true).
	OpenWorld *bool `json:"openWorld"`
	// Worker keeps the program warm between calls; nil runs it cold,
	// one process per call.
	Worker *Worker `json:"worker"`
	// Annotations are the same hints by their MCP names, for authors who
	// write those, and the annotations' own title.
	Annotations *Annotations `json:"annotations"`
	// OutputSchema is a JSON Schema of the structuredContent (output
	// "json" only); a result that does not match it is an isError result.
	OutputSchema any `json:"outputSchema"`
	// Icons are images a client may show for the tool.
	Icons []Icon `json:"icons"`
	// Cache keeps the tool's results and serves them again while the
	// files they depend on are unchanged (read-only tools only).
	Cache *Cache `json:"cache"`
	// Confirm is a question, such as "Delete {path}?", that the user must
	// accept through the client before each call runs; {input}
	// placeholders show the call's values. Write-side tools only; see
	// package confirm.
	Confirm string `json:"confirm"`
	Settings
}

// Cache declares what a read-only tool's result depends on besides its
// command line, working directory, environment and executable, which are
// always part of the key.
type Cache struct {
	// Inputs are the files, folders ("sig/") and globs ("sig/**/*.rbs")
	// the result depends on, relative to the tool's working directory,
	// with {input} placeholders from the call. Required.
	Inputs []string `json:"inputs"`
	// Errors stores isError results too. Default false.
	Errors bool `json:"errors"`
	// Disk keeps entries on disk too, in the user's cache folder, so that
	// the next session finds them. Default false.
	Disk bool `json:"disk"`
}

// Input declares one argument of a tool.
type Input struct {
	// Type is string (the default), integer, number, boolean or array.
	Type string `json:"type"`
	// Description is shown to the model.
	Description string `json:"description"`
	// Required inputs must be given by the call (or by a default).
	Required bool `json:"required"`
	// Default is used when the call leaves the input out.
	Default any `json:"default"`
	// Enum lists the allowed values.
	Enum []any `json:"enum"`
	// Items is the type of an array's elements: string (the default),
	// integer or number.
	Items string `json:"items"`
	// Minimum is the smallest value an integer or number input (or each
	// item of an array of them) accepts.
	Minimum *float64 `json:"minimum"`
	// Flag is emitted before the value when the placeholder is a whole
	// argument: "--out" gives "--out" "VALUE", "--out=" gives
	// "--out=VALUE". A boolean emits the flag alone when true.
	Flag string `json:"flag"`
	// Env names an environment variable that receives the value.
	Env string `json:"env"`
}

// Defaults of the settings.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultMaxOutputBytes = 1 << 20
	// DefaultOutputBudget is the default of Settings.OutputBudget: under
	// the 50,000 characters past which Claude Code sets a result aside in
	// a file, and about 10,000 tokens, where it warns (docs/manifest.md
	// names the clients' limits).
	DefaultOutputBudget = toolresult.DefaultChars
	// DefaultErrorBudget is the budget of an isError result when the tool
	// sets none: Claude Code keeps only about 11,000 characters of one.
	DefaultErrorBudget = toolresult.DefaultErrorChars
	// KillGrace is how long a process group gets between SIGTERM and
	// SIGKILL when a call is cancelled or times out.
	KillGrace = procgroup.Grace
	// DefaultProgressInterval is the default of Manifest.ProgressInterval:
	// well inside the 60-second timeout that clients commonly reset on
	// progress.
	DefaultProgressInterval = 5 * time.Second
)

// DefaultPassEnv are the variables every tool passes through from
// mcpship's environment when they are set.
var DefaultPassEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ",
	// Windows needs these to start most programs.
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP",
	"USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
}

// Annotations are a tool's MCP annotations, by their MCP names.
type Annotations struct {
	Title           string `json:"title"`
	ReadOnlyHint    *bool  `json:"readOnlyHint"`
	DestructiveHint *bool  `json:"destructiveHint"`
	IdempotentHint  *bool  `json:"idempotentHint"`
	OpenWorldHint   *bool  `json:"openWorldHint"`
}

// Icon is an image for a tool, as MCP describes one.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType"`
	Sizes    []string `json:"sizes"`
	Theme    string   `json:"theme"`
}
