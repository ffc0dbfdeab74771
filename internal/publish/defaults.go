package publish

import (
	"regexp"
	"strings"
	"sync"
)

// Defaults are what a release of the bundle NAME, VERSION from a
// repository publishes under unless told otherwise.
type Defaults struct {
	// Repository is the repository's URL without a trailing "/" or ".git".
	Repository string
	// RegistryName is io.github.OWNER/NAME for a GitHub repository, else "".
	RegistryName string
	// DownloadURL is where a GitHub release's files are downloaded from,
	// REPOSITORY/releases/download/vVERSION/, else "".
	DownloadURL string
}

// githubRepo matches a GitHub repository URL and captures its owner.
var githubRepo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^https://github\.com/([A-Za-z0-9-]+)/[A-Za-z0-9._-]+?(\.git)?/?$`)
})

// DefaultsFor returns the defaults of the bundle name at version (without
// a leading "v") from repository, a URL or "".
func DefaultsFor(repository, name, version string) Defaults {
	d := Defaults{Repository: strings.TrimSuffix(strings.TrimSuffix(repository, "/"), ".git")}
	if m := githubRepo().FindStringSubmatch(repository); m != nil {
		d.RegistryName = "io.github." + m[1] + "/" + name
		d.DownloadURL = d.Repository + "/releases/download/v" + version + "/"
	}
	return d
}

// PluginName makes a bundle name into what plugins and extensions may be
// called: lower-case words of letters and digits joined by '-'.
func PluginName(name string) string {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
	return strings.Join(words, "-")
}
