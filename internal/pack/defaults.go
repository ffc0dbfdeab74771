package pack

import (
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpship/mcpship/internal/manifest"
)

// A Default is a value of [Options] taken from the files because no flag
// gave it.
type Default struct {
	Field string // "version", "description" or "author"
	Value string
	From  string // where it came from, such as `the git tag v1.2.3`
}

// FillDefaults gives o's empty Version, Description and Author the values
// the files say: the version from the manifest's "version", else the git
// tag of HEAD; the description from the manifest's "description"; the
// author from the manifest's "author", else git's user.name and
// user.email. Git is asked in the manifest's directory, or the current
// one for an app. It returns the values it gave, in that order. A
// manifest that does not load gives nothing: Write reports its problems.
func FillDefaults(o *Options) []Default {
	var m *manifest.Manifest
	dir := "."
	if o.Manifest != "" {
		dir = filepath.Dir(o.Manifest)
		m, _ = manifest.Load(o.Manifest)
	}
	if m == nil {
		m = &manifest.Manifest{}
	}
	var got []Default
	fill := func(field string, dst *string, value, from string) {
		if *dst == "" && value != "" {
			*dst = value
			got = append(got, Default{field, value, from})
		}
	}
	fill("version", &o.Version, strings.TrimPrefix(m.Version, "v"), `the manifest's "version"`)
	if o.Version == "" {
		if tag := git(dir, "describe", "--tags", "--exact-match", "HEAD"); tag != "" {
			fill("version", &o.Version, strings.TrimPrefix(tag, "v"), "the git tag "+tag)
		}
	}
	fill("description", &o.Description, m.Description, `the manifest's "description"`)
	fill("author", &o.Author, m.Author, `the manifest's "author"`)
	if o.Author == "" {
		if name := git(dir, "config", "user.name"); name != "" {
			author := name
			if email := git(dir, "config", "user.email"); email != "" {
				author += " <" + email + ">"
			}
			fill("author", &o.Author, author, "git config user.name and user.email")
		}
	}
	return got
}

// git returns the first line git prints for args in dir, or "" when git
// fails or is not installed.
func git(dir string, args ...string) string {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}
