package wrap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/manifest"
)

// helpsOf answers help runs with the captured help texts of testdata/help:
// "yq eval --help" is served from the file named in texts["yq eval"].
// Any other run prints nothing.
func helpsOf(t *testing.T, texts map[string]string) (runFunc, *[]string) {
	t.Helper()
	var runs []string
	return func(_ context.Context, argv []string, _ time.Duration) (string, error) {
		runs = append(runs, strings.Join(argv, " "))
		if argv[len(argv)-1] != "--help" && argv[len(argv)-1] != "-h" {
			return "", nil
		}
		file, ok := texts[strings.Join(argv[:len(argv)-1], " ")]
		if !ok {
			return "", nil
		}
		b, err := os.ReadFile("testdata/help/" + file + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		return string(b), nil
	}, &runs
}

// decoded is a drafted manifest, as JSON values.
type decoded struct {
	Tools []struct {
		Name        string
		Description string
		Command     []string
		Inputs      map[string]map[string]any
		ReadOnly    *bool
	}
}

func decode(t *testing.T, res *Result) decoded {
	t.Helper()
	var m decoded
	if err := json.Unmarshal(res.Manifest, &m); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Parse("draft.json", res.Manifest); err != nil {
		t.Fatalf("the draft does not pass manifest check: %v", err)
	}
	return m
}

func TestDraftClickGroup(t *testing.T) {
	run, _ := helpsOf(t, map[string]string{"flask": "click-flask", "flask routes": "click-flask-routes"})
	res, err := draft(context.Background(), []string{"flask"}, Options{}, run)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, res)
	if len(m.Tools) != 1 {
		t.Fatalf("tools: %+v", m.Tools)
	}
	tl := m.Tools[0]
	// The group's own options come before the subcommand, as Click wants
	// them; --app imports the module it names, so it runs code.
	want := []string{"flask", "{env-file}", "{debug}", "routes", "{sort}", "{all-methods}"}
	if tl.Name != "flask_routes" || !reflect.DeepEqual(tl.Command, want) {
		t.Errorf("got %s %q, want flask_routes %q", tl.Name, tl.Command, want)
	}
	wantInputs := map[string]map[string]any{
		"sort":        {"enum": []any{"endpoint", "methods", "rule", "match"}, "flag": "--sort="},
		"all-methods": {"type": "boolean", "flag": "--all-methods"},
		"debug":       {"type": "boolean", "flag": "--debug"},
	}
	for name, want := range wantInputs {
		for k, v := range want {
			if got := tl.Inputs[name][k]; !reflect.DeepEqual(got, v) {
				t.Errorf("input %s: %s is %v, want %v", name, k, got, v)
			}
		}
	}
	if tl.ReadOnly == nil || !*tl.ReadOnly || tl.Description != "Show all registered routes with endpoints and methods." {
		t.Errorf("readOnly %v, description %q", tl.ReadOnly, tl.Description)
	}
	wantLeftOut := []string{
		`flask routes -A/--app: runs code or commands (its help says "The Flask application or factory function to load, in the..."); to offer it, add --allow "flask routes"`,
		`flask run: its name says run; to draft it, add --allow "run"`,
		`flask shell: its name says shell; to draft it, add --allow "shell"`,
	}
	if !reflect.DeepEqual(res.LeftOut, wantLeftOut) {
		t.Errorf("left out:\n%s\nwant:\n%s", strings.Join(res.LeftOut, "\n"), strings.Join(wantLeftOut, "\n"))
	}
}

