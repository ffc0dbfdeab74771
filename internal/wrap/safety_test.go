package wrap

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"runtime"
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
		// Inputs that load or run code, whatever their words: addons, exec
		// actions, servers, program names, startup files.
		{[]string{"--addon"}, "<addon>", "Execute addon. i.e. --addon=misra.", nil, runsInput},
		{[]string{"--addon-python"}, "<python interpreter>", "You can specify the python interpreter", nil, runsInput},
		{[]string{"--checkpoint-action"}, "ACTION", "execute ACTION on each checkpoint", nil, runsInput},
		{[]string{"--mcp"}, "", "Start the ESLint MCP server", nil, runsInput},
		{[]string{"--inspect-config"}, "", "Open the config inspector with the current configuration", nil, runsInput},
		{[]string{"-shellcheck"}, "string", `Command name or file path of "shellcheck" external command.`, nil, runsInput},
		{[]string{"--rulesdir"}, "path::String", "Load additional rules from this directory", nil, runsInput},
		{[]string{"-A", "--app"}, "TEXT", "The Flask application or factory function to load, in the form 'module:name'.", nil, runsInput},
		{[]string{"--extra-arg"}, "<string>", "Additional argument to append to the compiler command line", nil, runsInput},
		{[]string{"--remote-option", "-M"}, "OPT", "send OPTION to the remote side only", nil, runsInput},
		{[]string{"-init"}, "FILENAME", "read/process named file", nil, runsInput},
		{[]string{"-u"}, "<vimrc>", "Use <vimrc> instead of any .vimrc", nil, runsInput},
		{[]string{"-w", "--watch"}, "", "After listing/getting the requested object, watch for changes.", nil, runsInput},
		{[]string{"--load"}, "<pluginfilename>", "Load the specified plugin", nil, runsInput},
		// Inputs that write a file the program keeps.
		{[]string{"--suppress-all"}, "", "Suppress all violations - default: false", nil, writesInput},
		{[]string{"--suppressions-location"}, "path::String", "Specify the location of the suppressions file", nil, writesInput},
		{[]string{"--cppcheck-build-dir"}, "<dir>", "Cppcheck work folder.", nil, writesInput},
		{[]string{"--suppress"}, "<spec>", "Suppress warnings that match <spec>.", nil, plainInput},
		{[]string{"--suppress-common-lines"}, "", "do not output common lines", nil, plainInput},
		{[]string{"--prune"}, "", "Do not traverse into directories that match the search criteria.", nil, plainInput},
		// Configuration files and parts loaded by name: left out of read-only tools.
		{[]string{"-c", "--config"}, "path::String", "Use this configuration instead of eslint.config.* look up", nil, loadsInput},
		{[]string{"--parser"}, "String", "Specify the parser to be used", nil, loadsInput},
		{[]string{"--parser"}, "<flow|babel>", "Which parser to use.", []string{"flow", "babel"}, plainInput},
		{[]string{"--config-exclude"}, "<dir>", "Path (prefix) to be excluded from configuration checking.", nil, plainInput},
		{[]string{"--print-config"}, "path::String", "Print the configuration for the given file", nil, writesInput}, // "print" and a path: may be an output file
	} {
		if got, why := judgeInput(c.names, c.value, c.desc, c.enum); got != c.want {
			t.Errorf("judgeInput(%q, %q, %q) = %v (%s), want %v", c.names, c.value, c.desc, got, why, c.want)
		}
	}
}

