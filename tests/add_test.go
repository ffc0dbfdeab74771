package tests

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcpship/mcpship/internal/mcpb"
)

// The tests of "mcpship add" run it against a fake MCP registry and a
// fake download host on loopback, both over TLS with httptest's
// certificate, which mcpship trusts through SSL_CERT_FILE.

// packExample returns the bundle "mcpship pack" makes of the example
// manifest examples/NAME/mcpship.json at version, for this machine, with
// the extra flags of pack.
func packExample(t *testing.T, name, version string, extra ...string) []byte {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"pack", "--manifest", filepath.Join("..", "examples", name, "mcpship.json"), "--out", out,
		"--version", version, "--description", "the " + name + " example", "--author", "mcpship tests"}, extra...)
	cmd := exec.Command(binPath, args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcpship %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.mcpb"))
	if len(files) != 1 {
		t.Fatalf("pack made %q, want one bundle", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var (
	bundlesOnce sync.Once
	bundles     map[string][]byte
)

// exampleBundles packs rigor 1.0.0 and 1.1.0, commitbrief 1.0.0, and
// rigor 2.0.0 whose input "config" is a required setting kept secret.
func exampleBundles(t *testing.T) map[string][]byte {
	bundlesOnce.Do(func() {
		bundles = map[string][]byte{
			"rigor-1.0.0.mcpb":       packExample(t, "rigor", "1.0.0"),
			"rigor-1.1.0.mcpb":       packExample(t, "rigor", "1.1.0"),
			"commitbrief-1.0.0.mcpb": packExample(t, "commitbrief", "1.0.0"),
			"rigor-2.0.0.mcpb":       packExample(t, "rigor", "2.0.0", "--set", "config", "--secret", "config"),
		}
	})
	return bundles
}

func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// fakeHub is a registry and a download host in one: it answers
// /v0.1/servers/NAME/versions/VERSION with servers[NAME@VERSION] (or
// NAME@latest) and /dl/FILE with files[FILE].
type fakeHub struct {
	*httptest.Server
	mu      sync.Mutex
	servers map[string]string
	files   map[string][]byte
}

func newFakeHub(t *testing.T) *fakeHub {
	h := &fakeHub{servers: map[string]string{}, files: map[string][]byte{}}
	h.Server = httptest.NewTLSServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.Close)
	return h
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok := strings.CutPrefix(r.URL.Path, "/dl/"); ok {
		if data, ok := h.files[f]; ok {
			w.Write(data)
			return
		}
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/v0.1/servers/"); ok {
		name, version, _ := strings.Cut(rest, "/versions/")
		if answer, ok := h.servers[name+"@"+version]; ok {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer)
			return
		}
	}
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, `{"error":"Not found"}`)
}

// publish makes name@version (and name@latest) a server whose one
// package is the bundle at url with SHA-256 sum.
func (h *fakeHub) publish(name, version, url, sum string) {
	pkg := map[string]any{"registryType": "mcpb", "identifier": url, "version": version, "transport": map[string]string{"type": "stdio"}}
	if sum != "" {
		pkg["fileSha256"] = sum
	}
	h.answer(name, version, map[string]any{"name": name, "description": "a test server", "version": version, "packages": []any{pkg}})
}

func (h *fakeHub) answer(name, version string, server map[string]any) {
	b, _ := json.Marshal(map[string]any{"server": server, "_meta": map[string]any{
		"io.modelcontextprotocol.registry/official": map[string]any{"status": "active", "isLatest": true}}})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.servers[name+"@"+version] = string(b)
	h.servers[name+"@latest"] = string(b)
}

func (h *fakeHub) host(name string, data []byte) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[name] = data
	return h.URL + "/dl/" + name
}

// addSandbox is a sandbox whose mcpship trusts the fake hub's certificate.
type addSandbox struct {
	sandbox
	certFile string
	path     string // $PATH, if not this process's
}

