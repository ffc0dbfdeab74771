package resultcache

import (
	"slices"
	"strings"
	"testing"
)

func TestTemplateExpand(t *testing.T) {
	values := map[string][]string{
		"file":  {"a.rb"},
		"files": {"x.rb", "y.rb"},
		"dirs":  {"lib", "sig"},
		"glob":  {"*.rb"},
		"empty": {""},
		"some":  {"", "z.rb"},
	}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"Gemfile.lock", []string{"Gemfile.lock"}},
		{"{file}", []string{"a.rb"}},
		{"{files}", []string{"x.rb", "y.rb"}},
		{"src/{files}.bak", []string{"src/x.rb.bak", "src/y.rb.bak"}},
		{"{dirs}/{files}", []string{"lib/x.rb", "lib/y.rb", "sig/x.rb", "sig/y.rb"}},
		{"{glob}", []string{`\*.rb`}}, // a value names one path, never a glob
		{"{missing}", nil},
		{"src/{missing}/x", nil},
		{"{empty}", nil},
		{"{some}", []string{"z.rb"}},
		{"{{lit}}/{file}", []string{"{lit}/a.rb"}},
		{"sig/**/*.rbs", []string{"sig/**/*.rbs"}},
	} {
		tmpl, err := ParseTemplate(tc.pattern)
		if err != nil {
			t.Errorf("ParseTemplate(%q): %v", tc.pattern, err)
			continue
		}
		got := tmpl.Expand(func(name string) []string { return values[name] })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q expands to %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

func TestTemplateNames(t *testing.T) {
	tmpl, err := ParseTemplate("{dir}/{{x}}/{file}.{ext}")
	if err != nil {
		t.Fatal(err)
	}
	if got := tmpl.Names(); !slices.Equal(got, []string{"dir", "file", "ext"}) {
		t.Errorf("Names: %q", got)
	}
}

func TestTemplateExpandIsBounded(t *testing.T) {
	tmpl, err := ParseTemplate("{a}/{b}/{c}")
	if err != nil {
		t.Fatal(err)
	}
	many := make([]string, 100)
	for i := range many {
		many[i] = strings.Repeat("v", i+1)
	}
	if got := tmpl.Expand(func(string) []string { return many }); len(got) > MaxInputs+1 {
		t.Errorf("100×100×100 values expand to %d patterns, more than MaxInputs+1", len(got))
	}
}

func TestParseTemplateErrors(t *testing.T) {
	for pattern, want := range map[string]string{
		"":         "is empty",
		"{file":    "no closing '}'",
		"file}":    "no opening '{'",
		"{}":       "is not a placeholder",
		"{a{b}":    "is not a placeholder",
		"sig/[a":   "is not a valid glob",
		"{dir}/[a": "is not a valid glob",
		"x/{f}\\":  "is not a valid glob",
	} {
		_, err := ParseTemplate(pattern)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTemplate(%q): %v, want an error saying %q", pattern, err, want)
		}
	}
}
