// Package tests holds the end-to-end tests of mcpship: they build the real
// binary once and drive it as a user or an MCP client would.
package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	for _, b := range []struct {
		out, pkg string
		cover    bool
	}{
		{binPath, "github.com/mcpship/mcpship/cmd/mcpship", true},
		{standin, "github.com/mcpship/mcpship/tests/standin", false},
		{filepath.Join(standinDir, "workerstandin"+exeSuffix()), "github.com/mcpship/mcpship/tests/workerstandin", false},
		{notifierPath, "github.com/mcpship/mcpship/tests/notifier", false},
		{askerPath, "github.com/mcpship/mcpship/tests/asker", false},
		{goappPath, "github.com/mcpship/mcpship/examples/goapp", true},
		{cobraappPath, "github.com/mcpship/mcpship/examples/cobraapp", true},
		{cliv3appPath, "github.com/mcpship/mcpship/examples/cliv3app", true},
	} {
		// The release build's tag (.goreleaser.yaml), so that the tests
		// run what users get.
		args := []string{"build", "-tags=urfave_cli_no_docs", "-o", b.out}
		if b.cover && coverDir != "" {
			args = append(args, "-cover")
		}
		build := exec.Command("go", append(args, b.pkg)...)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n", b.pkg, err)
			return 1
		}
	}
	for _, name := range []string{"rigor", "commitbrief"} {
		if err := os.Link(standin, filepath.Join(standinDir, name+exeSuffix())); err != nil {
			fmt.Fprintf(os.Stderr, "linking the stand-in: %v\n", err)
			return 1
		}
	}
	return m.Run()
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