func newAddSandbox(t *testing.T, hub *fakeHub) addSandbox {
	s := addSandbox{sandbox: newSandbox(t), certFile: filepath.Join(t.TempDir(), "cert.pem")}
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hub.Certificate().Raw})
	if err := os.WriteFile(s.certFile, cert, 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// mcpship runs mcpship and returns its stdout, stderr and exit code.
func (s addSandbox) mcpship(args ...string) (stdout, stderr string, code int) {
	c := s.cmd(args...)
	c.Env = append(c.Env, "SSL_CERT_FILE="+s.certFile)
	if s.path != "" {
		c.Env = append(c.Env, "PATH="+s.path) // the last one counts
	}
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	err := c.Run()
	code = c.ProcessState.ExitCode()
	if err != nil && c.ProcessState == nil {
		code = -1
	}
	return o.String(), e.String(), code
}

func (s addSandbox) must(t *testing.T, args ...string) (string, string) {
	t.Helper()
	o, e, code := s.mcpship(args...)
	if code != 0 {
		t.Fatalf("mcpship %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, o, e)
	}
	return o, e
}

func (s addSandbox) serversDir() string {
	return filepath.Join(s.home, ".local", "share", "mcpship", "servers")
}

// claudeEntry returns rigor's entry in Claude Code's user file, or nil.
func (s addSandbox) claudeEntry(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.home, ".claude.json"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.MCPServers[name]
}

func TestAddFromRegistry(t *testing.T) {
	b := exampleBundles(t)
	hub := newFakeHub(t)
	const name = "io.github.mcpship-tests/rigor"
	v1 := hub.host("rigor_1.0.0_linux_amd64.mcpb", b["rigor-1.0.0.mcpb"])
	hub.publish(name, "1.0.0", v1, sha(b["rigor-1.0.0.mcpb"]))
	s := newAddSandbox(t, hub)

	out, errOut := s.must(t, "add", "--registry", hub.URL, name+"@1.0.0")
	dir1 := filepath.Join(s.serversDir(), "rigor", "1.0.0")
	for _, want := range []string{"verified rigor 1.0.0 (sha256 " + sha(b["rigor-1.0.0.mcpb"]) + "), unpacked in " + dir1, "ok: mcpship", "7 tools"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, `added "rigor"`) || !strings.Contains(out, "installed "+name+" 1.0.0 from the registry "+hub.URL) {
		t.Errorf("stdout:\n%s", out)
	}
	e := s.claudeEntry(t, "rigor")
	if e == nil || e["command"] != filepath.Join(dir1, "server", "mcpship") {
		t.Fatalf("Claude Code's entry: %v", e)
	}
	cb := hub.host("commitbrief_1.0.0_linux_amd64.mcpb", b["commitbrief-1.0.0.mcpb"])
	hub.publish("io.github.mcpship-tests/commitbrief", "1.0.0", cb, sha(b["commitbrief-1.0.0.mcpb"]))
	s.must(t, "add", "--registry", hub.URL, "io.github.mcpship-tests/commitbrief")
	out, _ = s.must(t, "doctor", "--client", "claude-code")
	if !strings.Contains(out, "ok      rigor") || !strings.Contains(out, "ok      commitbrief") || !strings.Contains(out, "2 servers checked: 2 ok, 0 failed") {
		t.Errorf("doctor:\n%s", out)
	}
	out, _ = s.must(t, "list", "--client", "claude-code")
	if !strings.Contains(out, "installed: "+name+" 1.0.0 from the registry") {
		t.Errorf("list does not say where rigor came from:\n%s", out)
	}

	// A newer version replaces the entry and the folder together.
	v2 := hub.host("rigor_1.1.0_linux_amd64.mcpb", b["rigor-1.1.0.mcpb"])
	hub.publish(name, "1.1.0", v2, sha(b["rigor-1.1.0.mcpb"]))
	out, _ = s.must(t, "add", "--registry", hub.URL, name)
	dir2 := filepath.Join(s.serversDir(), "rigor", "1.1.0")
	if !strings.Contains(out, `replaced "rigor"`) || !strings.Contains(out, "removed version 1.0.0: "+dir1) {
		t.Errorf("the second add:\n%s", out)
	}
	if _, err := os.Stat(dir1); !os.IsNotExist(err) {
		t.Errorf("version 1.0.0 is still in %s: %v", dir1, err)
	}
	if e := s.claudeEntry(t, "rigor"); e == nil || e["command"] != filepath.Join(dir2, "server", "mcpship") {
		t.Errorf("Claude Code's entry after the upgrade: %v", e)
	}

	// remove --purge takes the entry and the files.
	out, _ = s.must(t, "remove", "--name", "rigor", "--purge") // in the scope add wrote it in
	if !strings.Contains(out, `removed "rigor"`) || !strings.Contains(out, "deleted "+filepath.Join(s.serversDir(), "rigor")) {
		t.Errorf("remove --purge:\n%s", out)
	}
	if entries, _ := os.ReadDir(s.serversDir()); len(entries) != 1 || entries[0].Name() != "commitbrief" {
		t.Errorf("left in %s: %v, want only commitbrief", s.serversDir(), entries)
	}
}

func TestAddBundleFileWithConfig(t *testing.T) {
	b := exampleBundles(t)
	s := newAddSandbox(t, newFakeHub(t))
	file := filepath.Join(s.proj, "rigor_2.0.0_linux_amd64.mcpb")
	if err := os.WriteFile(file, b["rigor-2.0.0.mcpb"], 0o644); err != nil {
		t.Fatal(err)
	}
	// Without a terminal, a required setting must come with --config.
	_, errOut, code := s.mcpship("add", file)
	if code != 64 || !strings.Contains(errOut, "the bundle rigor needs the setting config (config: ") || !strings.Contains(errOut, "give it with --config config=VALUE") {
		t.Errorf("add without the setting: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(s.serversDir()); !os.IsNotExist(err) {
		t.Errorf("add without the setting left %s", s.serversDir())
	}
	const secret = "/home/s3cret-place/.rigor.yml"
	out, errOut := s.must(t, "add", "--config", "config="+secret, "--client", "claude-code,codex", file)
	if strings.Contains(out+errOut, "s3cret") {
		t.Errorf("add printed the secret:\n%s\n%s", out, errOut)
	}
	e := s.claudeEntry(t, "rigor")
	if e == nil || !strings.Contains(fmt.Sprint(e["args"]), "config="+secret) {
		t.Errorf("Claude Code's entry: %v", e)
	}
	if data, err := os.ReadFile(filepath.Join(s.home, ".codex", "config.toml")); err != nil || !strings.Contains(string(data), "[mcp_servers.rigor]") {
		t.Errorf("Codex's config: %v\n%s", err, data)
	}
	out, _ = s.must(t, "doctor", "--name", "rigor", "--client", "codex")
	if !strings.Contains(out, "ok      rigor") {
		t.Errorf("doctor:\n%s", out)
	}
	if _, _, code := s.mcpship("add", "--config", "nope=1", file); code != 64 {
		t.Errorf("an unknown setting: exit %d", code)
	}
	for _, bad := range [][]string{{"--client", "nope"}, {"--scope", "everywhere"}, {"--client", "claude-desktop", "--scope", "project"}, {file, "--client", "codex"}} {
		_, errOut, code := s.mcpship(append([]string{"add", "--name", "other"}, append(bad, file)...)...)
		if code != 64 || !strings.Contains(errOut, "Run 'mcpship help' for usage.") || strings.Contains(errOut, "verified") {
			t.Errorf("add %q: exit %d, want 64 before the bundle is opened\n%s", bad, code, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(s.serversDir(), "other")); !os.IsNotExist(err) {
		t.Errorf("a usage error unpacked the bundle: %v", err)
	}
}

// hostileZip returns a bundle of rigor's manifest with the extra entries.
func hostileZip(t *testing.T, extra func(zw *zip.Writer)) []byte {
	t.Helper()
	r, err := zip.NewReader(bytes.NewReader(exampleBundles(t)["rigor-1.0.0.mcpb"]), int64(len(exampleBundles(t)["rigor-1.0.0.mcpb"])))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range r.File {
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	extra(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAddRefusesHostile checks that each hostile case is refused with a
// clear message and leaves nothing installed or registered.
func TestAddRefusesHostile(t *testing.T) {
	good := exampleBundles(t)["rigor-1.0.0.mcpb"]
	hub := newFakeHub(t)
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(good) }))
	defer other.Close()
	redirect := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/rigor.mcpb", http.StatusFound)
	}))
	defer redirect.Close()

	dotdot := hostileZip(t, func(zw *zip.Writer) { w, _ := zw.Create("../../evil.sh"); w.Write([]byte("#!/bin/sh\n")) })
	symlink := hostileZip(t, func(zw *zip.Writer) {
		h := &zip.FileHeader{Name: "server/link"}
		h.SetMode(os.ModeSymlink | 0o777)
		w, _ := zw.CreateHeader(h)
		w.Write([]byte("/etc/passwd"))
	})
	bomb := hostileZip(t, func(zw *zip.Writer) {
		// An entry that declares 2 GiB, over the 1 GiB cap.
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: "server/bomb", Method: zip.Store, UncompressedSize64: 2 << 30, CompressedSize64: 1})
		w.Write([]byte{0})
	})
	broken := func() []byte {
		m := &mcpb.Manifest{ManifestVersion: mcpb.ManifestVersion, Name: "rigor", Version: "1.0.0", Description: "d", Author: mcpb.Author{Name: "a"},
			Server: mcpb.Server{Type: "binary", EntryPoint: "server/mcpship", MCPConfig: &mcpb.MCPConfig{Command: "${__dirname}/server/mcpship"}}}
		var buf bytes.Buffer
		if err := mcpb.Write(&buf, m, []mcpb.File{{Name: "server/mcpship", Data: []byte("#!/bin/sh\necho 'cannot start: no config' >&2\nexit 3\n"), Mode: 0o755}}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}()

	const name = "io.github.mcpship-tests/rigor"
	for _, tt := range []struct {
		what  string
		setup func() // publishes name@latest
		want  string
	}{
		{"hash mismatch", func() { hub.publish(name, "1.0.0", hub.host("a.mcpb", good), strings.Repeat("ab", 32)) },
			"has SHA-256 " + sha(good) + ", but " + strings.Repeat("ab", 32) + " was expected"},
		{"no hash", func() { hub.publish(name, "1.0.0", hub.host("a.mcpb", good), "") },
			"the registry gives no fileSha256 for the bundle"},
		{"../ entry", func() { hub.publish(name, "1.0.0", hub.host("a.mcpb", dotdot), sha(dotdot)) },
			`entry path "../../evil.sh" is not a clean path inside the bundle`},
		{"symlink entry", func() { hub.publish(name, "1.0.0", hub.host("a.mcpb", symlink), sha(symlink)) },
			`entry "server/link" is a symbolic link`},
		{"zip bomb", func() { hub.publish(name, "1.0.0", hub.host("a.mcpb", bomb), sha(bomb)) },
			"its files unpack to more than the limit of 1073741824 bytes"},
		{"another server", func() {
			hub.answer(name, "latest", map[string]any{"name": "io.github.mcpship-tests/other", "description": "d", "version": "1.0.0"})
		}, `it answered with "io.github.mcpship-tests/other"; refusing the answer`},
		{"redirect to another host", func() { hub.publish(name, "1.0.0", redirect.URL+"/rigor.mcpb", sha(good)) },
			"refusing the redirect from " + strings.TrimPrefix(redirect.URL, "https://") + " to another host"},
		{"handshake fails", func() { hub.publish(name, "1.0.0", hub.host("a.mcpb", broken), sha(broken)) },
			"the server did not pass the handshake check: exited"},
	} {
		t.Run(tt.what, func(t *testing.T) {
			tt.setup()
			s := newAddSandbox(t, hub)
			_, errOut, code := s.mcpship("add", "--registry", hub.URL, "--client", "claude-code,cursor", name)
			if code != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want 1, and stderr saying %q:\n%s", code, tt.want, errOut)
			}
			if entries, err := os.ReadDir(s.serversDir()); len(entries) != 0 {
				t.Errorf("left in %s: %v (%v)", s.serversDir(), entries, err)
			}
			for _, f := range []string{filepath.Join(s.home, ".claude.json"), filepath.Join(s.home, ".cursor", "mcp.json")} {
				if _, err := os.Stat(f); !os.IsNotExist(err) {
					t.Errorf("%s was written", f)
				}
			}
		})
	}
	// The failed handshake says why, from the server's stderr.
	s := newAddSandbox(t, hub)
	if _, errOut, _ := s.mcpship("add", "--registry", hub.URL, name); !strings.Contains(errOut, "stderr: cannot start: no config") {
		t.Errorf("the handshake failure does not show the server's stderr:\n%s", errOut)
	}
}