func TestDraftCobraInheritedFlagsFollowTheSubcommand(t *testing.T) {
	run, _ := helpsOf(t, map[string]string{"yq": "cobra-yq", "yq eval": "cobra-yq-eval", "yq eval-all": "cobra-yq-eval"})
	res, err := draft(context.Background(), []string{"yq"}, Options{}, run)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, res)
	// yq runs eval when given no command ("yq [flags]"): a tool too.
	if got := res.Tools; !reflect.DeepEqual(got, []string{"yq", "yq_eval", "yq_eval-all"}) {
		t.Fatalf("tools %q", got)
	}
	c := m.Tools[1].Command
	if c[0] != "yq" || c[1] != "eval" || !strings.HasPrefix(c[2], "{") {
		t.Errorf("command %q: want the persistent flags after the subcommand", c)
	}
	tail := c[len(c)-3:]
	if !reflect.DeepEqual(tail, []string{"--", "{expression_arg}", "{yaml_file1}"}) {
		t.Errorf("positionals %q: want -- then the expression and the files", tail)
	}
	in := m.Tools[1].Inputs
	for name, want := range map[string]map[string]any{
		"indent":         {"type": "integer", "flag": "--indent="},
		"colors":         {"type": "boolean", "flag": "--colors="}, // pflag reads --colors=false
		"yaml_file1":     {"type": "array"},
		"expression_arg": {"description": nil},
		"prettyPrint":    {"type": "boolean"},
	} {
		for k, v := range want {
			if got := in[name][k]; !reflect.DeepEqual(got, v) {
				t.Errorf("input %s: %s is %v, want %v", name, k, got, v)
			}
		}
	}
	// "Apply the expression to each document" does not say it only
	// reads: the tool is not read-only, and so may offer --inplace.
	if ro := m.Tools[0].ReadOnly; ro == nil || *ro || in["inplace"] == nil {
		t.Errorf("yq_eval: readOnly %v, inplace %v: want a tool that is not read-only, with --inplace", ro, in["inplace"])
	}
	if want := `yq eval (tool yq_eval): its help says "apply"`; !slices.ContainsFunc(res.Review, func(s string) bool { return strings.HasPrefix(s, want) }) {
		t.Errorf("review:\n%s\nwant %q", strings.Join(res.Review, "\n"), want)
	}
	// Its --output-format takes json: the draft sets it.
	if _, ok := in["output-format"]; ok || !slices.Contains(c, "--output-format=json") {
		t.Errorf("command %q: want --output-format=json set, and no input for it", c)
	}
}

func TestDraftURFaveV3GlobalFlags(t *testing.T) {
	run, _ := helpsOf(t, map[string]string{"builder": "urfave3-builder", "builder vet": "urfave3-builder-vet"})
	res, err := draft(context.Background(), []string{"builder"}, Options{}, run)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, res)
	if m.Tools[0].Name != "builder_vet" {
		t.Fatalf("tools %q", res.Tools)
	}
	want := []string{"builder", "vet", "{tags}", "{top-dir}", "{packages}"}
	if !reflect.DeepEqual(m.Tools[0].Command, want) {
		t.Errorf("command %q, want %q", m.Tools[0].Command, want)
	}
	if got := m.Tools[0].Inputs["packages"]["type"]; got != "array" {
		t.Errorf("packages: type %v, want array", got)
	}
	// The other commands printed no help here: each is reported, not drafted.
	unread := strings.Join(res.Unread, "\n")
	for _, c := range []string{"builder test", "builder lint", "builder v3diff"} {
		if !strings.Contains(unread, c+`: "builder `) {
			t.Errorf("%s is not reported as unread:\n%s", c, unread)
		}
	}
	// Commands that change something are drafted (here: read, and
	// reported unread); one that deploys is left out.
	for _, c := range []string{"generate", "ensure-goimports", "set-mkdocs-remote"} {
		if !strings.Contains(unread, "builder "+c+`: "builder `) {
			t.Errorf("%s is not read:\n%s", c, unread)
		}
	}
	if leftOut := strings.Join(res.LeftOut, "\n"); leftOut != `builder deploy-mkdocs: its name says deploy; to draft it, add --allow "deploy-mkdocs"` {
		t.Errorf("left out:\n%s", leftOut)
	}
}

