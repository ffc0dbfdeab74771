package wrap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// A program is one real program of the accuracy table: the help texts
// of testdata/help it printed, and what they list, counted by hand from
// each text (not from what parseHelp reads).
type program struct {
	name   string
	layout string // the layout its help is read as
	// roots are the help texts that list commands; commands are the
	// commands they list, without "help" and "completion".
	roots    []string
	commands string
	// leaves are the help texts of commands that become tools; options is
	// how many options they list, without help and version.
	leaves  []string
	options int
}

// programs are the real programs the figures of TestAccuracy count.
var programs = []program{
	{name: "gdu", layout: "cobra", leaves: []string{"cobra-gdu"}, options: 24},
	{name: "yq", layout: "cobra", roots: []string{"cobra-yq"}, commands: "eval eval-all", leaves: []string{"cobra-yq-eval"}, options: 49},
	{name: "restic", layout: "cobra", roots: []string{"cobra-restic"},
		commands: "backup cache cat check copy diff dump find forget generate init key list ls migrate mount prune recover restore self-update snapshots stats tag unlock version",
		leaves:   []string{"cobra-restic-snapshots", "cobra-restic-stats"}, options: 50},
	{name: "hugo", layout: "cobra", roots: []string{"cobra-hugo"}, commands: "config convert deploy env gen import list mod new server version",
		leaves: []string{"cobra-hugo"}, options: 43},
	{name: "gh", layout: "cobra", roots: []string{"cobra-gh"},
		commands: "auth browse codespace gist issue pr release repo run workflow alias api config extension gpg-key label search secret ssh-key status"},
	{name: "kubectl", layout: "kubectl", roots: []string{"kubectl"},
		commands: "create expose run set explain get edit delete rollout scale autoscale certificate cluster-info top cordon uncordon drain taint describe logs attach exec port-forward proxy cp auth debug events diff apply patch replace wait kustomize label annotate api-resources api-versions config plugin version",
		leaves:   []string{"kubectl-get"}, options: 23},
	{name: "builder", layout: "urfave/cli v3", roots: []string{"urfave3-builder"},
		commands: "vet test gfmrun check-binary-size generate diffcheck ensure-goimports ensure-gfmrun ensure-mkdocs set-mkdocs-remote deploy-mkdocs lint v3diff v3approve",
		leaves:   []string{"urfave3-builder-vet"}, options: 3},
	{name: "swag", layout: "urfave/cli v2", roots: []string{"urfave2-swag"}, commands: "init fmt", leaves: []string{"urfave2-swag-init"}, options: 27},
	{name: "actionlint", layout: "Go flag", leaves: []string{"goflag-actionlint"}, options: 12},
	{name: "staticcheck", layout: "Go flag", leaves: []string{"goflag-staticcheck"}, options: 11},
	{name: "duf", layout: "Go flag", leaves: []string{"goflag-duf"}, options: 17},
	{name: "yamllint", layout: "argparse", leaves: []string{"argparse-yamllint"}, options: 6},
	{name: "reuse", layout: "argparse", roots: []string{"argparse-reuse"}, commands: "annotate download init lint spdx supported-licenses",
		leaves: []string{"argparse-reuse", "argparse-reuse-spdx"}, options: 6},
	{name: "pre-commit", layout: "argparse", roots: []string{"argparse-pre-commit"},
		commands: "autoupdate clean gc init-templatedir install install-hooks migrate-config run sample-config try-repo uninstall validate-config validate-manifest"},
	{name: "http", layout: "argparse", leaves: []string{"argparse-httpie"}, options: 49},
	{name: "flask", layout: "click", roots: []string{"click-flask"}, commands: "routes run shell",
		leaves: []string{"click-flask", "click-flask-routes"}, options: 5},
	{name: "black", layout: "click", leaves: []string{"click-black"}, options: 24},
	{name: "sqlite-utils", layout: "click", roots: []string{"click-sqlite-utils"},
		commands: "query add-column add-foreign-key add-foreign-keys add-geometry-column analyze analyze-tables bulk convert create-database create-index create-spatial-index create-table create-view disable-fts disable-wal drop-table drop-view dump duplicate enable-counts enable-fts enable-wal extract index-foreign-keys indexes insert insert-files install memory optimize populate-fts rebuild-fts reset-counts rows schema search tables transform triggers uninstall upsert vacuum views"},
	{name: "fd", layout: "clap", leaves: []string{"clap-fd"}, options: 42},
	{name: "hyperfine", layout: "clap", leaves: []string{"clap-hyperfine"}, options: 23},
	{name: "hexyl", layout: "clap", leaves: []string{"clap2-hexyl"}, options: 8},
	{name: "zoxide", layout: "clap", roots: []string{"clap2-zoxide"}, commands: "add import init query remove"},
	{name: "bat", layout: "clap", roots: []string{"clap3-bat"}, commands: "cache", leaves: []string{"clap3-bat"}, options: 27},
	{name: "lsd", layout: "clap", leaves: []string{"clap3-lsd"}, options: 37},
	{name: "tldr", layout: "clap", leaves: []string{"clap3-tealdeer"}, options: 13},
	{name: "shellcheck", layout: "GetOpt", leaves: []string{"getopt-shellcheck"}, options: 13},
	{name: "tar", layout: "argp", leaves: []string{"argp-tar"}, options: 154},
	{name: "cpio", layout: "argp", leaves: []string{"argp-cpio"}, options: 45},
	{name: "goreleaser", layout: "plain", roots: []string{"plain-goreleaser"}, commands: "build check healthcheck init jsonschema release",
		leaves: []string{"plain-goreleaser", "plain-goreleaser-healthcheck"}, options: 4},
	{name: "grep", layout: "plain", leaves: []string{"plain-grep"}, options: 47},
	{name: "sort", layout: "plain", leaves: []string{"plain-sort"}, options: 28},
	{name: "rg", layout: "clap", leaves: []string{"plain-rg"}, options: 98},
	{name: "jq", layout: "plain", leaves: []string{"plain-jq"}, options: 16},
	{name: "sqlite3", layout: "plain", leaves: []string{"plain-sqlite3"}, options: 37},
	{name: "git", layout: "plain", roots: []string{"plain-git"},
		commands: "clone init add mv restore rm bisect diff grep log show status branch commit merge rebase reset switch tag fetch pull push"},
	{name: "prettier", layout: "plain", leaves: []string{"plain-prettier"}, options: 45},
	{name: "eslint", layout: "optionator", leaves: []string{"optionator-eslint"}, options: 37},
	{name: "git log", layout: "man page", leaves: []string{"man-git-log"}, options: 169},
}

