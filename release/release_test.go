package release

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// vcs returns the build settings that "go build" records in a checkout.
func vcs(rev, when string, modified bool) []debug.BuildSetting {
	m := "false"
	if modified {
		m = "true"
	}
	return []debug.BuildSetting{
		{Key: "-trimpath", Value: "true"},
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: rev},
		{Key: "vcs.time", Value: when},
		{Key: "vcs.modified", Value: m},
	}
}

func buildInfo(version string, settings []debug.BuildSetting) *debug.BuildInfo {
	return &debug.BuildInfo{
		Path:     "github.com/mcpship/mcpship/cmd/mcpship",
		Main:     debug.Module{Path: "github.com/mcpship/mcpship", Version: version},
		Settings: settings,
	}
}

const (
	rev  = "0123456789abcdef0123456789abcdef01234567"
	when = "2026-11-29T12:00:00Z"
)

func TestFromBuild(t *testing.T) {
	tests := []struct {
		name                string
		ldVersion, ldCommit string
		ldDate              string
		bi                  *debug.BuildInfo
		want                Info
	}{{
		name:      "goreleaser ldflags",
		ldVersion: "1.2.3", ldCommit: rev, ldDate: when,
		bi:   buildInfo("(devel)", nil),
		want: Info{Version: "1.2.3", Commit: rev, Date: when},
	}, {
		name:      "ldflags win over build info",
		ldVersion: "1.2.3", ldCommit: "feedface", ldDate: "2026-01-01T00:00:00Z",
		bi:   buildInfo("v0.9.0", vcs(rev, when, false)),
		want: Info{Version: "1.2.3", Commit: "feedface", Date: "2026-01-01T00:00:00Z"},
	}, {
		name:      "ldflags version with a v",
		ldVersion: "v1.2.3",
		bi:        buildInfo("(devel)", nil),
		want:      Info{Version: "1.2.3"},
	}, {
		name: "go install module@v1.2.3",
		bi:   buildInfo("v1.2.3", nil),
		want: Info{Version: "1.2.3"},
	}, {
		name: "go install prerelease",
		bi:   buildInfo("v1.3.0-rc.1", nil),
		want: Info{Version: "1.3.0-rc.1"},
	}, {
		name: "checkout on a tag",
		bi:   buildInfo("v1.2.3", vcs(rev, when, false)),
		want: Info{Version: "1.2.3", Commit: rev, Date: when},
	}, {
		name: "checkout after a tag",
		bi:   buildInfo("v1.2.4-0.20261129120000-0123456789ab", vcs(rev, when, false)),
		want: Info{Version: "1.2.4-0.20261129120000-0123456789ab", Commit: rev, Date: when},
	}, {
		name: "checkout with uncommitted changes",
		bi:   buildInfo("v1.2.3+dirty", vcs(rev, when, true)),
		want: Info{Version: "1.2.3", Commit: rev, Date: when, Modified: true},
	}, {
		name:      "ldflags in a modified checkout",
		ldVersion: "1.2.3",
		bi:        buildInfo("v1.2.3+dirty", vcs(rev, when, true)),
		want:      Info{Version: "1.2.3", Commit: rev, Date: when, Modified: true},
	}, {
		name: "checkout without a tag, buildvcs on",
		bi:   buildInfo("(devel)", vcs(rev, when, false)),
		want: Info{Version: DevelVersion, Commit: rev, Date: when},
	}, {
		name: "go build with -buildvcs=false",
		bi:   buildInfo("(devel)", nil),
		want: Info{Version: DevelVersion},
	}, {
		name: "no build info",
		want: Info{Version: DevelVersion},
	}, {
		name:      "a version that starts with a letter v keeps it",
		ldVersion: "vanilla",
		want:      Info{Version: "vanilla"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fromBuild(tt.ldVersion, tt.ldCommit, tt.ldDate, tt.bi)
			tt.want.GoVersion = runtime.Version()
			tt.want.Platform = runtime.GOOS + "/" + runtime.GOARCH
			if got != tt.want {
				t.Errorf("fromBuild(%q, %q, %q, ...)\n got %+v\nwant %+v", tt.ldVersion, tt.ldCommit, tt.ldDate, got, tt.want)
			}
		})
	}
}

func TestInfoString(t *testing.T) {
	tests := []struct {
		info Info
		want string
	}{{
		Info{Version: "1.2.3", Commit: rev, Date: when, GoVersion: "go1.26.8", Platform: "linux/amd64"},
		"mcpship 1.2.3 (commit 0123456789ab, built 2026-11-29T12:00:00Z, go1.26.8, linux/amd64)",
	}, {
		Info{Version: "1.2.3", Commit: "abc", Modified: true, GoVersion: "go1.26.8", Platform: "darwin/arm64"},
		"mcpship 1.2.3 (commit abc, modified, go1.26.8, darwin/arm64)",
	}, {
		Info{Version: DevelVersion, GoVersion: "go1.26.8", Platform: "windows/amd64"},
		"mcpship devel (go1.26.8, windows/amd64)",
	}}
	for _, tt := range tests {
		if got := tt.info.String(); got != tt.want {
			t.Errorf("%+v.String()\n got %q\nwant %q", tt.info, got, tt.want)
		}
	}
}

// TestCurrent checks the running test binary, which carries no ldflags: its
// version is read from the build info and never starts with "v".
func TestCurrent(t *testing.T) {
	got := Current()
	if got.Version == "" || strings.HasPrefix(got.Version, "v") || strings.HasSuffix(got.Version, "+dirty") {
		t.Errorf("Current().Version = %q, want a version without a leading v or +dirty", got.Version)
	}
	if got.GoVersion != runtime.Version() || got.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("Current() = %+v, want GoVersion %s and Platform %s/%s", got, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
}