// fakeRemote is a remote MCP server over streamable HTTP that wants the
// header Authorization: Bearer k. It answers tools/list as a server-sent
// event, as servers may.
func fakeRemote(t *testing.T) *httptest.Server {
	s := httptest.NewTLSServer(remoteHandler("k"))
	t.Cleanup(s.Close)
	return s
}

// remoteHandler is fakeRemote's server, which wants the bearer token.
func remoteHandler(token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var msg struct {
			ID     *int   `json:"id"`
			Method string `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		switch {
		case msg.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"weather","version":"2.0.0"}}}`, *msg.ID)
		case r.Header.Get("Mcp-Session-Id") != "s1":
			w.WriteHeader(http.StatusBadRequest)
		case msg.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case msg.Method == "tools/list":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"tools\":[{\"name\":\"forecast\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"alerts\",\"inputSchema\":{\"type\":\"object\"}}]}}\n\n", *msg.ID)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
}

// TestAddRemote installs a server the registry offers only as a remote
// server: its handshake is checked over HTTP before it is registered, its
// header comes from --config, and a client that cannot hold a remote
// entry undoes the whole add.
func TestAddRemote(t *testing.T) {
	hub := newFakeHub(t)
	remote := fakeRemote(t)
	const name = "io.github.mcpship-tests/weather"
	hub.answer(name, "2.0.0", map[string]any{"name": name, "description": "weather", "version": "2.0.0",
		"remotes": []any{map[string]any{"type": "streamable-http", "url": remote.URL + "/mcp",
			"headers": []any{map[string]any{"name": "Authorization", "description": "Bearer token", "isRequired": true, "isSecret": true}}}}})
	s := newAddSandbox(t, hub)

	_, errOut, code := s.mcpship("add", "--registry", hub.URL, name)
	if code != 64 || !strings.Contains(errOut, "needs the header Authorization (Bearer token); give it with --config Authorization=VALUE") {
		t.Errorf("without the header: exit %d\n%s", code, errOut)
	}
	_, errOut, code = s.mcpship("add", "--registry", hub.URL, "--config", "Authorization=Bearer wrong", name)
	if code != 1 || !strings.Contains(errOut, "initialize: the server answered 401 Unauthorized: it needs credentials") {
		t.Errorf("with a wrong token: exit %d\n%s", code, errOut)
	}
	_, errOut, code = s.mcpship("add", "--registry", hub.URL, "--config", "Authorization=Bearer k", "--client", "claude-code,claude-desktop", name)
	if code != 1 || !strings.Contains(errOut, "claude-desktop: Claude Desktop reads no remote servers from its config file") || !strings.Contains(errOut, "nothing was registered") {
		t.Errorf("with Claude Desktop: exit %d\n%s", code, errOut)
	}
	if e := s.claudeEntry(t, "weather"); e != nil {
		t.Errorf("Claude Code's entry stayed after the add failed: %v", e)
	}

	out, errOut := s.must(t, "add", "--registry", hub.URL, "--config", "Authorization=Bearer k", "--client", "claude-code,codex", name)
	if !strings.Contains(errOut, "ok: weather 2.0.0, protocol 2025-06-18, 2 tools") || strings.Contains(out+errOut, "Bearer k") {
		t.Errorf("add:\n%s\n%s", out, errOut)
	}
	e := s.claudeEntry(t, "weather")
	if e == nil || e["type"] != "http" || e["url"] != remote.URL+"/mcp" || e["headers"].(map[string]any)["Authorization"] != "Bearer k" {
		t.Errorf("Claude Code's entry: %v", e)
	}
	out, _ = s.must(t, "list", "--client", "codex")
	if !strings.Contains(out, "weather "+remote.URL+"/mcp") || !strings.Contains(out, "installed: "+name+" 2.0.0 from the registry "+hub.URL+" (remote)") {
		t.Errorf("list:\n%s", out)
	}
}

