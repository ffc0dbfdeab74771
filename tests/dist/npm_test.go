package dist

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// npmScripts are the scripts that install packages with npm, each with the
// arguments that make it install only a group or two with small lock files,
// and the words of those groups that a request to the registry names.
var npmScripts = []struct {
	script string
	args   []string
	pkgs   []string
}{
	{"install-clients.sh", []string{"mcpb", "conformance"}, []string{"mcpb", "conformance"}},
	{"install-wrapfixtures.sh", []string{"npm"}, []string{"prettier", "eslint"}},
}

// TestInstallScriptsKeepTheNpmConfig runs each script that installs with npm
// against a registry, and the CA that signs its certificate, set only in
// npm's global config file (the npmrc under npm's global prefix, where a
// company set-up puts them): npm must reach that registry, trusting that
// CA. The registry, on loopback, answers 404 to everything, so every
// install fails. Under CI=true, where everything is required, the script
// says so once and exits 1; elsewhere it says "SKIPPED:" once, naming what
// the tests will miss, and exits 0, so that scripts/test.sh goes on.
func TestInstallScriptsKeepTheNpmConfig(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npm is not on PATH")
		}
		t.Skip("SKIPPED: TestInstallScriptsKeepTheNpmConfig: npm is not on PATH; install Node.js with npm")
	}
	for _, s := range npmScripts {
		for _, ci := range []bool{true, false} {
			name := s.script + " CI=false"
			if ci {
				name = s.script + " CI=true"
			}
			t.Run(name, func(t *testing.T) {
				reg := newNpmRegistry(t)
				cmd := exec.Command("sh", append([]string{filepath.Join(repoRoot(t), "scripts", s.script)}, s.args...)...)
				cmd.Env = reg.env
				if ci {
					cmd.Env = append(cmd.Env, "CI=true")
				}
				b, err := cmd.CombinedOutput()
				out := string(b)
				if strings.Contains(out, "SELF_SIGNED_CERT") || strings.Contains(out, "UNABLE_TO_VERIFY") {
					t.Fatalf("npm did not trust the CA of the global npmrc:\n%s", out)
				}
				got := reg.requests()
				for _, pkg := range s.pkgs {
					if !strings.Contains(got, pkg) {
						t.Errorf("the registry of the global npmrc got no request for %s; requests:\n%s\noutput:\n%s", pkg, got, out)
					}
				}
				if ci {
					if err == nil {
						t.Errorf("%s succeeded under CI=true against a registry that has nothing:\n%s", s.script, out)
					}
					if n := strings.Count(out, "ERROR: npm install"); n != 1 {
						t.Errorf("the output says \"ERROR: npm install\" %d times, want once:\n%s", n, out)
					}
					return
				}
				if err != nil {
					t.Errorf("%s failed (%v), want one SKIPPED line and exit 0 outside CI:\n%s", s.script, err, out)
				}
				if n := strings.Count(out, "SKIPPED: "); n != 1 {
					t.Errorf("the output says SKIPPED %d times, want once:\n%s", n, out)
				}
				skipped := regexp.MustCompile(`SKIPPED: .*`).FindString(out)
				for _, pkg := range s.pkgs {
					if !strings.Contains(skipped, pkg) {
						t.Errorf("the SKIPPED line does not name %s: %s", pkg, skipped)
					}
				}
				if !strings.Contains(skipped, "E404") {
					t.Errorf("the SKIPPED line does not say why (npm's E404): %s", skipped)
				}
			})
		}
	}
}

// TestScriptsRunNpmOneWay checks that every script runs npm through
// scripts/npm.sh, which runs it in the package's directory with the user's
// configuration, and in no other way: npm install with --prefix, or npx,
// loses the global npmrc.
func TestScriptsRunNpmOneWay(t *testing.T) {
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "scripts", "*.sh"))
	if err != nil {
		t.Fatal(err)
	}
	own := regexp.MustCompile(`(^|[^_[:alnum:]])(npm\s+(install|ci|i|exec|x|run)\b|npx\b|--prefix)`)
	quoted := regexp.MustCompile(`"[^"]*"|'[^']*'`) // messages, not commands
	for _, f := range append(files, filepath.Join(root, "install.sh")) {
		if filepath.Base(f) == "npm.sh" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for i, line := range strings.Split(text, "\n") {
			if code, _, _ := strings.Cut(quoted.ReplaceAllString(line, `""`), "#"); own.MatchString(code) {
				t.Errorf("%s:%d runs npm itself, not through scripts/npm.sh: %s", filepath.Base(f), i+1, strings.TrimSpace(line))
			}
		}
		if strings.Contains(text, "npm_") && !strings.Contains(text, `. "$root/scripts/npm.sh"`) {
			t.Errorf("%s calls scripts/npm.sh's functions without sourcing it", filepath.Base(f))
		}
	}
	for _, s := range npmScripts {
		if b, _ := os.ReadFile(filepath.Join(root, "scripts", s.script)); !strings.Contains(string(b), "npm_install ") {
			t.Errorf("%s does not install with npm_install", s.script)
		}
	}
}

// npmRegistry is a registry on loopback that answers 404 to everything, set
// with its CA only in npm's global config file of the environment env.
type npmRegistry struct {
	env   []string
	mu    sync.Mutex
	paths []string
}

func newNpmRegistry(t *testing.T) *npmRegistry {
	reg := &npmRegistry{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reg.mu.Lock()
		reg.paths = append(reg.paths, r.URL.Path)
		reg.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"not found"}`))
	}))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "npm-global")
	if err := os.MkdirAll(filepath.Join(prefix, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	npmrc := "registry=" + srv.URL + "/\ncafile=" + ca + "\n"
	if err := os.WriteFile(filepath.Join(prefix, "etc", "npmrc"), []byte(npmrc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(strings.ToLower(k), "npm_config_") && k != "HOME" && k != "MCPSHIP_CACHE" && k != "CI" {
			reg.env = append(reg.env, kv)
		}
	}
	reg.env = append(reg.env, "HOME="+filepath.Join(dir, "home"), "NPM_CONFIG_PREFIX="+prefix,
		"npm_config_cache="+filepath.Join(dir, "npm-cache"), "MCPSHIP_CACHE="+filepath.Join(dir, "cache"))
	return reg
}

// requests returns the paths the registry was asked for, one a line.
func (r *npmRegistry) requests() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.paths, "\n")
}