func TestDraftMarksWriteTools(t *testing.T) {
	run, _ := helpsOf(t, map[string]string{"swag": "urfave2-swag", "swag init": "urfave2-swag-init"})
	res, err := draft(context.Background(), []string{"swag"}, Options{}, run)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, res)
	tl := m.Tools[0]
	if tl.Name != "swag_init" || tl.ReadOnly == nil || *tl.ReadOnly {
		t.Errorf("%s readOnly %v: want swag_init marked readOnly false", tl.Name, tl.ReadOnly)
	}
	if want := "swag init (tool swag_init): its name says init"; !slices.Contains(res.Review, want) {
		t.Errorf("review:\n%s\nwant %q", strings.Join(res.Review, "\n"), want)
	}
	for name, want := range map[string]map[string]any{
		"parseDepth":  {"type": "integer"},
		"packageName": {"flag": "--packageName="},
		"quiet":       {"type": "boolean", "flag": "--quiet="},
		"args":        {"type": "array"},
	} {
		for k, v := range want {
			if got := tl.Inputs[name][k]; !reflect.DeepEqual(got, v) {
				t.Errorf("input %s: %s is %v, want %v", name, k, got, v)
			}
		}
	}
	if !strings.Contains(strings.Join(res.Guessed, "\n"), "swag init --parseDepth: an integer, from its default 100") {
		t.Errorf("guessed:\n%s", strings.Join(res.Guessed, "\n"))
	}
}