// TestAddNPMPackage installs a registry entry whose one package is on
// npm: the entry runs npx with the package at its version, the
// environment variable the user gives and the argument's default. A fake
// npx on PATH records how it was started and serves rigor's tools.
func TestAddNPMPackage(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake npx is a shell script")
	}
	hub := newFakeHub(t)
	const name = "io.github.mcpship-tests/weather"
	hub.answer(name, "1.2.0", map[string]any{"name": name, "description": "weather", "version": "1.2.0",
		"packages": []any{map[string]any{"registryType": "npm", "identifier": "@mcpship-tests/weather", "version": "1.2.0",
			"transport":            map[string]string{"type": "stdio"},
			"packageArguments":     []any{map[string]any{"type": "named", "name": "--units", "default": "metric"}},
			"environmentVariables": []any{map[string]any{"name": "WEATHER_API_KEY", "isRequired": true, "isSecret": true}}}}})
	s := newAddSandbox(t, hub)
	bin := filepath.Join(t.TempDir(), "bin")
	log := filepath.Join(t.TempDir(), "npx.log")
	manifest, _ := filepath.Abs(filepath.Join("..", "examples", "rigor", "mcpship.json"))
	script := fmt.Sprintf("#!/bin/sh\necho \"$* key=$WEATHER_API_KEY\" >> %q\nexec %q serve --manifest %q\n", log, binPath, manifest)
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "npx"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s.path = bin + string(os.PathListSeparator) + os.Getenv("PATH")

	out, errOut := s.must(t, "add", "--registry", hub.URL, "--config", "WEATHER_API_KEY=k3y", name)
	if !strings.Contains(errOut, "is the npm package @mcpship-tests/weather") || !strings.Contains(out, "installed "+name+" 1.2.0 from the registry "+hub.URL+" (npm)") {
		t.Errorf("add:\n%s\n%s", out, errOut)
	}
	e := s.claudeEntry(t, "weather")
	if e == nil || e["command"] != "npx" || fmt.Sprint(e["args"]) != "[-y @mcpship-tests/weather@1.2.0 --units metric]" || e["env"].(map[string]any)["WEATHER_API_KEY"] != "k3y" {
		t.Errorf("Claude Code's entry: %v", e)
	}
	if b, _ := os.ReadFile(log); string(b) != "-y @mcpship-tests/weather@1.2.0 --units metric key=k3y\n" {
		t.Errorf("npx was started as %q", b)
	}
	if _, err := os.Stat(s.serversDir()); err != nil {
		t.Errorf("no record of the install: %v", err)
	}
	out, _ = s.must(t, "remove", "--name", "weather")
	if strings.Contains(out, "files stay") {
		t.Errorf("remove of a package offers to delete files:\n%s", out)
	}
	if entries, _ := os.ReadDir(s.serversDir()); len(entries) != 0 {
		t.Errorf("the record stayed after remove: %v", entries)
	}
}

