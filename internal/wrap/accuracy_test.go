package wrap

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// leafHelps are the help texts of testdata/help that describe commands a
// draft makes tools of, by layout. The figures of TestTypingAccuracy
// count their flags.
var leafHelps = map[string][]string{
	"kubectl":       {"kubectl-get"},
	"cobra":         {"cobra-gdu", "cobra-yq-eval", "cobra-restic-snapshots", "cobra-restic-stats"},
	"urfave/cli v3": {"urfave3-builder-vet"},
	"urfave/cli v2": {"urfave2-swag-init"},
	"Go flag":       {"goflag-actionlint", "goflag-staticcheck", "goflag-duf"},
	"argparse":      {"argparse-yamllint", "argparse-reuse", "argparse-reuse-spdx"},
	"click":         {"click-flask", "click-flask-routes", "click-black"},
	"clap":          {"clap-fd", "clap-hyperfine", "clap2-hexyl"},
	"plain":         {"plain-goreleaser", "plain-goreleaser-healthcheck", "plain-grep", "plain-sort"},
}

// mistyped are the flags whose type as read differs from what the
// program takes (checked against each program's documentation and
// source). Every other flag of leafHelps is typed as the program takes it.
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
	"clap-hyperfine --parameter-list":       "two values, VAR VALUES: not offered",
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
}

// wantCorrect pins the figures docs/wrap.md reports: per layout, flags
// typed as the program takes them, of all flags read.
var wantCorrect = map[string][2]int{
	"kubectl":       {23, 23},
	"cobra":         {121, 123},
	"urfave/cli v3": {3, 3},
	"urfave/cli v2": {28, 28},
	"Go flag":       {40, 40},
	"argparse":      {12, 12},
	"click":         {27, 29},
	"clap":          {60, 73},
	"plain":         {67, 79},
}

// TestTypingAccuracy counts, per help layout, the flags of real programs'
// help texts that are read with the type the program takes.
func TestTypingAccuracy(t *testing.T) {
	seen := map[string]bool{}
	var report []string
	for _, l := range append(layoutNames(), "plain") {
		total, correct := 0, 0
		for _, name := range leafHelps[l] {
			text, err := os.ReadFile("testdata/help/" + name + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			h := parseHelp(string(text))
			if h.layout.name != l && !(l == "clap" && h.layout.name == "clap") {
				t.Errorf("%s: read as %s, want %s", name, h.layout.name, l)
			}
			for _, f := range append(h.flags, h.inherited...) {
				total++
				key := name + " " + f.spelling
				if _, bad := mistyped[key]; bad {
					seen[key] = true
					continue
				}
				correct++
			}
		}
		report = append(report, fmt.Sprintf("%-14s %3d of %3d", l, correct, total))
		if got := [2]int{correct, total}; got != wantCorrect[l] {
			t.Errorf("%s: %d of %d flags typed correctly, want %d of %d (update wantCorrect and docs/wrap.md)", l, correct, total, wantCorrect[l][0], wantCorrect[l][1])
		}
	}
	for key := range mistyped {
		if !seen[key] {
			t.Errorf("mistyped lists %q, which no help text has", key)
		}
	}
	t.Logf("flags typed as the program takes them:\n%s", strings.Join(report, "\n"))
}

func layoutNames() []string {
	var names []string
	for _, l := range layouts {
		names = append(names, l.name)
	}
	return names
}
