package dist

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestWorkflowsLint runs actionlint over .github/workflows; with shellcheck
// on PATH it also checks the shell of every run step.
func TestWorkflowsLint(t *testing.T) {
	actionlint := tool(t, "actionlint")
	root := repoRoot(t)
	cmd := exec.Command(actionlint, "-no-color")
	cmd.Dir = root
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		cmd.Args = append(cmd.Args, "-shellcheck", sc)
	} else {
		t.Log("shellcheck is not on PATH: run steps are not checked")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
}

// workflow is the part of a GitHub Actions workflow the tests read.
type workflow struct {
	On          map[string]map[string][]string `yaml:"on"`
	Permissions map[string]string              `yaml:"permissions"`
	Jobs        map[string]struct {
		Steps []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T, name string) (workflow, string) {
	t.Helper()
	path := filepath.Join(repoRoot(t), ".github", "workflows", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return w, path
}

// TestReleaseWorkflow checks what the release workflow must agree on with
// the rest of the repository: it runs on version tags, it may create
// releases and sign, it runs the GoReleaser version the tests pin, and its
// signing identity is one install.sh accepts.
func TestReleaseWorkflow(t *testing.T) {
	w, path := readWorkflow(t, "release.yml")
	root := repoRoot(t)
	if tags := w.On["push"]["tags"]; len(tags) != 1 || tags[0] != "v*" {
		t.Errorf("%s: runs on tags %q, want [v*]", path, tags)
	}
	if w.Permissions["contents"] != "write" || w.Permissions["id-token"] != "write" {
		t.Errorf("%s: permissions %v, want contents: write (the release) and id-token: write (keyless signing)", path, w.Permissions)
	}

	script, err := os.ReadFile(filepath.Join(root, "scripts", "install-tools.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^GORELEASER_VERSION=(\S+)$`).FindSubmatch(script)
	if m == nil {
		t.Fatal("scripts/install-tools.sh: no GORELEASER_VERSION line")
	}
	pinned := string(m[1])
	var goreleaser, cosign, syft bool
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			switch {
			case strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@"):
				goreleaser = true
				if s.With["version"] != pinned {
					t.Errorf("%s: goreleaser-action runs GoReleaser %q; the tests pin %s (scripts/install-tools.sh)", path, s.With["version"], pinned)
				}
				if !strings.Contains(s.With["args"], "release") {
					t.Errorf("%s: goreleaser-action args %q do not release", path, s.With["args"])
				}
			case strings.HasPrefix(s.Uses, "sigstore/cosign-installer@"):
				cosign = true
			case strings.HasPrefix(s.Uses, "anchore/sbom-action/download-syft@"):
				syft = true
			}
		}
	}
	if !goreleaser || !cosign || !syft {
		t.Errorf("%s: steps for goreleaser %v, cosign %v, syft %v; .goreleaser.yaml signs and writes SBOMs, so all are needed", path, goreleaser, cosign, syft)
	}

	// install.sh verifies the signature's identity with a regexp over the
	// workflow's URL on the tag; this workflow's must match it.
	sh, err := os.ReadFile(filepath.Join(root, "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m = regexp.MustCompile(`--certificate-identity-regexp "([^"]+)"`).FindSubmatch(sh)
	if m == nil {
		t.Fatal("install.sh: no --certificate-identity-regexp")
	}
	// In install.sh the pattern is a double-quoted shell word: \\ is one
	// backslash, \$ a dollar; the tag is substituted, already escaped.
	pattern := strings.NewReplacer(`\\`, `\`, `\$`, `$`, `$escaped_tag`, `v1\.2\.3`).Replace(string(m[1]))
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatalf("install.sh identity pattern %q: %v", pattern, err)
	}
	identity := "https://github.com/mcpship/mcpship/.github/workflows/release.yml@refs/tags/v1.2.3"
	if !re.MatchString(identity) {
		t.Errorf("install.sh would refuse the signature of %s (pattern %s)", identity, pattern)
	}
}

// TestCIWorkflow checks that CI on GitHub runs the same test command as
// every other CI: .ci/run.
func TestCIWorkflow(t *testing.T) {
	w, path := readWorkflow(t, "ci.yml")
	found := false
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			if strings.Contains(s.Run, "bash .ci/run") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("%s: no step runs bash .ci/run", path)
	}
}