func TestDraftBounds(t *testing.T) {
	texts := map[string]string{"reuse": "argparse-reuse"}
	for _, c := range []string{"annotate", "lint", "spdx", "supported-licenses"} {
		texts["reuse "+c] = "argparse-reuse-spdx"
	}
	run, runs := helpsOf(t, texts)
	res, err := draft(context.Background(), []string{"reuse"}, Options{MaxRuns: 2}, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(*runs) != 2 || len(res.Tools) != 1 {
		t.Errorf("%d runs (%q), tools %q: want 2 runs and 1 tool", len(*runs), *runs, res.Tools)
	}
	want := "reuse spdx: not read: the limit of 2 help runs was reached"
	if !strings.Contains(strings.Join(res.Unread, "\n"), want) {
		t.Errorf("unread:\n%s\nwant a line %q", strings.Join(res.Unread, "\n"), want)
	}

	_, err = draft(context.Background(), []string{"reuse"}, Options{MaxDepth: 1}, run)
	if err != nil {
		t.Fatal(err)
	}
	res, err = draft(context.Background(), []string{"reuse", "lint"}, Options{}, run)
	if err != nil || !reflect.DeepEqual(res.Tools, []string{"reuse_lint"}) {
		t.Errorf("reuse lint: %v, %q", err, res.Tools)
	}
}

func TestDraftRefusesWhatItCannotRead(t *testing.T) {
	nothing := func(context.Context, []string, time.Duration) (string, error) { return "ok\n", nil }
	_, err := draft(context.Background(), []string{"quiet"}, Options{}, nothing)
	want := `"quiet --help", "quiet -h", "quiet help" printed nothing that reads as help`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	slow := func(context.Context, []string, time.Duration) (string, error) { return "", errTimeout }
	_, err = draft(context.Background(), []string{"slow"}, Options{Timeout: time.Second}, slow)
	if err == nil || !strings.Contains(err.Error(), `"slow --help" did not finish within 1s`) {
		t.Errorf("got %v", err)
	}
	failed := func(context.Context, []string, time.Duration) (string, error) {
		return "", errors.New("exec format error")
	}
	_, err = draft(context.Background(), []string{"bad"}, Options{}, failed)
	if err == nil || !strings.Contains(err.Error(), `running "bad --help": exec format error`) {
		t.Errorf("got %v", err)
	}
	_, err = Draft(context.Background(), []string{"mcpship-no-such-program"}, Options{})
	if err == nil || !strings.Contains(err.Error(), `program "mcpship-no-such-program" not found`) {
		t.Errorf("got %v", err)
	}
}

func TestDraftGoFlagPositionals(t *testing.T) {
	for _, c := range []struct {
		help, prog string
		tail       []string
	}{
		{"goflag-actionlint", "actionlint", []string{"--", "{files}"}},
		{"goflag-staticcheck", "staticcheck", []string{"--", "{packages}"}},
		{"goflag-duf", "duf", []string{"--", "{args}"}}, // no usage line: guessed
		{"clap-hyperfine", "hyperfine", nil},            // runs the commands it is given: left out
		{"argparse-yamllint", "yamllint", []string{"--", "{file_or_dir}"}},
		{"click-black", "black", []string{"--", "{src}"}}, // a formatter: drafted, not read-only
	} {
		run, _ := helpsOf(t, map[string]string{c.prog: c.help})
		res, err := draft(context.Background(), []string{c.prog}, Options{}, run)
		if c.tail == nil {
			if err == nil || !strings.Contains(err.Error(), "to draft it, add --allow") {
				t.Errorf("%s: %v, want it left out", c.prog, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.prog, err)
		}
		cmd := decode(t, res).Tools[0].Command
		if got := cmd[len(cmd)-len(c.tail):]; !reflect.DeepEqual(got, c.tail) {
			t.Errorf("%s: command ends %q, want %q", c.prog, got, c.tail)
		}
	}
}

// A command whose positional argument is a command to run (git's
// "<command> [<args>]", ionice's "<command>", hyperfine's "<command>...")
// can run anything, whatever its name says: it is left out unless allowed.
func TestDraftLeavesOutCommandRunners(t *testing.T) {
	for _, c := range []struct{ help, prog, arg string }{
		{"plain-ionice", "ionice", "COMMAND"},
		{"clap-hyperfine", "hyperfine", "COMMAND"},
	} {
		run, _ := helpsOf(t, map[string]string{c.prog: c.help})
		_, err := draft(context.Background(), []string{c.prog}, Options{}, run)
		want := fmt.Sprintf("%s: it runs the command it is given (its argument %s); to draft it, add --allow %q", c.prog, c.arg, c.prog)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want it left out: %q", c.prog, err, want)
			continue
		}
		res, err := draft(context.Background(), []string{c.prog}, Options{Allow: []string{c.prog}}, run)
		if err != nil {
			t.Fatalf("%s, allowed: %v", c.prog, err)
		}
		if tl := decode(t, res).Tools[0]; tl.ReadOnly == nil || *tl.ReadOnly {
			t.Errorf("%s, allowed: readOnly %v, want false", c.prog, tl.ReadOnly)
		}
	}
}

// kubectl prints its Cobra help with templates of its own: command
// groups, "--flag=DEFAULT:" lines typed by their defaults, and a usage
// line whose positional arguments are alternatives.
func TestDraftKubectl(t *testing.T) {
	run, _ := helpsOf(t, map[string]string{"kubectl": "kubectl", "kubectl get": "kubectl-get", "kubectl config": "kubectl-config"})
	res, err := draft(context.Background(), []string{"kubectl"}, Options{}, run)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, res)
	if len(m.Tools) != 1 || m.Tools[0].Name != "kubectl_get" {
		t.Fatalf("tools %q, want kubectl_get alone (the other commands' help is not in testdata)", res.Tools)
	}
	tl := m.Tools[0]
	for name, want := range map[string]map[string]any{
		"all-namespaces": {"type": "boolean", "flag": "--all-namespaces="},
		"filename":       {"type": "array", "flag": "--filename="},
		"chunk-size":     {"type": "integer", "flag": "--chunk-size="},
		"output":         nil, // -o json is set: see below
		"server-print":   {"type": "boolean", "description": "If true, have the server return the appropriate table output. Supports extension APIs and CRDs. Default: true."},
		"args":           {"type": "array"},
	} {
		for k, v := range want {
			if got := tl.Inputs[name][k]; !reflect.DeepEqual(got, v) {
				t.Errorf("input %s: %s is %#v, want %#v", name, k, got, v)
			}
		}
		if want == nil && tl.Inputs[name] != nil {
			t.Errorf("input %s is offered", name)
		}
	}
	if !slices.Contains(tl.Command, "--output=json") || tl.ReadOnly == nil || !*tl.ReadOnly {
		t.Errorf("kubectl_get: command %q, readOnly %v: want --output=json set, and read-only", tl.Command, tl.ReadOnly)
	}
	if got := tl.Command[len(tl.Command)-2:]; !reflect.DeepEqual(got, []string{"--", "{args}"}) {
		t.Errorf("kubectl_get: command ends %q", got)
	}
	report := strings.Join(append(append(append(res.Recognised, res.Guessed...), res.LeftOut...), res.Unread...), "\n")
	for _, want := range []string{
		"kubectl: kubectl help; 41 subcommands",
		"kubectl get args: a list of positional arguments, for (TYPE[.VERSION][.GROUP]",
		`kubectl attach: its name says attach; to draft it, add --allow "attach"`,
		`kubectl exec: its name says exec`,
		`kubectl proxy: its help says "Run a proxy to the Kubernetes API server"`,
		// Commands that change something are read, to be drafted as not
		// read-only; testdata has no help of theirs.
		`kubectl cordon: "kubectl cordon --help" printed nothing that reads as help`,
		`kubectl config: kubectl help; 15 subcommands`,
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report has no line %q:\n%s", want, report)
		}
	}
}

