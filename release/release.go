// Package release reports which build of mcpship is running: its version,
// commit and build date.
//
// Release builds set the values with the linker:
//
//	-ldflags "-X github.com/mcpship/mcpship/release.version=1.2.3
//	          -X github.com/mcpship/mcpship/release.commit=abc1234
//	          -X github.com/mcpship/mcpship/release.date=2026-11-29T12:00:00Z"
//
// Other builds fall back to the module and VCS data that the go command
// records in the binary (runtime/debug.ReadBuildInfo). The version is always
// spelled without a leading "v", whichever way it was found.
package release

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Set by -ldflags -X in release builds.
var (
	version string
	commit  string
	date    string
)

// DevelVersion is the version reported by a build that carries no version:
// a plain "go build" outside a tagged checkout.
const DevelVersion = "devel"

// Info describes one build of mcpship.
type Info struct {
	Version   string `json:"version"`            // "1.2.3", "1.2.4-0.2026…-abcdef", or DevelVersion
	Commit    string `json:"commit,omitempty"`   // VCS revision, when known
	Date      string `json:"date,omitempty"`     // build or commit time (RFC 3339), when known
	Modified  bool   `json:"modified,omitempty"` // built from a checkout with uncommitted changes
	GoVersion string `json:"go"`                 // toolchain that built the binary
	Platform  string `json:"platform"`           // GOOS/GOARCH
}

// Current returns the build information of the running binary.
// It reads the build information once; later calls return the same Info.
func Current() Info { return current() }

var current = sync.OnceValue(func() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuild(version, commit, date, bi)
})

func fromBuild(ver, rev, when string, bi *debug.BuildInfo) Info {
	info := Info{
		Version:   ver,
		Commit:    rev,
		Date:      when,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi != nil {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if info.Commit == "" {
					info.Commit = s.Value
				}
			case "vcs.time":
				if info.Date == "" {
					info.Date = s.Value
				}
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	// Go 1.24 and later mark a build from a modified checkout as "+dirty";
	// Modified says so already, and the version keeps one spelling.
	if v, ok := strings.CutSuffix(info.Version, "+dirty"); ok {
		info.Version = v
		info.Modified = true
	}
	info.Version = trimV(info.Version)
	if info.Version == "" {
		info.Version = DevelVersion
	}
	return info
}

// trimV removes the "v" that module versions start with ("v1.2.3" becomes
// "1.2.3"), so that every kind of build spells a version the way GoReleaser's
// {{.Version}} does.
func trimV(v string) string {
	if len(v) > 1 && v[0] == 'v' && '0' <= v[1] && v[1] <= '9' {
		return v[1:]
	}
	return v
}

// String formats the information on one line, as "mcpship --version" prints it.
func (i Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpship %s", i.Version)
	var extra []string
	if i.Commit != "" {
		c := i.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if i.Modified {
			c += ", modified"
		}
		extra = append(extra, "commit "+c)
	}
	if i.Date != "" {
		extra = append(extra, "built "+i.Date)
	}
	extra = append(extra, i.GoVersion, i.Platform)
	fmt.Fprintf(&b, " (%s)", strings.Join(extra, ", "))
	return b.String()
}
