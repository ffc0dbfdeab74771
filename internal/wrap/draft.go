package wrap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpship/mcpship/internal/manifest"
)

// Options bound and steer [Draft]. The zero value is ready to use.
type Options struct {
	// Allow names commands to draft although their names or help say
	// that they do not return (servers, shells, watchers), run what they
	// are given, or deploy, publish or push; and whose inputs that take
	// code or a command to run are offered: a command path as the user
	// types it ("db migrate", or the program's name for the program
	// itself) or a tool name ("prog_db_migrate"). Their tools are marked
	// "readOnly": false.
	Allow []string
	// MaxDepth is how many levels of subcommands are read below the
	// command given. Default 3.
	MaxDepth int
	// MaxRuns bounds the number of help runs. Default 100.
	MaxRuns int
	// Timeout bounds one help run. Default 5s.
	Timeout time.Duration
	// TotalTime bounds all help runs together. Default 60s.
	TotalTime time.Duration
	// ManifestDir is the directory the manifest will be written to: a
	// program given as a relative path is written relative to it, as
	// the manifest resolves it. Default: the working directory.
	ManifestDir string
}

// Result is a drafted manifest and what went into it.
type Result struct {
	// Manifest is the manifest, as JSON that manifest.Parse accepts.
	Manifest []byte
	// Tools are the names of its tools.
	Tools []string
	// Recognised says, per command read, which help layout it had and
	// what became of it.
	Recognised []string
	// Guessed lists the inputs whose type or shape is a guess.
	Guessed []string
	// Unread lists what could not be read: flags of no supported shape,
	// commands whose help failed, commands beyond the bounds.
	Unread []string
	// Review lists the tools drafted with "readOnly": false, and why:
	// nothing in their help says they only read, or something says they
	// change something. A client asks before each call of such a tool.
	Review []string
	// LeftOut lists the commands left out because they may not return,
	// run what they are given, or deploy, publish or push, and the inputs
	// left out because they run code or commands, or write in a
	// read-only tool, with how to add them.
	LeftOut []string
}

// Draft reads the help of the program argv[0] (of its subcommand
// argv[1:], when given) and of its subcommands, and drafts a manifest
// with one tool per command that has no subcommands of its own: read-only
// only when its help says it only reads (see docs/wrap.md). Help is read
// by running the program directly, never through a shell, with stdin on
// the null device and each run under Options.Timeout.
//
// Draft fails, and drafts nothing, when the program is not found or its
// help cannot be read: it times out or prints nothing that reads as
// help. A subcommand whose help cannot be read is reported in
// Result.Unread instead.
func Draft(ctx context.Context, argv []string, opts Options) (*Result, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("no program given")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, fmt.Errorf("program %q not found: %v; give its path, or install it", argv[0], errors.Unwrap(err))
	}
	return draft(ctx, argv, opts, runHelp)
}

// draft is Draft with the way of running help given.
func draft(ctx context.Context, argv []string, opts Options, run runFunc) (*Result, error) {
	opts.defaults()
	ctx, cancel := context.WithTimeout(ctx, opts.TotalTime)
	defer cancel()
	d := &drafter{ctx: ctx, opts: opts, prog: argv[0], res: &Result{}, names: map[string]bool{}, run: run, base: len(argv) - 1}
	root, err := d.read(argv[1:], nil)
	if err != nil {
		return nil, err
	}
	if len(root.help.commands) == 0 {
		if j := judgeCommand([]string{d.commandName(root.path)}, root.help.about); j.verdict == excluded {
			if !d.allowed(root.path) {
				d.res.LeftOut = append(d.res.LeftOut, fmt.Sprintf("%s: %s; to draft it, add --allow %q", d.cmdline(root.path), j.why, d.cmdline(root.path)))
				return nil, fmt.Errorf("no tool to draft: %s", noToolsReason(d.res))
			}
			root.allowed = true
		}
	}
	d.walk(root, "")
	d.reportOverRuns()
	return d.finish()
}

// runFunc runs a program for its help (runHelp).
type runFunc func(ctx context.Context, argv []string, timeout time.Duration) (string, error)

