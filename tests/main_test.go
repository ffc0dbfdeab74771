// Package tests holds the end-to-end tests of mcpship: they build the real
// binary once and drive it as a user or an MCP client would.
package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// binPath is the mcpship binary built by TestMain; binDir is its directory.
// standinDir holds the stand-in program (tests/standin) under the names
// rigor, commitbrief and standin, and tests/workerstandin, a program that can
// run as a Bazel persistent worker; goappPath, cobraappPath and
// cliv3appPath are examples/goapp, examples/cobraapp and examples/cliv3app,
// the same app on urfave/cli v2, Cobra and urfave/cli v3.
var binPath, binDir, standinDir, goappPath, cobraappPath, cliv3appPath string

// notifierPath is tests/notifier, a stdio server that sends list changes,
// resource updates and log messages, for the bridge tests.
var notifierPath string

// askerPath is tests/asker, a legacy stdio server that asks its client
// for input during a call, for the bridge tests.
var askerPath string

// coverDir is $MCPSHIP_COVERDIR. When it is set (scripts/test.sh sets it),
// mcpship and the example apps are built with -cover and write their coverage data
// there ($GOCOVERDIR, which every command the tests run must get), so that
// what the end-to-end tests exercise counts in the coverage report.
var coverDir = os.Getenv("MCPSHIP_COVERDIR")

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcpship-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	binPath = filepath.Join(dir, "mcpship")
	if runtime.GOOS == "windows" {
		binPath += ".exe"
	}
	standinDir = filepath.Join(dir, "standin")
	goappPath = filepath.Join(dir, "goapp"+exeSuffix())
	notifierPath = filepath.Join(dir, "notifier"+exeSuffix())
	askerPath = filepath.Join(dir, "asker"+exeSuffix())
	cobraappPath = filepath.Join(dir, "cobraapp"+exeSuffix())
	cliv3appPath = filepath.Join(dir, "cliv3app"+exeSuffix())
	standin := filepath.Join(standinDir, "standin"+exeSuffix())
	if coverDir != "" {
		if err := os.Setenv("GOCOVERDIR", coverDir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if err := build(dir, standinDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, name := range []string{"rigor", "commitbrief"} {
		if err := os.Link(standin, filepath.Join(standinDir, name+exeSuffix())); err != nil {
			fmt.Fprintf(os.Stderr, "linking the stand-in: %v\n", err)
			return 1
		}
	}
	return m.Run()
}

// build builds mcpship, the example apps and the helper programs into
// dir, the stand-ins into standins, in one go build per flag set, so that
// their packages compile once and in parallel. mcpship and the apps are
// built with -cover when the run collects coverage; all with the release
// build's tag (.goreleaser.yaml), so that the tests run what users get.
func build(dir, standins string) error {
	const mod = "github.com/mcpship/mcpship/"
	covered := []string{"cmd/mcpship", "examples/goapp", "examples/cobraapp", "examples/cliv3app"}
	plain := []string{"tests/notifier", "tests/asker", "tests/standin", "tests/workerstandin"}
	groups := [][]string{append(covered, plain...)}
	if coverDir != "" {
		groups = [][]string{covered, plain}
	}
	out := filepath.Join(dir, "build")
	for i, pkgs := range groups {
		args := []string{"build", "-tags=urfave_cli_no_docs", "-o", out + string(os.PathSeparator)}
		if coverDir != "" && i == 0 {
			args = append(args, "-cover")
		}
		for _, p := range pkgs {
			args = append(args, mod+p)
		}
		cmd := exec.Command("go", args...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %v", strings.Join(pkgs, " "), err)
		}
	}
	if err := os.MkdirAll(standins, 0o755); err != nil {
		return err
	}
	for _, p := range append(covered, plain...) {
		to := dir
		if strings.Contains(p, "standin") {
			to = standins
		}
		name := path.Base(p) + exeSuffix()
		if err := os.Rename(filepath.Join(out, name), filepath.Join(to, name)); err != nil {
			return err
		}
	}
	return os.Remove(out)
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// TestScripts runs the testscript files in testdata/script with the built
// mcpship and the example apps first on PATH. Each script gets a fresh $WORK, used as $HOME too.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			env.Setenv("MCPSHIP_BIN", binPath)
			env.Setenv("GOAPP_BIN", goappPath)
			env.Setenv("COBRAAPP_BIN", cobraappPath)
			env.Setenv("CLIV3APP_BIN", cliv3appPath)
			examples, err := filepath.Abs("../examples")
			if err != nil {
				return err
			}
			env.Setenv("EXAMPLES", examples)
			if coverDir != "" {
				env.Setenv("GOCOVERDIR", coverDir)
			}
			return nil
		},
	})
}
