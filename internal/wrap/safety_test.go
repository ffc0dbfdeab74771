package wrap

import "testing"

func TestRisky(t *testing.T) {
	for _, c := range []struct {
		name, summary string
		risky         bool
	}{
		{"lint", "list all non-compliant files", false},
		{"check", "Checks if configuration is valid", false},
		{"routes", "Show the routes for the app.", false},
		{"eval", "(default) Apply the expression to each document", false},
		{"supported-licenses", "list all supported SPDX licenses", false},
		{"set-mkdocs-remote", "", true},
		{"deploy-mkdocs", "", true},
		{"annotate", "add copyright and licensing into the header of files", true},
		{"spdx", "Writes the bill of materials to a file", true},
		{"tidy", "Removes unused entries", true},
		{"fix", "Fix the files in place", true},
		{"i", "Create docs.go", true},
		{"up", "Upload the bundle", true},
		{"stats", "Show statistics; nothing is rewritten", false},
	} {
		if got := risky(c.name, nil, c.summary) != ""; got != c.risky {
			t.Errorf("risky(%q, %q) = %v, want %v", c.name, c.summary, got, c.risky)
		}
	}
	for _, c := range []struct {
		names []string
		desc  string
		risky bool
	}{
		{[]string{"-x", "--exec"}, "Execute a command for each search result", true},
		{[]string{"--export-json"}, "Export the timing summary statistics as JSON", true},
		{[]string{"-i", "--inplace"}, "update the file in place of first file given.", true},
		{[]string{"-p", "--prepare"}, "Execute CMD before each timing run.", true},
		{[]string{"-o", "--output-format"}, "[auto|a|yaml|y] output format type.", false},
		{[]string{"--no-ignore"}, "Show search results from files that would otherwise be ignored", false},
	} {
		if got := riskyFlag(option{names: c.names, desc: c.desc}) != ""; got != c.risky {
			t.Errorf("riskyFlag(%q, %q) = %v, want %v", c.names, c.desc, got, c.risky)
		}
	}
}
