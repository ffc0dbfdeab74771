package dist

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestInstallClientsKeepsTheNpmConfig runs scripts/install-clients.sh with
// a registry, and the CA that signs its certificate, set only in npm's
// global config file (the npmrc under npm's global prefix, where a company
// set-up puts them): npm must reach that registry, trusting that CA, for
// each group. The registry, on loopback, answers 404 to everything, so
// each group fails, and the script must say so once and exit 1 after
// trying them all, not stop at the first. Two groups with small lock files
// keep it quick.
func TestInstallClientsKeepsTheNpmConfig(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npm is not on PATH")
		}
		t.Skip("npm is not on PATH")
	}
	var mu sync.Mutex
	var paths []string
	reg := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"not found"}`))
	}))
	defer reg.Close()

	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: reg.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "npm-global")
	if err := os.MkdirAll(filepath.Join(prefix, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	npmrc := "registry=" + reg.URL + "/\ncafile=" + ca + "\n"
	if err := os.WriteFile(filepath.Join(prefix, "etc", "npmrc"), []byte(npmrc), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(strings.ToLower(k), "npm_config_") && k != "HOME" && k != "MCPSHIP_CACHE" {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "NPM_CONFIG_PREFIX="+prefix, "npm_config_cache="+filepath.Join(dir, "npm-cache"),
		"MCPSHIP_CACHE="+filepath.Join(dir, "cache"))
	cmd := exec.Command("sh", filepath.Join(repoRoot(t), "scripts", "install-clients.sh"), "mcpb", "conformance")
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	out := string(b)
	if err == nil {
		t.Fatalf("install-clients.sh succeeded against a registry that has nothing:\n%s", out)
	}
	if strings.Contains(out, "SELF_SIGNED_CERT") || strings.Contains(out, "UNABLE_TO_VERIFY") {
		t.Fatalf("npm did not trust the CA of the global npmrc:\n%s", out)
	}
	mu.Lock()
	got := strings.Join(paths, "\n")
	mu.Unlock()
	for _, pkg := range []string{"mcpb", "conformance"} {
		if !strings.Contains(got, pkg) {
			t.Errorf("the registry of the global npmrc got no request for %s; requests:\n%s\noutput:\n%s", pkg, got, out)
		}
	}
	const summary = "npm install failed for: mcpb conformance"
	if n := strings.Count(out, summary); n != 1 {
		t.Errorf("the output says %q %d times, want once:\n%s", summary, n, out)
	}
}