// TestAddAsksOnATerminal runs add on a terminal (a pseudo-terminal that
// script(1) opens) for a bundle with a required secret setting: add asks
// for it, and what is typed is not echoed.
func TestAddAsksOnATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("script(1) opens the terminal on Linux only")
	}
	scriptPath, err := exec.LookPath("script")
	if err != nil {
		msg := "TestAddAsksOnATerminal: script(1) is not installed; install util-linux (Debian: bsdutils)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPED: " + msg)
	}
	s := newAddSandbox(t, newFakeHub(t))
	file := filepath.Join(s.proj, "rigor_2.0.0_linux_amd64.mcpb")
	if err := os.WriteFile(file, exampleBundles(t)["rigor-2.0.0.mcpb"], 0o644); err != nil {
		t.Fatal(err)
	}
	c := s.cmd()
	c.Path, c.Args = scriptPath, []string{"script", "-qec", fmt.Sprintf("'%s' add '%s'", binPath, file), "/dev/null"}
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Type the secret only once asked, as a person would.
	const secret = "/home/typed-s3cret/.rigor.yml"
	var seen bytes.Buffer
	buf := make([]byte, 4096)
	for !strings.Contains(seen.String(), "config (") {
		n, err := out.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			t.Fatalf("no prompt before %v:\n%s", err, seen.String())
		}
	}
	asked := seen.Len()
	fmt.Fprintln(in, secret)
	rest, _ := io.ReadAll(out)
	seen.Write(rest)
	if err := c.Wait(); err != nil {
		t.Fatalf("add on a terminal: %v\n%s", err, seen.String())
	}
	if after := seen.String()[asked:]; strings.Contains(after, "s3cret") || !strings.Contains(after, `added "rigor"`) {
		t.Errorf("after the prompt (the secret must not be echoed):\n%s", after)
	}
	if e := s.claudeEntry(t, "rigor"); e == nil || !strings.Contains(fmt.Sprint(e["args"]), "config="+secret) {
		t.Errorf("Claude Code's entry: %v", e)
	}
}

