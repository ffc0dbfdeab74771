// Package dist tests how mcpship is distributed: the GoReleaser
// configuration, the release archives it builds, install.sh run by real
// POSIX shells against a fake release server, "go install" of a tagged
// module, and the GitHub Actions workflows that test and release.
//
// The tests need goreleaser, actionlint, shellcheck, dash and busybox; each
// test looks for the ones it uses on PATH and in $MCPSHIP_CACHE/tools (default
// ~/.cache/mcpship/tools), where scripts/install-tools.sh puts them, and
// skips when they are missing, unless MCPSHIP_DIST_TOOLS=require, which
// turns the skip into a failure. "go test -short" skips the release build and
// everything that needs it.
package dist

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Tag and version of the release that the tests cut in a scratch repository.
const (
	testTag     = "v0.0.1-test"
	testVersion = "0.0.1-test"
	// testDate is the commit date of the scratch repository, which release
	// builds report as their build date.
	testDate = "2026-01-02T03:04:05Z"
)

// scratch is a directory for the whole test process, removed by TestMain.
var scratch string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpship-dist-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "dist tests: cannot create a temporary directory: %v\n", err)
		os.Exit(1)
	}
	scratch = dir
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(os.Stderr, "dist tests: cannot remove %s: %v\n", dir, err)
	}
	os.Exit(code)
}

// repoRoot returns the root of the mcpship checkout under test.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".goreleaser.yaml")); err != nil {
		t.Fatalf("%s does not look like the mcpship repository: %v", root, err)
	}
	return root
}

// tool returns the path of the named tool, from $MCPSHIP_CACHE/tools first
// (where scripts/install-tools.sh puts the pinned goreleaser), then PATH.
// When it is found in neither, the test is skipped, loudly.
func tool(t *testing.T, name string) string {
	t.Helper()
	cache := os.Getenv("MCPSHIP_CACHE")
	if cache == "" {
		if home, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(home, ".cache", "mcpship")
		}
	}
	if cache != "" {
		p := filepath.Join(cache, "tools", name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	missing := fmt.Sprintf("%s is not on PATH or in %s; run 'sh scripts/install-tools.sh' to install it",
		name, filepath.Join(cache, "tools"))
	if os.Getenv("MCPSHIP_DIST_TOOLS") == "require" {
		t.Fatalf("%s (MCPSHIP_DIST_TOOLS=require)", missing)
	}
	t.Skipf("\n\n*** SKIPPED %s: %s.\n*** This test did not run. ***\n", t.Name(), missing)
	return ""
}

// run runs a command in dir and fails the test, showing its output, if the
// command fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := runErr(dir, env, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runErr runs a command in dir with env added to the environment and returns
// its combined output; the error, if any, quotes that output.
func runErr(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out), nil
}

var (
	sourceOnce sync.Once
	sourceDir  string
	sourceNote string // logged by TestRelease
	sourceErr  error
)

// source returns a scratch git repository holding the working tree of the
// checkout under test (tracked and untracked files that are not ignored,
// edits included) committed once and tagged testTag. It is made once per
// test process.
func source(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	sourceOnce.Do(func() {
		sourceDir, sourceNote, sourceErr = makeSource(root, filepath.Join(scratch, "src"))
	})
	if sourceErr != nil {
		t.Fatalf("making the scratch repository: %v", sourceErr)
	}
	return sourceDir
}

// makeSource copies the working tree at root into dir, commits and tags it,
// and returns dir and a note for the test log.
func makeSource(root, dir string) (_, note string, _ error) {
	files, err := runErr(root, nil, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return "", "", err
	}
	for _, name := range strings.Split(files, "\x00") {
		if name == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			return "", "", err
		}
		fi, err := os.Stat(filepath.Join(root, name))
		if err != nil {
			return "", "", err
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
			return "", "", err
		}
	}
	// The archives must hold README.md; the tests should not fail while the
	// repository has none yet, but they say so.
	readme := filepath.Join(dir, "README.md")
	if _, err := os.Stat(readme); os.IsNotExist(err) {
		note = "NOTE: the repository has no README.md; a real release fails without it. The scratch repository got a placeholder."
		if err := os.WriteFile(readme, []byte("# mcpship\n"), 0o644); err != nil {
			return "", "", err
		}
	}
	env := []string{
		"GIT_AUTHOR_NAME=dist test", "GIT_AUTHOR_EMAIL=dist@example.invalid", "GIT_AUTHOR_DATE=" + testDate,
		"GIT_COMMITTER_NAME=dist test", "GIT_COMMITTER_EMAIL=dist@example.invalid", "GIT_COMMITTER_DATE=" + testDate,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "-m", "feat: release under test"},
		{"tag", testTag},
		// GoReleaser reads the owner and name from the origin remote.
		{"remote", "add", "origin", "https://github.com/mcpship/mcpship.git"},
	} {
		if _, err := runErr(dir, env, "git", args...); err != nil {
			return "", "", err
		}
	}
	return dir, note, nil
}
