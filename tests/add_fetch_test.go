package tests

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestAddDownloads: what the download host may and may not do. Every
// refusal leaves nothing installed.
func TestAddDownloads(t *testing.T) {
	good := exampleBundles(t)["rigor-1.0.0.mcpb"]
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(good) }))
	defer plain.Close()
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(good) }))
	defer other.Close()
	host := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var hops int
		switch _, err := fmt.Sscanf(r.URL.Path, "/hops/%d", &hops); {
		case err == nil && hops > 0:
			http.Redirect(w, r, fmt.Sprintf("/hops/%d", hops-1), http.StatusFound)
		case err == nil:
			w.Write(good)
		case r.URL.Path == "/to-http":
			http.Redirect(w, r, plain.URL+"/rigor.mcpb", http.StatusMovedPermanently)
		case r.URL.Path == "/to-other-port":
			http.Redirect(w, r, other.URL+"/rigor.mcpb", http.StatusTemporaryRedirect)
		case r.URL.Path == "/huge":
			w.Header().Set("Content-Length", fmt.Sprint(int64(2)<<30))
			w.WriteHeader(http.StatusOK)
		default:
			http.NotFound(w, r)
		}
	}))
	defer host.Close()

	for _, tt := range []struct{ path, want string }{
		{"/to-http", "refusing the redirect from " + host.URL + "/to-http to " + plain.URL + "/rigor.mcpb: it leaves https"},
		{"/to-other-port", "refusing the redirect from " + strings.TrimPrefix(host.URL, "https://") + " to another host, " + strings.TrimPrefix(other.URL, "https://")},
		{"/hops/6", "more than 5 redirects"},
		{"/missing.mcpb", "the server answered 404 Not Found"},
		{"/huge", "is 2147483648 bytes, over the limit of 1073741824; refusing it"},
	} {
		s := newAddSandbox(t, newFakeHub(t))
		_, errOut, code := s.mcpship("add", host.URL+tt.path, "--sha256", sha(good), "--client", "cursor")
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, want 1 and %q\n%s", tt.path, code, tt.want, errOut)
		}
		s.nothingInstalled(t)
	}
	// Plain http is refused before anything is asked for.
	s := newAddSandbox(t, newFakeHub(t))
	if _, errOut, code := s.mcpship("add", plain.URL+"/rigor.mcpb", "--client", "cursor"); code != 64 || !strings.Contains(errOut, "only https:// URLs are downloaded") {
		t.Errorf("http: exit %d\n%s", code, errOut)
	}
	// Redirects on the same host, up to 5, are followed.
	s.must(t, "add", host.URL+"/hops/5", "--sha256", sha(good), "--client", "cursor")
}

// TestAddFromRegistryRefuses: registry answers add cannot use.
func TestAddFromRegistryRefuses(t *testing.T) {
	hub := newFakeHub(t)
	const name = "io.github.mcpship-tests/elsewhere"
	hub.answer(name, "1.0.0", map[string]any{"name": name, "description": "d", "version": "1.0.0", "packages": []any{
		map[string]any{"registryType": "mcpb", "identifier": "https://example.com/elsewhere_1.0.0_windows_arm64.mcpb", "fileSha256": strings.Repeat("ab", 32), "transport": map[string]string{"type": "stdio"}},
		map[string]any{"registryType": "npm", "identifier": "@mcpship-tests/elsewhere", "version": "1.0.0", "transport": map[string]string{"type": "stdio"}},
		map[string]any{"registryType": "nuget", "identifier": "Elsewhere", "version": "1.0.0", "transport": map[string]string{"type": "stdio"}},
	}})
	huge := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"server": {"name": "` + name + `", "description": "`))
		chunk := []byte(strings.Repeat("x", 1<<16))
		for i := 0; i < 100 && r.Context().Err() == nil; i++ { // 6.4 MB
			w.Write(chunk)
		}
	}))
	defer huge.Close()
	s := newAddSandbox(t, hub)
	s.path = t.TempDir() // no npx
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--registry", hub.URL, name}, []string{
			"no package of " + name + " 1.0.0 can be installed here:",
			"mcpb https://example.com/elsewhere_1.0.0_windows_arm64.mcpb: built for windows/arm64",
			"npm @mcpship-tests/elsewhere: it runs with npx, which is not installed",
			"nuget Elsewhere: mcpship does not install nuget packages"}},
		{[]string{"--registry", hub.URL, name + "@9.9.9"}, []string{"has no server " + name + " version 9.9.9 (404 Not Found: Not found)"}},
		{[]string{"--registry", huge.URL, name}, []string{"is over 4 MiB; refusing it"}},
	} {
		_, errOut, code := s.mcpship(append([]string{"add"}, tt.args...)...)
		for _, w := range tt.want {
			if code != 1 || !strings.Contains(errOut, w) {
				t.Errorf("add %q: exit %d, want 1 and %q\n%s", tt.args, code, w, errOut)
			}
		}
		s.nothingInstalled(t)
	}
}

// TestAddConcurrently: adds of one bundle at the same time wait for each
// other; each succeeds, the later ones finding it unpacked. (The losers
// of the race failed with "rename ...: file exists".)
func TestAddConcurrently(t *testing.T) {
	s := newAddSandbox(t, newFakeHub(t))
	file := filepath.Join(s.proj, "rigor.mcpb")
	if err := os.WriteFile(file, exampleBundles(t)["rigor-1.0.0.mcpb"], 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 4
	var wg sync.WaitGroup
	failed := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, errOut, code := s.mcpship("add", file, "--client", "cursor"); code != 0 {
				failed[i] = fmt.Sprintf("exit %d\n%s", code, errOut)
			}
		}()
	}
	wg.Wait()
	for i, f := range failed {
		if f != "" {
			t.Errorf("add %d: %s", i, f)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(s.serversDir(), "rigor"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "1.0.0 installed.json" {
		t.Errorf("the server's folder holds %q", names)
	}
}