// Headings and lists in a Cobra command's long description ("EXIT
// STATUS", "The modes are:" and its "* raw-data: ..." items) are prose,
// not groups of subcommands to run.
func TestDraftCobraDescriptionIsNotCommands(t *testing.T) {
	run, runs := helpsOf(t, map[string]string{"restic": "cobra-restic", "restic snapshots": "cobra-restic-snapshots", "restic stats": "cobra-restic-stats"})
	res, err := draft(context.Background(), []string{"restic"}, Options{}, run)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"restic_snapshots", "restic_stats"} {
		if !slices.Contains(res.Tools, want) {
			t.Errorf("no tool %s in %q", want, res.Tools)
		}
	}
	for _, r := range *runs {
		if f := strings.Fields(r); len(f) > 2 && f[len(f)-1] == "--help" && !slices.Contains(strings.Fields("backup cache cat check copy diff dump find forget generate init key list ls migrate mount prune recover restore self-update snapshots stats tag unlock version"), f[1]) ||
			strings.Contains(r, "Exit") || strings.Contains(r, "Refer") || strings.Contains(r, ":") {
			t.Errorf("ran %q: a word of a description read as a command", r)
		}
	}
}

// A usage of several forms ("pip cache dir", "pip cache info", ...) is
// not one long form whose words are all required arguments: the
// arguments section says what they are, or a guessed list stands in; and
// a form whose literal words change something (pip cache purge) makes the
// tool not read-only.
func TestDraftUsageForms(t *testing.T) {
	for _, c := range []struct {
		argv   []string
		texts  map[string]string
		allow  []string
		inputs map[string]map[string]any // nil: the command is left out
		report string
	}{
		{[]string{"pip", "cache"}, map[string]string{"pip cache": "plain-pip-cache"}, nil,
			map[string]map[string]any{"args": {"type": "array"}, "pip": nil, "dir": nil, "purge": nil},
			`pip cache (tool pip_cache): a form of its usage may change something ("pip cache remove <pattern>")`},
		{[]string{"pip", "cache"}, map[string]string{"pip cache": "plain-pip-cache"}, nil,
			map[string]map[string]any{"args": {"type": "array"}},
			"pip cache args: a list of positional arguments, for the 5 forms of its usage, which wrap cannot read"},
		{[]string{"rg"}, map[string]string{"rg": "plain-rg"}, nil,
			map[string]map[string]any{"pattern": {"required": true}, "path": {"type": "array", "required": nil}, "command": nil, "pre": nil},
			`rg --pre: runs code or commands (its value is a COMMAND); to offer it, add --allow "rg"`},
	} {
		run, _ := helpsOf(t, c.texts)
		res, err := draft(context.Background(), c.argv, Options{Allow: c.allow}, run)
		if c.inputs == nil {
			if err == nil || !strings.Contains(err.Error(), c.report) {
				t.Errorf("%s: %v, want it left out: %q", c.argv, err, c.report)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.argv, err)
		}
		tl := decode(t, res).Tools[0]
		for name, want := range c.inputs {
			if want == nil {
				if _, ok := tl.Inputs[name]; ok {
					t.Errorf("%s: input %s is offered", tl.Name, name)
				}
				continue
			}
			for k, v := range want {
				if got := tl.Inputs[name][k]; !reflect.DeepEqual(got, v) {
					t.Errorf("%s: input %s: %s is %#v, want %#v", tl.Name, name, k, got, v)
				}
			}
		}
		if report := strings.Join(append(append(res.Guessed, res.LeftOut...), res.Review...), "\n"); !strings.Contains(report, c.report) {
			t.Errorf("%s: the report has no line %q:\n%s", tl.Name, c.report, report)
		}
	}
}