// mistyped are the options that are read but with another type than the
// program takes (checked against each program's documentation and
// source), or read although they are not options. Every other option
// read is typed as the program takes it.
var mistyped = map[string]string{
	"click-black --target-version":          "repeatable (Click's multiple=True does not show in help): a list of enum",
	"click-black --python-cell-magics":      "repeatable: a list of strings",
	"clap-fd --exec":                        "a command and its arguments, ended by ';'",
	"clap-fd --exec-batch":                  "a command and its arguments, ended by ';'",
	"clap-fd --ignore-file":                 "repeatable: a list of paths",
	"clap-fd --search-path":                 "repeatable: a list of paths",
	"clap-fd --size":                        "repeatable: a list of size constraints",
	"clap-hyperfine --prepare":              "repeatable, once per command: a list",
	"clap-hyperfine --parameter-step-size":  "a number",
	"clap-hyperfine --parameter-scan":       "three values, VAR MIN MAX: not offered",
	"clap2-hexyl --length":                  "a byte count with an optional unit, such as 4KiB: a string",
	"clap2-hexyl --bytes":                   "a byte count with an optional unit: a string",
	"clap2-hexyl --skip":                    "a byte count with an optional unit: a string",
	"clap2-hexyl --display-offset":          "a byte count with an optional unit: a string",
	"plain-goreleaser-healthcheck --config": "a path: a string (Charm's fang prints no placeholders)",
	"cobra-restic-snapshots --cacert":       "repeatable (a string slice; its help does not say): a list of files",
	"cobra-restic-stats --cacert":           "repeatable (a string slice; its help does not say): a list of files",
	"plain-grep --regexp":                   "repeatable: a list of patterns",
	"plain-grep --file":                     "repeatable: a list of files",
	"plain-grep --include":                  "repeatable: a list of globs",
	"plain-grep --exclude":                  "repeatable: a list of globs",
	"plain-grep --exclude-from":             "repeatable: a list of files",
	"plain-grep --exclude-dir":              "repeatable: a list of globs",
	"plain-sort --batch-size":               "an integer (NMERGE)",
	"plain-sort --check":                    "-c and -C are switches; --check takes an optional value",
	"plain-sort --key":                      "repeatable: a list of KEYDEFs",
	"plain-sort --temporary-directory":      "repeatable: a list of directories",
	"argp-tar --blocking-factor":            "a number of blocks: an integer",
	"argp-tar --format":                     "one of the formats listed below it: an enum",
	"argp-tar --quoting-style":              "one of the styles listed at the end: an enum",
	"argp-tar --backup":                     "one of the controls listed at the end: an enum",
	"argp-tar --exclude":                    "repeatable (the manual says so, not the help): a list",
	"argp-cpio --block-size":                "a number of blocks: an integer",
	"clap3-lsd --date":                      "date, relative or +FORMAT: a string, not an enum",
	"plain-sqlite3 -lookaside":              "two values, SIZE N: not offered",
	"plain-sqlite3 -pagecache":              "two values, SIZE N: not offered",
	"clap3-bat --wrap":                      "an enum: its values end the first sentence, not the description",
	"clap3-bat --tabs":                      "a width: an integer",
	"clap3-bat --highlight-line":            "repeatable (its help does not say): a list",
	"clap3-bat --map-syntax":                "repeatable (its help does not say): a list",
	"clap3-bat --line-range":                "repeatable (its help does not say): a list",
	"clap3-bat --ignored-suffix":            "repeatable (its help does not say): a list",
	"argparse-httpie --max-redirects":       "an integer",
	"argparse-httpie --max-headers":         "an integer",
	"argparse-httpie --timeout":             "a number of seconds",
	"optionator-eslint --rule":              "repeatable (optionator concatenates Object options): a list",
	"optionator-eslint --parser-options":    "repeatable (optionator concatenates Object options): a list",
	"man-git-log --decorate-refs":           "repeatable: a list of patterns",
	"man-git-log --dirstat-by-file":         "one comma-separated value, not a list",
	"man-git-log --word-diff":               "an enum its description lists: color, plain, porcelain, none",
	"man-git-log --color-moved":             "an enum its description lists: no, default, plain, blocks, zebra, dimmed-zebra",
}