// TestPackThenAdd closes the loop: the server.json that "mcpship pack"
// writes, served by the fake registry, and its bundle, served by the fake
// download host, are what add installs.
func TestPackThenAdd(t *testing.T) {
	hub := newFakeHub(t)
	const name = "io.github.mcpship-tests/commitbrief"
	out := t.TempDir()
	pack := exec.Command(binPath, "pack", "--manifest", filepath.Join("..", "examples", "commitbrief", "mcpship.json"), "--out", out,
		"--version", "3.1.0", "--description", "a code review as one tool", "--author", "mcpship tests",
		"--registry-name", name, "--download-url", hub.URL+"/dl/")
	if b, err := pack.CombinedOutput(); err != nil {
		t.Fatalf("mcpship pack: %v\n%s", err, b)
	}
	serverJSON, err := os.ReadFile(filepath.Join(out, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	var server map[string]any
	if err := json.Unmarshal(serverJSON, &server); err != nil {
		t.Fatal(err)
	}
	bundles, _ := filepath.Glob(filepath.Join(out, "*.mcpb"))
	for _, b := range bundles {
		data, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		hub.host(filepath.Base(b), data)
	}
	hub.answer(name, "3.1.0", server)

	s := newAddSandbox(t, hub)
	stdout, _ := s.must(t, "add", "--registry", hub.URL, name+"@3.1.0")
	if !strings.Contains(stdout, "installed "+name+" 3.1.0 from the registry "+hub.URL+" (mcpb)") {
		t.Errorf("add:\n%s", stdout)
	}
	stdout, _ = s.must(t, "doctor", "--name", "commitbrief")
	if !strings.Contains(stdout, "ok      commitbrief") {
		t.Errorf("doctor:\n%s", stdout)
	}
}

// TestAddKeepsAVersionStillInUse upgrades a server in one of the two
// assistants it was added to: the older version's folder stays, since the
// other still runs it, and add says so.
func TestAddKeepsAVersionStillInUse(t *testing.T) {
	b := exampleBundles(t)
	hub := newFakeHub(t)
	const name = "io.github.mcpship-tests/rigor"
	hub.publish(name, "1.0.0", hub.host("r1.mcpb", b["rigor-1.0.0.mcpb"]), sha(b["rigor-1.0.0.mcpb"]))
	s := newAddSandbox(t, hub)
	s.must(t, "add", "--registry", hub.URL, "--client", "claude-code,cursor", name)
	hub.publish(name, "1.1.0", hub.host("r2.mcpb", b["rigor-1.1.0.mcpb"]), sha(b["rigor-1.1.0.mcpb"]))
	_, errOut := s.must(t, "add", "--registry", hub.URL, "--client", "claude-code", name)
	dir1 := filepath.Join(s.serversDir(), "rigor", "1.0.0")
	if !strings.Contains(errOut, "version 1.0.0 stays in "+dir1+": still registered with cursor user") {
		t.Errorf("the second add:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir1, "server", "mcpship")); err != nil {
		t.Errorf("version 1.0.0, which Cursor runs, is gone: %v", err)
	}
	// Nor does remove --purge delete it from under Cursor.
	out, _ := s.must(t, "remove", "--name", "rigor", "--client", "claude-code", "--purge")
	if !strings.Contains(out, "rigor's files stay in "+filepath.Join(s.serversDir(), "rigor")+": it is still registered with cursor user") {
		t.Errorf("remove --purge:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir1, "server", "mcpship")); err != nil {
		t.Errorf("remove --purge deleted version 1.0.0, which Cursor runs: %v", err)
	}
}
