package wrap

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

func TestJudgeCommand(t *testing.T) {
	for _, c := range []struct {
		name, summary string
		want          verdict
	}{
		{"lint", "list all non-compliant files", reads},
		{"check", "Checks if configuration is valid", reads},
		{"routes", "Show the routes for the app.", reads},
		{"supported-licenses", "list all supported SPDX licenses", reads},
		{"stats", "Show statistics", reads},
		{"yamllint", "A linter for YAML files.", reads},
		{"staticcheck", "", reads}, // a name that ends in check
		{"sort", "Write sorted concatenation of all FILE(s) to standard output.", reads},
		{"json.tool", "A simple command line interface for json module to validate and pretty-print JSON objects.", reads},
		{"du", "Summarize device usage of the set of FILEs, recursively for directories.", reads},
		// Nothing says it only reads: drafted, but not read-only.
		{"eval", "(default) Apply the expression to each document", changes},
		{"duf", "", changes},
		{"autoupdate", "Auto-update pre-commit config to the latest repos' versions.", changes},
		{"gc", "Clean unused cached repos.", changes},
		{"try-repo", "Try the hooks in a repository, useful for developing new hooks.", changes},
		{"vendor", "Vendor all module dependencies into the _vendor directory.", changes},
		{"toJSON", "Convert front matter to JSON", changes},
		{"insert", "Insert records from FILE into a table, creating the table if it does not already exist", changes},
		{"annotate", "add copyright and licensing into the header of files", changes},
		{"spdx", "Writes the bill of materials to a file", changes},
		{"gzip", "Compress or uncompress FILEs (by default, compress FILES in-place).", changes},
		{"xz", "Compress or decompress FILEs in the .xz format.", changes},
		{"sd", "An intuitive find & replace CLI.", changes}, // "find", but also "replace"
		{"tidy", "Removes unused entries", changes},
		{"set-mkdocs-remote", "", changes},
		{"list-and-fix", "Show and fix lint errors", changes},
		// Does not return, runs what it is given, or acts for good.
		{"http.server", "", excluded},
		{"serve", "Serve the site", excluded},
		{"shell", "", excluded},
		{"deploy-mkdocs", "", excluded},
		{"dev", "Start a development server", excluded},
		{"run", "Run a hook.", excluded},
		// A read word that is not the verb does not say it reads.
		{"optimize", "Optimize all full-text search tables and then run VACUUM - should shrink the database file", changes},
		{"rows", "Output all rows in the specified table", reads},
		{"rg", "ripgrep (rg) recursively searches the current directory for a regex pattern.", reads},
		{"fd", "A program to find entries in your filesystem", reads},
		// Any form of a word that says it changes something.
		{"verify", "Verify the contents of the cache folder, removing any unneeded data", changes},
		{"stats", "Show statistics, deleting old entries", changes},
		{"routes", "Show all registered routes", reads},
		{"split", "Output pieces of FILE to PREFIXaa, PREFIXab, ...; default size is 1000 lines, and default PREFIX is 'x'.", changes},
		{"date", "Display the current time in the given FORMAT, or set the system date.", changes},
		{"date", "Display date and time in the given FORMAT. With -s, or with [MMDDhhmm[[CC]YY][.ss]], set the date and time.", changes},
	} {
		if got := judgeCommand([]string{c.name}, c.summary); got.verdict != c.want {
			t.Errorf("judgeCommand(%q, %q) = %v (%s), want %v", c.name, c.summary, got.verdict, got.why, c.want)
		}
	}
}