// wantAccuracy pins the figures docs/wrap.md reports, per program:
// commands found of those listed, options read, and options typed as the
// program takes them of those listed.
var wantAccuracy = map[string][4]int{
	"gdu":          {0, 0, 24, 24},
	"yq":           {2, 2, 49, 49},
	"restic":       {25, 25, 48, 50},
	"hugo":         {11, 11, 43, 43},
	"gh":           {20, 20, 0, 0},
	"kubectl":      {41, 41, 23, 23},
	"builder":      {14, 14, 3, 3},
	"swag":         {2, 2, 27, 27},
	"actionlint":   {0, 0, 12, 12},
	"staticcheck":  {0, 0, 11, 11},
	"duf":          {0, 0, 17, 17},
	"yamllint":     {0, 0, 6, 6},
	"reuse":        {6, 6, 6, 6},
	"pre-commit":   {13, 13, 0, 0},
	"http":         {0, 0, 46, 49},
	"flask":        {3, 3, 5, 5},
	"black":        {0, 0, 22, 24},
	"sqlite-utils": {44, 44, 0, 0},
	"fd":           {0, 0, 37, 42},
	"hyperfine":    {0, 0, 20, 23},
	"hexyl":        {0, 0, 4, 8},
	"zoxide":       {5, 5, 0, 0},
	"bat":          {1, 1, 21, 27},
	"lsd":          {0, 0, 36, 37},
	"tldr":         {0, 0, 13, 13},
	"shellcheck":   {0, 0, 13, 13},
	"tar":          {0, 0, 149, 154},
	"cpio":         {0, 0, 44, 45},
	"goreleaser":   {6, 6, 3, 4},
	"grep":         {0, 0, 40, 47},
	"sort":         {0, 0, 24, 28},
	"rg":           {0, 0, 98, 98},
	"jq":           {0, 0, 16, 16},
	"sqlite3":      {0, 0, 35, 37},
	"prettier":     {0, 0, 45, 45},
	"eslint":       {0, 0, 35, 37},
	"git log":      {0, 0, 165, 169},
	"git":          {22, 22, 0, 0},
}