// A tree of thousands of commands stays within --max-runs, and the
// report says what was not read in a few lines.
func TestDraftThousandsOfCommands(t *testing.T) {
	var list strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&list, "  c%d   command %d\n", i, i)
	}
	root := "Usage:\n  many [command]\n\nAvailable Commands:\n" + list.String() + "\nFlags:\n  -h, --help   help for many\n"
	runs := 0
	run := func(_ context.Context, argv []string, _ time.Duration) (string, error) {
		runs++
		if len(argv) == 2 {
			return root, nil
		}
		return "Usage:\n  many " + argv[1] + " [flags]\n\nFlags:\n  -q, --quiet   say less\n", nil
	}
	res, err := draft(context.Background(), []string{"many"}, Options{MaxRuns: 5}, run)
	if err != nil {
		t.Fatal(err)
	}
	if runs != 5 || len(res.Tools) != 4 {
		t.Errorf("%d runs, %d tools: want 5 runs and 4 tools", runs, len(res.Tools))
	}
	want := "2986 more commands (many c15 ... many c3000): not read: the limit of 5 help runs was reached; raise --max-runs, or draft one branch at a time: mcpship wrap -- many c15"
	if len(res.Unread) != 11 || res.Unread[10] != want {
		t.Errorf("%d lines of unread, the last %q; want 11, the last %q", len(res.Unread), res.Unread[len(res.Unread)-1], want)
	}
}

// A flag whose name is not UTF-8 is not offered: the manifest, which is
// JSON, would pass another name.
func TestDraftFlagNameNotUTF8(t *testing.T) {
	help := "Usage: bad [OPTIONS]\n\nOptions:\n  --caf\xe9 <X>  caf\xe9\n  --ok <X>    fine\n  -h, --help  Print help\n"
	run := func(context.Context, []string, time.Duration) (string, error) { return help, nil }
	res, err := draft(context.Background(), []string{"bad"}, Options{}, run)
	if err != nil {
		t.Fatal(err)
	}
	tl := decode(t, res).Tools[0]
	if _, ok := tl.Inputs["caf"]; ok || tl.Inputs["ok"] == nil {
		t.Errorf("inputs %v: want ok alone", tl.Inputs)
	}
	if want := "bad --caf?: not offered: its name is not UTF-8 text"; !strings.Contains(strings.Join(res.Unread, "\n"), want) {
		t.Errorf("unread:\n%s\nwant %q", strings.Join(res.Unread, "\n"), want)
	}
}

// A subcommand that does not understand the help form the program answered
// to may have done its work instead: it is run once, not again with -h or
// as "help status", and reported unread.
func TestDraftAsksASubcommandOnce(t *testing.T) {
	root := "Usage:\n  tool [command]\n\nAvailable Commands:\n  status   show the status\n  show     show a thing\n\nFlags:\n  -h, --help   help for tool\n"
	var statusRuns []string
	run := func(_ context.Context, argv []string, _ time.Duration) (string, error) {
		switch {
		case len(argv) == 2:
			return root, nil
		case slices.Contains(argv, "status"):
			statusRuns = append(statusRuns, strings.Join(argv, " "))
			return "all good\n", nil // it did its work and printed its own output
		}
		return "Usage:\n  tool show [flags]\n\nFlags:\n  -q, --quiet   say less\n", nil
	}
	res, err := draft(context.Background(), []string{"tool"}, Options{}, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(statusRuns) != 1 {
		t.Errorf("status was run %d times (%q); want once", len(statusRuns), statusRuns)
	}
	if len(res.Tools) != 1 || !strings.Contains(strings.Join(res.Unread, "\n"), "tool status") {
		t.Errorf("tools %v, unread %q: want tool_show drafted and status unread", res.Tools, res.Unread)
	}
}