func (o *Options) defaults() {
	if o.MaxDepth == 0 {
		o.MaxDepth = 3
	}
	if o.MaxRuns == 0 {
		o.MaxRuns = 100
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	if o.TotalTime == 0 {
		o.TotalTime = 60 * time.Second
	}
}

// node is one command whose help was read.
type node struct {
	path    []string // subcommand names after the program
	help    *help
	text    string
	summary string // from the parent's list
	parents []*node
	allowed bool // left out as one that may not return or runs what it is given, and drafted because Options.Allow names it
}

type drafter struct {
	ctx   context.Context
	opts  Options
	prog  string
	run   runFunc
	base  int // the number of subcommand names given after the program
	runs  int
	how   int // which of helpForms worked for the program
	res   *Result
	tools []tool
	names map[string]bool
	// overRuns are the commands not read because of Options.MaxRuns.
	overRuns []string
}

// reportOverRuns lists the commands not read because of Options.MaxRuns:
// the first ten, then how many more, so a tree of thousands of commands
// gives a report that can be read.
func (d *drafter) reportOverRuns() {
	why := fmt.Sprintf("not read: the limit of %d help runs was reached", d.opts.MaxRuns)
	for i, line := range d.overRuns {
		if i == 10 {
			d.res.Unread = append(d.res.Unread, fmt.Sprintf("%d more commands (%s ... %s): %s; raise --max-runs, or draft one branch at a time: mcpship wrap -- %s",
				len(d.overRuns)-i, line, d.overRuns[len(d.overRuns)-1], why, line))
			return
		}
		d.res.Unread = append(d.res.Unread, line+": "+why)
	}
}

// helpForms are the ways of asking for help, tried in order.
var helpForms = []func(path []string) []string{
	func(p []string) []string { return append(slices.Clone(p), "--help") },
	func(p []string) []string { return append(slices.Clone(p), "-h") },
	func(p []string) []string { return append([]string{"help"}, p...) },
}

// read runs the command's help and reads it.
func (d *drafter) read(path []string, parent *node) (*node, error) {
	var tried []string
	forms := []int{d.how, 0, 1, 2}
	if parent != nil {
		// A subcommand is asked only the way the program answered: one
		// that did not understand it may have done its work instead,
		// and is not run again with another form.
		forms = forms[:1]
	}
	seen := map[int]bool{}
	var last error
	for _, i := range forms {
		if seen[i] {
			continue
		}
		seen[i] = true
		if d.runs >= d.opts.MaxRuns {
			return nil, fmt.Errorf("not read: the limit of %d help runs was reached", d.opts.MaxRuns)
		}
		argv := append([]string{d.prog}, helpForms[i](path)...)
		tried = append(tried, describeRun(argv))
		d.runs++
		text, err := d.run(d.ctx, argv, d.opts.Timeout)
		switch {
		case errors.Is(err, errTimeout) && d.ctx.Err() != nil:
			return nil, fmt.Errorf("not read: the %v for reading help ran out", d.opts.TotalTime)
		case errors.Is(err, errTimeout):
			return nil, fmt.Errorf("%s did not finish within %v (a program that waits for input or starts a server when asked for help cannot be drafted; write its manifest by hand, see docs/manifest.md)", describeRun(argv), d.opts.Timeout)
		case errors.Is(err, errTooLong):
			return nil, fmt.Errorf("%s %v; write its manifest by hand (docs/manifest.md)", describeRun(argv), err)
		case err != nil:
			return nil, fmt.Errorf("running %s: %v", describeRun(argv), err)
		}
		h := parseHelp(text)
		if !useful(h) {
			last = fmt.Errorf("%s printed nothing that reads as help", strings.Join(tried, ", "))
			continue
		}
		if parent != nil && text == parent.text {
			last = fmt.Errorf("%s printed its parent's help", strings.Join(tried, ", "))
			continue
		}
		if parent == nil {
			d.how = i
		}
		n := &node{path: path, help: h, text: text}
		if parent != nil {
			n.parents = append(slices.Clone(parent.parents), parent)
		}
		return n, nil
	}
	return nil, fmt.Errorf("%v (no usage line, flags or commands); write its manifest by hand (docs/manifest.md)", last)
}

// useful reports whether a help text said anything a draft can use.
func useful(h *help) bool {
	return h.layout != fallback || h.usage != "" || len(h.flags) > 0 || len(h.commands) > 0
}

func (d *drafter) cmdline(path []string) string {
	return strings.Join(append([]string{filepath.Base(d.prog)}, path...), " ")
}

// commandName is the name of the command at path: its last word, or the
// program's name.
func (d *drafter) commandName(path []string) string {
	if len(path) == 0 {
		return filepath.Base(d.prog)
	}
	return path[len(path)-1]
}

// usageDepth returns how many words after the program in a usage line
// are the names of the command at path: "git log [<options>]" has one,
// "python -m json.tool [-h]" two, and http.server's "server.py [-h]",
// read for "python3 -m http.server", none.
func usageDepth(usage string, path []string) int {
	groups := usageGroups(usage)
	i := 1
	for _, w := range path {
		if i < len(groups) && (groups[i] == w || reLiteral().MatchString(groups[i])) {
			i++
		}
	}
	return i - 1
}

var reLiteral = re(`^[a-z][a-z0-9._:-]*$`)

// walk drafts the command n and reads its subcommands, depth first.
func (d *drafter) walk(n *node, summary string) {
	n.summary = summary
	h := n.help
	if len(h.commands) == 0 {
		// In any form of its usage: ionice [options] <command>.
		positionals, _ := positionalsOf(n)
		forms := append([]string{h.usage}, h.forms...)
		for _, form := range forms {
			more, _ := usageArgs(form, h.layout, usageDepth(form, n.path))
			positionals = append(positionals, more...)
		}
		if why := runsCommands(positionals); why != "" && !n.allowed {
			if !d.allowed(n.path) {
				d.res.LeftOut = append(d.res.LeftOut, fmt.Sprintf("%s: %s; to draft it, add --allow %q", d.cmdline(n.path), why, d.cmdline(n.path)))
				return
			}
			n.allowed = true
		}
		var why string
		for _, form := range forms {
			if why = writingForm([]string{form}, usageDepth(form, n.path)); why != "" {
				break
			}
		}
		d.tool(n, why)
		return
	}
	d.res.Recognised = append(d.res.Recognised, fmt.Sprintf("%s: %s help; %s",
		d.cmdline(n.path), h.layout.name, commandsNote(h)))
	d.draftItself(n, summary)
	for _, c := range h.commands {
		path := append(slices.Clone(n.path), c.name)
		line := d.cmdline(path)
		j := judgeCommand(append([]string{c.name}, c.aliases...), c.summary)
		if j.verdict == excluded && !d.allowed(path) {
			d.res.LeftOut = append(d.res.LeftOut, fmt.Sprintf("%s: %s; to draft it, add --allow %q", line, j.why, strings.Join(path, " ")))
			continue
		}
		if len(path) > d.opts.MaxDepth+d.base {
			d.res.Unread = append(d.res.Unread, fmt.Sprintf("%s: not read: deeper than --max-depth %d; run mcpship wrap on it: mcpship wrap -- %s", line, d.opts.MaxDepth, line))
			continue
		}
		if d.runs >= d.opts.MaxRuns {
			d.overRuns = append(d.overRuns, line)
			continue
		}
		child, err := d.read(path, n)
		if err != nil {
			d.res.Unread = append(d.res.Unread, fmt.Sprintf("%s: %v", line, err))
			continue
		}
		child.allowed = j.verdict == excluded
		d.walk(child, c.summary)
	}
}

// allowed reports whether Options.Allow names the command.
func (d *drafter) allowed(path []string) bool {
	for _, a := range d.opts.Allow {
		if a == strings.Join(path, " ") || a == d.cmdline(path) || a == d.toolName(path) ||
			len(path) == 0 && a == filepath.Base(d.prog) {
			return true
		}
	}
	return false
}

// finish writes the manifest and checks it as mcpship serve would.
func (d *drafter) finish() (*Result, error) {
	if len(d.tools) == 0 {
		return nil, fmt.Errorf("no tool to draft: %s", noToolsReason(d.res))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	doc := struct {
		Comment string `json:"$comment"`
		Tools   []tool `json:"tools"`
	}{"Drafted by mcpship wrap from " + filepath.Base(d.prog) + "'s help; check every tool before serving it (docs/wrap.md).", d.tools}
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if _, err := manifest.Parse("draft", buf.Bytes()); err != nil {
		return nil, fmt.Errorf("the draft is not a valid manifest (a bug in mcpship wrap; please report it): %v", err)
	}
	d.res.Manifest = buf.Bytes()
	for _, t := range d.tools {
		d.res.Tools = append(d.res.Tools, t.Name)
	}
	return d.res, nil
}

func noToolsReason(r *Result) string {
	var lines []string
	lines = append(lines, r.LeftOut...)
	lines = append(lines, r.Unread...)
	if len(lines) == 0 {
		return "the help lists no commands"
	}
	return "every command was left out or could not be read:\n  " + strings.Join(lines, "\n  ")
}