// TestAccuracy counts, per real program, the commands its help lists that
// are read, and the options that are read with the type the program
// takes.
func TestAccuracy(t *testing.T) {
	seen := map[string]bool{}
	var report []string
	report = append(report, fmt.Sprintf("%-13s %-14s %-9s %s", "program", "layout", "commands", "options typed right"))
	for _, p := range programs {
		want := strings.Fields(p.commands)
		found := 0
		for _, name := range p.roots {
			h := readFixture(t, name)
			for _, c := range h.commands {
				if slices.Contains(want, c.name) {
					found++
				} else {
					t.Errorf("%s: read %q as a command, which the help does not list", name, c.name)
				}
			}
		}
		read, right := 0, 0
		layout := ""
		for _, name := range p.leaves {
			h := readFixture(t, name)
			if layout == "" {
				layout = h.layout.name
			}
			for _, f := range append(h.flags, h.inherited...) {
				read++
				key := name + " " + f.spelling
				if _, bad := mistyped[key]; bad {
					seen[key] = true
					continue
				}
				right++
			}
		}
		if layout == "" {
			layout = readFixture(t, p.roots[0]).layout.name
		}
		if layout != p.layout {
			t.Errorf("%s: read as %s, want %s", p.name, layout, p.layout)
		}
		if right > p.options {
			t.Errorf("%s: %d options typed right, but its help lists %d: a line that is not an option was read as one (list it in mistyped)", p.name, right, p.options)
		}
		cmds := "-"
		if len(want) > 0 {
			cmds = fmt.Sprintf("%d/%d", found, len(want))
		}
		opts := "-"
		if p.options > 0 {
			opts = fmt.Sprintf("%d/%d", right, p.options)
		}
		report = append(report, fmt.Sprintf("%-13s %-14s %-9s %s", p.name, layout, cmds, opts))
		if got, w := [4]int{found, len(want), right, p.options}, wantAccuracy[p.name]; got != w {
			t.Errorf("%s: %d of %d commands found, %d of %d options typed right; want %d of %d and %d of %d (update wantAccuracy and docs/wrap.md)",
				p.name, got[0], got[1], got[2], got[3], w[0], w[1], w[2], w[3])
		}
	}
	for key := range mistyped {
		if !seen[key] {
			t.Errorf("mistyped lists %q, which no help text has", key)
		}
	}
	t.Logf("the accuracy table:\n%s", strings.Join(report, "\n"))
}