func TestJudgeInput(t *testing.T) {
	for _, c := range []struct {
		names       []string
		value, desc string
		enum        []string
		want        inputKind
	}{
		{[]string{"-x", "--exec"}, "<cmd>", "Execute a command for each search result", nil, runsInput},
		{[]string{"--pre"}, "<COMMAND>", "For each input PATH, this flag causes ripgrep to search the standard output of COMMAND PATH.", nil, runsInput},
		{[]string{"-p", "--prepare"}, "<CMD>", "Execute CMD before each timing run.", nil, runsInput},
		{[]string{"--password-command"}, "command", "shell command to obtain the repository password", nil, runsInput},
		{[]string{"--plugin"}, "String", "Specify plugins", nil, runsInput},
		{[]string{"--load-extension"}, "TEXT", "Path to SQLite extension, with optional :entrypoint", nil, runsInput},
		// Interpreters: the input is code.
		{[]string{"-c"}, "cmd", "program passed in as string (terminates option list)", nil, codeInput},
		{[]string{"-e", "--eval"}, "script", "evaluate script", nil, codeInput},
		{[]string{"-e", "--expression"}, "script", "add the script to the commands to be executed", nil, codeInput},
		{[]string{"sql"}, "sql", "", nil, codeInput},
		{[]string{"program"}, "program", "", nil, runsInput}, // code when positional: see TestDraftInterpreters
		// Writers.
		{[]string{"--export-json"}, "<FILE>", "Export the timing summary statistics as JSON to the given FILE.", nil, writesInput},
		{[]string{"-i", "--inplace"}, "", "update the file inplace of first file given.", nil, writesInput},
		{[]string{"--fix"}, "", "Automatically fix problems", nil, writesInput},
		{[]string{"--unsafe-fixes"}, "", "Include fixes that may not retain the original intent of the code.", nil, writesInput},
		{[]string{"--output-file"}, "<OUTPUT_FILE>", "Specify file to write the linter output to (default: stdout)", nil, writesInput},
		{[]string{"-o", "--output"}, "FILE", "write result to FILE instead of standard output", nil, writesInput},
		{[]string{"-o", "--output-file"}, "string", "Export all info into file as JSON", nil, writesInput},
		{[]string{"-l", "--log-file"}, "string", "Path to a logfile", nil, writesInput},
		{[]string{"--init"}, "", "Run config initialization wizard", nil, writesInput},
		{[]string{"outfile"}, "outfile", "write the output of infile to outfile", nil, writesInput},
		{[]string{"-w", "--write"}, "", "write result to (source) file instead of stdout", nil, writesInput},
		{[]string{"method"}, "method", "The HTTP method to be used for the request (GET, POST, PUT, DELETE, ...).", nil, writesInput},
		{[]string{"-X", "--request"}, "<method>", "Specify request method to use", []string{"GET", "POST", "DELETE"}, writesInput},
		{[]string{"--cache-dir"}, "directory", "set the cache directory", nil, writesInput},
		{[]string{"--cleanup-cache"}, "", "auto remove old cache directories", nil, writesInput},
		{[]string{"--write-config"}, "", "Write current configuration to file (default $HOME/.gdu.yaml)", nil, writesInput},
		// What only reads, or only chooses what is printed.
		{[]string{"-o", "--output-format"}, "string", "[auto|a|yaml|y] output format type.", []string{"auto", "yaml"}, plainInput},
		{[]string{"-o", "--output"}, "string", "Output format. One of: json|yaml|wide", nil, plainInput},
		{[]string{"--no-ignore"}, "", "Show search results from files that would otherwise be ignored", nil, plainInput},
		{[]string{"-c", "--stdout"}, "", "write on standard output, keep original files unchanged", nil, plainInput},
		{[]string{"-a", "--all"}, "", "write counts for all files, not just directories", nil, plainInput},
		{[]string{"-j", "--threads"}, "<num>", "Set number of threads to use for searching & executing (default: number of available CPU cores)", nil, plainInput},
		{[]string{"--no-cache"}, "", "do not use a local cache", nil, plainInput},
		{[]string{"-e", "--regexp"}, "PATTERNS", "use PATTERNS for matching", nil, plainInput},
		{[]string{"--dry-run"}, "", "do not write anything", nil, plainInput},
		{[]string{"-f", "--input-file"}, "string", "Import analysis from JSON file", nil, plainInput},
	} {
		if got, why := judgeInput(c.names, c.value, c.desc, c.enum); got != c.want {
			t.Errorf("judgeInput(%q, %q, %q) = %v (%s), want %v", c.names, c.value, c.desc, got, why, c.want)
		}
	}
}

func TestStrayOption(t *testing.T) {
	find := "Usage: find [-H] [-L] [-P] [-Olevel] [-D debugopts] [path...] [expression]\n\n" +
		"actions: -delete -print0 -printf FORMAT -fprintf FILE FORMAT -print \n      -exec COMMAND ; -exec COMMAND {} + -ok COMMAND ;\n"
	if got := strayOption(find, map[string]bool{"-H": true}); got != "-delete" {
		t.Errorf("strayOption(find's help) = %q, want -delete", got)
	}
	if got := strayOption("  --exec <cmd>  Execute a command\n", map[string]bool{"--exec": true}); got != "" {
		t.Errorf("strayOption of a flag read = %q, want \"\"", got)
	}
}

// A program whose inputs are code is never read-only, and its code-taking
// inputs are left out unless allowed.
func TestDraftInterpreters(t *testing.T) {
	for _, c := range []struct {
		file string
		argv []string
		code string // an input left out as code
	}{
		{"testdata/help/plain-sqlite3.txt", []string{"sqlite3"}, "sql"},
		{"testdata/safety/node.txt", []string{"node"}, "eval"},
		{"testdata/safety/sed.txt", []string{"sed"}, "expression"},
	} {
		text, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		run := func(context.Context, []string, time.Duration) (string, error) { return string(text), nil }
		for _, allow := range []bool{false, true} {
			var opts Options
			if allow {
				opts.Allow = []string{c.argv[0]}
			}
			res, err := draft(context.Background(), c.argv, opts, run)
			if err != nil {
				t.Fatalf("%s: %v", c.argv, err)
			}
			var m struct {
				Tools []struct {
					ReadOnly bool
					Inputs   map[string]any
				}
			}
			if err := json.Unmarshal(res.Manifest, &m); err != nil {
				t.Fatal(err)
			}
			tl := m.Tools[0]
			if _, offered := tl.Inputs[c.code]; tl.ReadOnly || offered != allow {
				t.Errorf("%s, allowed %v: readOnly %v, %s offered %v; want not read-only, %s offered only when allowed\n%s",
					c.argv, allow, tl.ReadOnly, c.code, offered, c.code, strings.Join(res.LeftOut, "\n"))
			}
		}
	}
}
