package registry

import (
	"strings"
	"testing"
)

// TestTokenBounds checks each registry name's characters and its length
// at the bound and one past it.
func TestTokenBounds(t *testing.T) {
	a := strings.Repeat
	for _, tc := range []struct {
		what string
		tok  token
		s    string
		want bool
	}{
		{"npm", identifiers["npm"], a("n", 214), true},
		{"npm", identifiers["npm"], a("n", 215), false},
		{"npm", identifiers["npm"], "@" + a("s", 300) + "/" + a("n", 214), true}, // the bound is the name's
		{"npm", identifiers["npm"], "@scope/" + a("n", 215), false},
		{"npm", identifiers["npm"], "-rf", false},
		{"npm", identifiers["npm"], "@scope/pkg/x", false},
		{"pypi", identifiers["pypi"], "a", true},
		{"pypi", identifiers["pypi"], a("p", 200), true},
		{"pypi", identifiers["pypi"], a("p", 201), false},
		{"pypi", identifiers["pypi"], "pkg-", false},
		{"oci", identifiers["oci"], "ghcr.io/o/i:1.0@sha256:" + a("f", 64), true},
		{"oci", identifiers["oci"], a("o", 500), true},
		{"oci", identifiers["oci"], a("o", 501), false},
		{"oci", identifiers["oci"], "-v", false},
		{"version", versionText, "^1.2.3", true},
		{"version", versionText, a("1", 128), true},
		{"version", versionText, a("1", 129), false},
		{"version", versionText, "1 2", false},
		{"env", envName, "_A1", true},
		{"env", envName, a("E", 255), true},
		{"env", envName, a("E", 256), false},
		{"env", envName, "1A", false},
		{"header", headerName, "X-Api-Key", true},
		{"header", headerName, a("h", 256), true},
		{"header", headerName, a("h", 257), false},
		{"header", headerName, "", false},
		{"header", headerName, "X Key", false},
	} {
		if got := tc.tok.match(tc.s); got != tc.want {
			t.Errorf("%s %q (%d bytes): match %v, want %v", tc.what, tc.s, len(tc.s), got, tc.want)
		}
	}
}