func readFixture(t *testing.T, name string) *help {
	t.Helper()
	text, err := os.ReadFile("testdata/help/" + name + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	return parseHelp(string(text))
}

// readOnlyCases are commands of real programs, with what the drafted
// tool can do: writes is whether it can change files or state with the
// inputs that wrap offers (checked against each program's documentation
// and source). A tool that writes and is drafted read-only is a safety
// error, and so is one that offers an input of dangerous. The help texts
// are in testdata/help and testdata/safety.
var readOnlyCases = []struct {
	help   string
	argv   []string
	writes bool
}{
	{"kubectl-get", []string{"kubectl", "get"}, false},
	{"cobra-hugo", []string{"hugo"}, true}, // builds the site into public/
	{"argparse-reuse", []string{"reuse"}, false},
	{"argparse-httpie", []string{"http"}, true}, // any method: POST, PUT, DELETE
	{"click-flask", []string{"flask"}, false},
	{"clap3-bat", []string{"bat"}, false},
	{"clap3-lsd", []string{"lsd"}, false},
	{"clap3-tealdeer", []string{"tldr"}, true}, // --update, and it updates its cache when old
	{"getopt-shellcheck", []string{"shellcheck"}, false},
	{"argp-tar", []string{"tar"}, true},
	{"argp-cpio", []string{"cpio"}, true},
	{"plain-goreleaser", []string{"goreleaser"}, true}, // with no command, it releases
	{"plain-jq", []string{"jq"}, false},
	{"plain-sqlite3", []string{"sqlite3"}, true},
	{"plain-prettier", []string{"prettier"}, true},   // --write
	{"optionator-eslint", []string{"eslint"}, false}, // --fix, --output-file, --cache: left out
	{"man-git-log", []string{"git", "log"}, false},
	{"cobra-gdu", []string{"gdu"}, false},
	{"cobra-yq-eval", []string{"yq", "eval"}, true}, // --inplace
	// restic takes, and removes, a lock in the repository unless --no-lock.
	{"cobra-restic-snapshots", []string{"restic", "snapshots"}, false},
	{"cobra-restic-stats", []string{"restic", "stats"}, false},
	{"urfave3-builder-vet", []string{"builder", "vet"}, false},
	{"urfave2-swag-init", []string{"swag", "init"}, true},
	{"goflag-actionlint", []string{"actionlint"}, false}, // -init-config writes: left out
	{"goflag-staticcheck", []string{"staticcheck"}, false},
	{"goflag-duf", []string{"duf"}, false},
	{"argparse-yamllint", []string{"yamllint"}, false},
	{"argparse-reuse-spdx", []string{"reuse", "spdx"}, false}, // -o FILE writes: left out
	{"click-flask-routes", []string{"flask", "routes"}, false},
	{"click-black", []string{"black"}, true},
	{"clap-fd", []string{"fdfind"}, false}, // --exec runs commands: left out
	{"clap-hyperfine", []string{"hyperfine"}, true},
	{"clap2-hexyl", []string{"hexyl"}, false},
	{"plain-goreleaser-healthcheck", []string{"goreleaser", "healthcheck"}, false},
	{"plain-grep", []string{"grep"}, false},
	{"plain-sort", []string{"sort"}, false}, // -o FILE and --compress-program: left out
	{"plain-rg", []string{"rg"}, false},     // --pre runs commands: left out
	{"plain-git", []string{"git"}, true},
	{"plain-ionice", []string{"ionice"}, true},
	{"plain-pip-cache", []string{"pip", "cache"}, true}, // pip cache purge
	{"gzip", []string{"gzip"}, true},
	{"xz", []string{"xz"}, true},
	{"bzip2", []string{"bzip2"}, true},
	{"du", []string{"du"}, false},
	{"wc", []string{"wc"}, false},
	{"sed", []string{"sed"}, true}, // -i, and its script's w and e commands
	// -delete, -exec and -fprint FILE are left out; its expression is one
	// argument, which cannot hold them.
	{"find", []string{"find"}, false},
	{"node", []string{"node"}, true},
	{"sd", []string{"sd"}, true},                                 // replaces in place unless --preview
	{"json.tool", []string{"python3", "-m", "json.tool"}, false}, // its outfile writes: left out
	{"http.server", []string{"python3", "-m", "http.server"}, true},
	{"pre-commit-autoupdate", []string{"pre-commit", "autoupdate"}, true},
	{"pre-commit-clean", []string{"pre-commit", "clean"}, true},
	{"pre-commit-gc", []string{"pre-commit", "gc"}, true},
	{"pre-commit-try-repo", []string{"pre-commit", "try-repo"}, true},
	{"pre-commit-validate-config", []string{"pre-commit", "validate-config"}, false},
	{"hugo-convert-toJSON", []string{"hugo", "convert", "toJSON"}, true},
	{"hugo-mod-vendor", []string{"hugo", "mod", "vendor"}, true},
	{"hugo-new-site", []string{"hugo", "new", "site"}, true},
	{"hugo-list-all", []string{"hugo", "list", "all"}, false},
	{"hugo-mod-verify", []string{"hugo", "mod", "verify"}, false}, // --clean deletes: left out
	{"sqlite-utils-insert", []string{"sqlite-utils", "insert"}, true},
	{"sqlite-utils-convert", []string{"sqlite-utils", "convert"}, true},
	{"sqlite-utils-query", []string{"sqlite-utils", "query"}, true},
	{"sqlite-utils-tables", []string{"sqlite-utils", "tables"}, false},
	{"sqlite-utils-rows", []string{"sqlite-utils", "rows"}, false},
	{"restic-dump", []string{"restic", "dump"}, false},
	{"restic-recover", []string{"restic", "recover"}, true},
	{"restic-forget", []string{"restic", "forget"}, true},
	{"cppcheck", []string{"cppcheck"}, false},
	// -f/--format can also name a formatter module by its path, which
	// nothing in its help says: a gap, offered.
	{"eslint10", []string{"eslint"}, false},
}

// dangerous are, per case of readOnlyCases, the inputs (by name, as
// spelt in the help) that run code or commands, load code, or do not
// return, which a draft must not offer without --allow; and those that
// write or name a file of code to load, which a read-only draft must not
// offer (checked against each program's documentation and source).
var dangerous = map[string]struct{ runs, writes []string }{
	"cppcheck": {runs: []string{"--addon", "--addon-python", "--clang"}, // an addon is a Python script
		writes: []string{"--cppcheck-build-dir", "--dump", "--output-file", "--plist-output"}},
	"eslint10": {runs: []string{"--mcp", "--plugin", "--inspect-config"}, // --inspect-config starts a server
		writes: []string{"--fix", "--suppress-all", "--suppress-rule", "--prune-suppressions", "--cache", "--output-file", "--init",
			"--config", "--parser"}}, // eslint.config.js and a parser are modules it imports
	"optionator-eslint": {runs: []string{"--plugin", "--rulesdir", "--resolve-plugins-relative-to"},
		writes: []string{"--fix", "--cache", "--output-file", "--init", "--config", "--parser"}},
	"argp-tar": {runs: []string{"--checkpoint-action", "--to-command", "--use-compress-program", "--rsh-command",
		"--rmt-command", "--info-script"}}, // --checkpoint-action=exec=COMMAND
	"argp-cpio":              {runs: []string{"--rsh-command"}},
	"goflag-actionlint":      {runs: []string{"-shellcheck", "-pyflakes"}, writes: []string{"-init-config"}},
	"clap-fd":                {runs: []string{"--exec", "--exec-batch"}},
	"clap-hyperfine":         {runs: []string{"--prepare", "--setup", "--cleanup", "--shell", "command"}},
	"clap3-bat":              {runs: []string{"--pager"}},
	"plain-rg":               {runs: []string{"--pre"}},
	"plain-sort":             {runs: []string{"--compress-program"}, writes: []string{"--output"}},
	"plain-sqlite3":          {runs: []string{"-cmd", "-init", "sql"}}, // -init's file holds dot-commands: .shell
	"kubectl-get":            {runs: []string{"--watch", "--watch-only"}},
	"cobra-hugo":             {runs: []string{"--watch"}},
	"cobra-restic-snapshots": {runs: []string{"--password-command"}},
	"cobra-restic-stats":     {runs: []string{"--password-command"}},
	"cobra-yq-eval":          {runs: []string{"--security-enable-system-operator"}},
	"json.tool":              {writes: []string{"outfile"}},
	"node":                   {runs: []string{"--eval", "--print", "--require", "--import", "--watch"}},
	"sqlite-utils-query":     {runs: []string{"--load-extension", "sql"}},
	"sqlite-utils-rows":      {runs: []string{"--load-extension"}},
	"sqlite-utils-tables":    {runs: []string{"--load-extension"}},
}

// offeredDanger returns the inputs of dangerous[help] that a draft's one
// tool offers and must not.
func offeredDanger(t *testing.T, help string, res *Result) []string {
	var m struct {
		Tools []struct {
			ReadOnly bool
			Inputs   map[string]struct{ Flag string }
		}
	}
	if err := json.Unmarshal(res.Manifest, &m); err != nil {
		t.Fatal(err)
	}
	tl := m.Tools[0]
	offered := map[string]bool{}
	for name, in := range tl.Inputs {
		offered[name] = true
		offered[strings.TrimLeft(strings.TrimSuffix(in.Flag, "="), "-")] = true
	}
	var bad []string
	d := dangerous[help]
	for _, in := range d.runs {
		if offered[strings.TrimLeft(in, "-")] {
			bad = append(bad, in+" (runs code or commands, or does not return)")
		}
	}
	for _, in := range d.writes {
		if tl.ReadOnly && offered[strings.TrimLeft(in, "-")] {
			bad = append(bad, in+" (writes, or loads code)")
		}
	}
	return bad
}

// wantReadOnly pins the figures docs/wrap.md reports, per layout:
// commands, verdicts right (read-only for one that cannot write, not
// read-only or left out for one that can), and safety errors (drafted
// read-only, and can write), which must be 0.
var wantReadOnly = map[string][3]int{
	"kubectl":       {1, 1, 0},
	"cobra":         {13, 12, 0},
	"urfave/cli v3": {1, 1, 0},
	"urfave/cli v2": {1, 1, 0},
	"argparse":      {10, 9, 0},
	"click":         {7, 7, 0},
	"man page":      {1, 1, 0},
	"argp":          {2, 2, 0},
	"optionator":    {2, 2, 0},
	"GetOpt":        {1, 1, 0},
	"clap":          {8, 7, 0},
	"Go flag":       {3, 2, 0},
	"plain":         {17, 16, 0},
}

// TestReadOnlyAccuracy drafts each of readOnlyCases from its help and
// counts, per help layout, the read-only verdicts that are right.
func TestReadOnlyAccuracy(t *testing.T) {
	labelled := map[string]bool{}
	type figures struct{ commands, right, unsafe int }
	per := map[string]*figures{}
	var misses []string
	for _, c := range readOnlyCases {
		labelled[c.help] = true
		text, err := os.ReadFile("testdata/help/" + c.help + ".txt")
		if err != nil {
			text, err = os.ReadFile("testdata/safety/" + c.help + ".txt")
		}
		if err != nil {
			t.Fatal(err)
		}
		run := func(_ context.Context, argv []string, _ time.Duration) (string, error) {
			if reflect.DeepEqual(argv, append(slices.Clone(c.argv), "--help")) {
				return string(text), nil
			}
			return "", nil
		}
		h := parseHelp(string(text))
		verdict, why := "read-only", ""
		res, err := draft(context.Background(), c.argv, Options{}, run)
		switch {
		case err != nil && len(h.commands) > 0:
			continue // a group without a tool of its own: its commands count
		case err != nil && strings.Contains(err.Error(), "to draft it, add --allow"):
			verdict = "left out"
		case err != nil:
			t.Errorf("%s: %v", c.help, err)
			continue
		case len(res.Tools) != 1:
			t.Errorf("%s: tools %q, want one", c.help, res.Tools)
			continue
		case len(res.Review) > 0:
			verdict, why = "not read-only", res.Review[0]
		}
		l := h.layout.name
		if per[l] == nil {
			per[l] = &figures{}
		}
		f := per[l]
		f.commands++
		var bad []string
		if res != nil {
			bad = offeredDanger(t, c.help, res)
		}
		switch {
		case len(bad) > 0:
			f.unsafe++
			t.Errorf("%s: drafted %s, and offers %s: a safety error", strings.Join(c.argv, " "), verdict, strings.Join(bad, ", "))
		case c.writes && verdict == "read-only":
			f.unsafe++
			t.Errorf("%s: drafted read-only, but it can write: a safety error", strings.Join(c.argv, " "))
		case c.writes == (verdict != "read-only"):
			f.right++
		default:
			misses = append(misses, fmt.Sprintf("%s: %s, but it cannot write (%s)", strings.Join(c.argv, " "), verdict, why))
		}
	}
	// Every command whose options TestAccuracy counts is labelled here.
	for _, p := range programs {
		for _, name := range p.leaves {
			if !labelled[name] {
				t.Errorf("programs[%q] has the leaf %s, which readOnlyCases does not label: add whether its drafted tool can write", p.name, name)
			}
		}
	}
	var report []string
	var names []string
	for _, l := range layouts {
		names = append(names, l.name)
	}
	for _, l := range append(names, fallback.name) {
		f := per[l]
		if f == nil {
			continue
		}
		report = append(report, fmt.Sprintf("%-14s %2d commands, read-only right %2d, safety errors %d", l, f.commands, f.right, f.unsafe))
		if got, ok := wantReadOnly[l]; ok && got != [3]int{f.commands, f.right, f.unsafe} {
			t.Errorf("%s: %d commands, %d right, %d safety errors; want %v (update wantReadOnly and docs/wrap.md)", l, f.commands, f.right, f.unsafe, got)
		}
	}
	t.Logf("read-only verdicts:\n%s\nnot read-only, but cannot write (safe, a client asks first):\n%s", strings.Join(report, "\n"), strings.Join(misses, "\n"))
}