// Each rule of inputRules, on its own: an input it finds, and one like
// it that it does not.
func TestInputRules(t *testing.T) {
	tested := map[string]bool{}
	type in struct {
		names       []string
		value, desc string
	}
	for _, c := range []struct {
		rule      func(inputWords) string
		hit, miss in
	}{
		{turnsOff, in{[]string{"--dry-run"}, "", ""}, in{[]string{"--run"}, "", ""}},
		{runsByName, in{[]string{"--password-command"}, "", ""}, in{[]string{"--max-statements"}, "<int>", ""}},
		{runsByName, in{[]string{"--pager"}, "<command>", ""}, in{[]string{"--no-pager"}, "", ""}},
		{runsByValue, in{[]string{"-I"}, "PROG", ""}, in{[]string{"-w"}, "<scriptout>", ""}},
		{runVerbOnCode, in{[]string{"--addon"}, "<addon>", "Execute addon."}, in{[]string{"--library"}, "<cfg>", "Load file <cfg> that contains information about types"}},
		{runVerbOnCode, in{[]string{"--checkpoint-action"}, "ACTION", "execute ACTION on each checkpoint"}, in{[]string{"-j"}, "N", "Run N jobs at once"}},
		{loadsFromFolder, in{[]string{"-L"}, "directory", "Search modules from the directory"}, in{[]string{"-I"}, "<dir>", "Give path to search for include files."}},
		{execAction, in{[]string{"--on-change"}, "ACTION", "what to do: exec=COMMAND runs COMMAND"}, in{[]string{"-N"}, "", "An alias for '--shell=none'."}},
		{namesProgram, in{[]string{"-pyflakes"}, "string", `Command name or file path of "pyflakes" external command.`}, in{[]string{"--name"}, "string", "The name of the command to show"}},
		{passesArgs, in{[]string{"--extra-arg-before"}, "<string>", "Additional argument to prepend to the compiler command line"}, in{[]string{"--args"}, "", "Remaining arguments are positional string arguments"}},
		{rcFile, in{[]string{"--rcfile"}, "<file>", ""}, in{[]string{"--warc-file"}, "FILENAME", ""}},
		{serves, in{[]string{"--listen"}, "ADDR", ""}, in{[]string{"-S", "--server-response"}, "", "print server response."}},
		{serves, in{[]string{"--ui"}, "", "Start a web server for the results"}, in{[]string{"--server"}, "URL", "The address of the API server"}},
		{turnsOff, in{[]string{"--check"}, "", "Don't write the files back, just return the status."}, in{[]string{"--fix"}, "", "Automatically fix problems"}},
		{writesByName, in{[]string{"--write-baseline"}, "", ""}, in{[]string{"--baseline-info"}, "", ""}},
		{keepsState, in{[]string{"--update-baseline"}, "", "Update the baseline"}, in{[]string{"--suppressions-list"}, "<file>", "Suppress warnings listed in the file."}},
		{outputPath, in{[]string{"--checkers-report"}, "<file>", "Write a report of all the active checkers"}, in{[]string{"-s", "--report-identical-files"}, "", "report when two files are the same"}},
		{outputValue, in{[]string{"dest"}, "DEST", ""}, in{[]string{"source"}, "SOURCE", ""}},
		{writesTo, in{[]string{"--export-json"}, "<FILE>", "Export the timing summary statistics as JSON to the given FILE."}, in{[]string{"-c", "--stdout"}, "", "write on standard output"}},
		{changeVerb, in{[]string{"--unsafe-fixes"}, "", "Include fixes that may modify the code"}, in{[]string{"--diff"}, "", "Show the changes"}},
		{changingMethod, in{[]string{"method"}, "", "The HTTP method (GET, POST, PUT, DELETE, ...) of the request."}, in{[]string{"--timeout"}, "", "Seconds to wait for the request"}},
		{configFile, in{[]string{"-c", "--config-file"}, "CONFIG_FILE", "path to a custom configuration"}, in{[]string{"--project-configuration"}, "<config>", "limit the configuration cppcheck should check"}},
		{namesComponent, in{[]string{"--reporter"}, "<name>", "Specify the reporter to use"}, in{[]string{"--transform"}, "EXPRESSION", "use sed replace EXPRESSION to transform file names"}},
	} {
		tested[funcName(c.rule)] = true
		for _, x := range []struct {
			in   in
			want bool
		}{{c.hit, true}, {c.miss, false}} {
			w := inputWordsOf(x.in.names, x.in.value, x.in.desc, nil)
			if got := c.rule(w); (got != "") != x.want {
				t.Errorf("%s(%q, %q, %q) = %q, want a match %v", funcName(c.rule), x.in.names, x.in.value, x.in.desc, got, x.want)
			}
		}
	}
	// Every rule is tested above.
	for _, r := range inputRules {
		if !tested[funcName(r.when)] {
			t.Errorf("inputRules has %s, which TestInputRules does not test", funcName(r.when))
		}
	}
}

func funcName(f func(inputWords) string) string {
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	return name[strings.LastIndex(name, ".")+1:]
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
