package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// helpFixtures are the help texts of internal/wrap/testdata/help that the
// installed programs print, and the command that prints each. (kubectl's
// and pip's are not installed by the project's scripts.)
var helpFixtures = map[string][]string{
	"argp-cpio":                    {"/usr/bin/cpio", "--help"},
	"argp-tar":                     {"/usr/bin/tar", "--help"},
	"argparse-httpie":              {"/usr/bin/http", "--help"},
	"argparse-pre-commit":          {"/usr/bin/pre-commit", "--help"},
	"argparse-reuse":               {"/usr/bin/reuse", "--help"},
	"argparse-reuse-spdx":          {"/usr/bin/reuse", "spdx", "--help"},
	"argparse-yamllint":            {"/usr/bin/yamllint", "--help"},
	"clap-fd":                      {"/usr/bin/fdfind", "--help"},
	"clap-hyperfine":               {"/usr/bin/hyperfine", "--help"},
	"clap2-hexyl":                  {"/usr/bin/hexyl", "--help"},
	"clap2-zoxide":                 {"/usr/bin/zoxide", "--help"},
	"clap3-bat":                    {"/usr/bin/batcat", "--help"},
	"clap3-bat-cache":              {"/usr/bin/batcat", "cache", "--help"},
	"clap3-lsd":                    {"/usr/bin/lsd", "--help"},
	"clap3-tealdeer":               {"/usr/bin/tldr", "--help"},
	"click-black":                  {"/usr/bin/black", "--help"},
	"click-flask":                  {"/usr/bin/flask", "--help"},
	"click-flask-routes":           {"/usr/bin/flask", "routes", "--help"},
	"click-sqlite-utils":           {"/usr/bin/sqlite-utils", "--help"},
	"cobra-gdu":                    {"/usr/bin/gdu", "--help"},
	"cobra-gh":                     {"/usr/bin/gh", "--help"},
	"cobra-hugo":                   {"/usr/bin/hugo", "--help"},
	"cobra-hugo-version":           {"/usr/bin/hugo", "version", "--help"},
	"cobra-restic":                 {"/usr/bin/restic", "--help"},
	"cobra-restic-snapshots":       {"/usr/bin/restic", "snapshots", "--help"},
	"cobra-restic-stats":           {"/usr/bin/restic", "stats", "--help"},
	"cobra-yq":                     {"yq", "--help"},
	"cobra-yq-eval":                {"yq", "eval", "--help"},
	"getopt-shellcheck":            {"/usr/bin/shellcheck", "--help"},
	"goflag-actionlint":            {"actionlint", "-h"},
	"goflag-duf":                   {"/usr/bin/duf", "-h"},
	"goflag-staticcheck":           {"staticcheck", "-h"},
	"man-git-log":                  {"/usr/bin/git", "log", "--help"},
	"plain-git":                    {"/usr/bin/git", "--help"},
	"plain-goreleaser":             {"goreleaser", "--help"},
	"plain-goreleaser-healthcheck": {"goreleaser", "healthcheck", "--help"},
	"plain-grep":                   {"/usr/bin/grep", "--help"},
	"plain-ionice":                 {"/usr/bin/ionice", "--help"},
	"plain-jq":                     {"/usr/bin/jq", "--help"},
	"plain-prettier":               {"prettier", "--help"},
	"optionator-eslint":            {"eslint", "--help"},
	"plain-rg":                     {"/usr/bin/rg", "--help"},
	"plain-sort":                   {"/usr/bin/sort", "--help"},
	"plain-sqlite3":                {"/usr/bin/sqlite3", "-help"},
	"urfave2-swag":                 {"swag", "--help"},
	"urfave2-swag-init":            {"swag", "init", "--help"},
	"urfave3-builder":              {"builder", "--help"},
	"urfave3-builder-vet":          {"builder", "vet", "--help"},
}

// TestWrapFixturesAreTheProgramsHelp runs each installed program as the
// help texts of internal/wrap/testdata/help were captured (see the README
// there) and checks that it prints that text, so that what the unit tests
// and the accuracy table read is what the real program prints.
func TestWrapFixturesAreTheProgramsHelp(t *testing.T) {
	dir := filepath.Join("..", "internal", "wrap", "testdata", "help")
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no help texts in %s: %v", dir, err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		argv, ok := helpFixtures[name]
		if !ok {
			if name != "kubectl" && !strings.HasPrefix(name, "kubectl-") && name != "plain-pip-cache" {
				t.Errorf("%s: no program listed in helpFixtures prints it", name)
			}
			continue
		}
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(wrapProgram(t, argv[0]), argv[1:]...)
			cmd.Args[0] = filepath.Base(argv[0]) // as typed: "Usage: jq ..."
			cmd.Dir = "/"
			cmd.Env = append(os.Environ(), "COLUMNS=100", "NO_COLOR=1", "TERM=dumb", "CLICOLOR=0", "PAGER=cat", "GIT_PAGER=cat", "LC_ALL=C")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			_ = cmd.Run() // some print their help and exit 1 or 2
			// What wrap reads: standard output, or standard error when
			// that holds the help (as internal/wrap's runHelp decides).
			got := stdout.String()
			if strings.Count(strings.TrimSpace(got), "\n") < 1 && strings.Count(stderr.String(), "\n") > strings.Count(got, "\n") {
				got = stderr.String()
			}
			// The program as the help was captured: by its name, or by
			// its path (duf prints "Usage of /usr/bin/duf:").
			if got != string(want) && filepath.IsAbs(argv[0]) {
				got = strings.Replace(got, filepath.Base(argv[0]), argv[0], 1)
			}
			if got != string(want) {
				msg := name + ": " + strings.Join(argv, " ") + " prints other help than " + file + " (another version?); capture it again as its README says and review the goldens"
				if os.Getenv("MCPSHIP_WRAP_PROGRAMS") == "require" {
					t.Fatalf("%s\ngot:\n%s", msg, got)
				}
				t.Skip("SKIPPED: " + msg)
			}
		})
	}
}
