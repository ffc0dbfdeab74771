package tests

import (
	"archive/zip"
	"bytes"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/mcpb"
	"github.com/mcpship/mcpship/internal/testutil"
)

// writeProbeBundle writes a bundle "probe" 1.0.0 whose binary server is
// server/run (a script that exits 3), started with command and args, to
// dir, and returns its path.
func writeProbeBundle(t *testing.T, dir, command string, args []string, settings map[string]mcpb.UserConfig) string {
	t.Helper()
	m := &mcpb.Manifest{ManifestVersion: mcpb.ManifestVersion, Name: "probe", Version: "1.0.0", Description: "d", Author: mcpb.Author{Name: "a"},
		Server:     mcpb.Server{Type: "binary", EntryPoint: "server/run", MCPConfig: &mcpb.MCPConfig{Command: command, Args: args}},
		UserConfig: settings}
	var buf bytes.Buffer
	if err := mcpb.Write(&buf, m, []mcpb.File{{Name: "server/run", Data: []byte("#!/bin/sh\necho 'probe: no server here' >&2\nexit 3\n"), Mode: 0o755}}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "probe.mcpb")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// nothingInstalled fails t if add left a folder or wrote Cursor's config.
func (s addSandbox) nothingInstalled(t *testing.T) {
	t.Helper()
	if entries, err := os.ReadDir(s.serversDir()); len(entries) != 0 {
		t.Errorf("left in %s: %v (%v)", s.serversDir(), entries, err)
	}
	if _, err := os.Stat(filepath.Join(s.home, ".cursor", "mcp.json")); !os.IsNotExist(err) {
		t.Errorf("Cursor's config was written: %v", err)
	}
}

// TestAddRefusesABinaryOutsideTheBundle: a binary server's command that
// leads out of its unpacked folder is refused before anything runs.
func TestAddRefusesABinaryOutsideTheBundle(t *testing.T) {
	for _, command := range []string{"../../../../../../../../bin/sh", "/bin/sh", "${__dirname}/../../../../../../../bin/sh"} {
		s := newAddSandbox(t, newFakeHub(t))
		file := writeProbeBundle(t, s.proj, command, []string{"-c", "echo ran >&2; exit 9"}, nil)
		_, errOut, code := s.mcpship("add", file, "--client", "cursor")
		if code != 1 || !strings.Contains(errOut, "which is outside the bundle's folder") || strings.Contains(errOut, "handshake") {
			t.Errorf("command %q: exit %d, want 1 before the handshake check\n%s", command, code, errOut)
		}
		s.nothingInstalled(t)
	}
}

// TestAddSettingNamingItself: a setting whose default names itself
// crashed add (stack overflow) after it had unpacked the bundle, which
// stayed.
func TestAddSettingNamingItself(t *testing.T) {
	s := newAddSandbox(t, newFakeHub(t))
	file := writeProbeBundle(t, s.proj, "${__dirname}/server/run", []string{"${user_config.loop}"}, map[string]mcpb.UserConfig{
		"loop": {Type: "string", Title: "Loop", Description: "d", Default: "${user_config.loop}"}})
	_, errOut, code := s.mcpship("add", file, "--client", "cursor", "--timeout", "10s")
	if code != 1 || !strings.Contains(errOut, "probe: no server here") {
		t.Errorf("exit %d, want 1 from the failed handshake check\n%.2000s", code, errOut)
	}
	s.nothingInstalled(t)
}

// TestAddRefusesNumbersThatAreNot: NaN and Inf parse as floats but are
// no JSON numbers, and NaN passed every min and max.
func TestAddRefusesNumbersThatAreNot(t *testing.T) {
	s := newAddSandbox(t, newFakeHub(t))
	min, max := 1.0, 10.0
	file := writeProbeBundle(t, s.proj, "${__dirname}/server/run", []string{"--n=${user_config.n}"}, map[string]mcpb.UserConfig{
		"n": {Type: "number", Title: "N", Description: "d", Min: &min, Max: &max, Default: 2.0}})
	for _, v := range []string{"NaN", "nan", "Inf", "-Infinity", "1e400", "0", "11"} {
		_, errOut, code := s.mcpship("add", file, "--config", "n="+v, "--client", "cursor")
		if code != 64 || !strings.Contains(errOut, "--config n: ") {
			t.Errorf("n=%s: exit %d, want 64\n%s", v, code, errOut)
		}
	}
	s.nothingInstalled(t)
}

// TestAddInterrupted: an interrupt in the middle of the download stops
// add, which removes what it wrote: no partial download is left in the
// temporary directory, nothing installed.
func TestAddInterrupted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGINT cannot be sent to a process on Windows")
	}
	started := make(chan struct{}, 1)
	slow := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.Write(bytes.Repeat([]byte("PK"), 50_000))
		w.(http.Flusher).Flush()
		started <- struct{}{}
		<-r.Context().Done()
	}))
	defer slow.Close()
	s := newAddSandbox(t, newFakeHub(t))
	tmp := t.TempDir()
	c := s.cmd("add", slow.URL+"/probe.mcpb", "--client", "cursor")
	c.Env = append(c.Env, "SSL_CERT_FILE="+s.certFile, "TMPDIR="+tmp)
	var errOut bytes.Buffer
	c.Stderr = &errOut
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		c.Process.Kill()
		t.Fatalf("the download did not start\n%s", errOut.String())
	}
	// The server has flushed its bytes; let mcpship write them.
	testutil.WaitFor(t, 10*time.Second, "mcpship to write the download to "+tmp, func() bool {
		files, _ := filepath.Glob(filepath.Join(tmp, "*"))
		return len(files) > 0
	})
	c.Process.Signal(os.Interrupt)
	c.Wait()
	if code := c.ProcessState.ExitCode(); code != 130 || !strings.Contains(errOut.String(), "interrupted; nothing was installed") {
		t.Errorf("exit %d, want 130\n%s", code, errOut.String())
	}
	if files, _ := filepath.Glob(filepath.Join(tmp, "*")); len(files) > 0 {
		t.Errorf("left in the temporary directory: %q", files)
	}
	s.nothingInstalled(t)
}

// TestAddRefusesSizesThatWrap: the entries' declared sizes are summed
// without overflow. An entry declaring about 2^64-N bytes wrapped the
// total, so that a bundle of a few kilobytes could unpack past the 1 GiB
// cap, and an entry declaring 2^64-1 bytes after another was written as
// an empty file and the bundle installed.
func TestAddRefusesSizesThatWrap(t *testing.T) {
	raw := func(zw *zip.Writer, name string, size uint64, data []byte) {
		h := &zip.FileHeader{Name: name, Method: zip.Store, UncompressedSize64: size, CompressedSize64: uint64(len(data))}
		h.SetMode(0o644)
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	small := bytes.Repeat([]byte("x"), 2000)
	for _, tt := range []struct {
		what  string
		extra func(zw *zip.Writer)
	}{
		{"2^64-1000 then 2000 bytes", func(zw *zip.Writer) {
			raw(zw, "server/wrap", math.MaxUint64-999, []byte{0})
			raw(zw, "server/big", uint64(len(small)), small)
		}},
		{"10 bytes then 2^64-1", func(zw *zip.Writer) {
			raw(zw, "server/ten", 10, small[:10])
			raw(zw, "server/max", math.MaxUint64, []byte{0})
		}},
		{"2^63", func(zw *zip.Writer) { raw(zw, "server/half", 1<<63, []byte{0}) }},
		{"1 GiB + 1 in two", func(zw *zip.Writer) {
			raw(zw, "server/a", 1<<29, []byte{0})
			raw(zw, "server/b", 1<<29+1, []byte{0})
		}},
	} {
		t.Run(tt.what, func(t *testing.T) {
			s := newAddSandbox(t, newFakeHub(t))
			file := filepath.Join(s.proj, "wrap.mcpb")
			if err := os.WriteFile(file, hostileZip(t, tt.extra), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := s.mcpship("add", file, "--client", "cursor")
			if code != 1 || !strings.Contains(errOut, "its files unpack to more than the limit of 1073741824 bytes") {
				t.Errorf("exit %d, want 1 refusing the sizes\n%s\n%s", code, out, errOut)
			}
			s.nothingInstalled(t)
		})
	}
}

// TestAddPlainHTTPOnlyToLoopback: plain http is allowed only to an IP
// address of the loopback range or the name localhost. A name that only
// starts with "127." (127.0.0.1.evil.example) may resolve anywhere: a
// remote server there, even an SSE one that add does not check, and a
// registry there are refused before any request, and nothing is
// registered.
func TestAddPlainHTTPOnlyToLoopback(t *testing.T) {
	hub := newFakeHub(t)
	const name = "io.github.mcpship-tests/weather"
	for _, host := range []string{"127.0.0.1.evil.example", "127.evil.example", "localhost.evil.example", "10.0.0.1"} {
		for _, typ := range []string{"sse", "streamable-http"} {
			hub.answer(name, "1.0.0", map[string]any{"name": name, "description": "weather", "version": "1.0.0",
				"remotes": []any{map[string]any{"type": typ, "url": "http://" + host + ":9/mcp",
					"headers": []any{map[string]any{"name": "Authorization", "value": "Bearer k"}}}}})
			s := newAddSandbox(t, hub)
			out, errOut, code := s.mcpship("add", "--registry", hub.URL, "--client", "claude-code,cursor", name)
			if code != 1 || !strings.Contains(errOut, "is not an https:// URL (plain http is allowed only to this machine's loopback address)") {
				t.Errorf("%s remote at %s: exit %d, want 1 refusing plain http\n%s\n%s", typ, host, code, out, errOut)
			}
			if e := s.claudeEntry(t, "weather"); e != nil {
				t.Errorf("%s remote at %s: registered %v", typ, host, e)
			}
			s.nothingInstalled(t)
		}
		s := newAddSandbox(t, hub)
		_, errOut, code := s.mcpship("add", "--registry", "http://"+host+":9", "--client", "cursor", name)
		if code != 1 || !strings.Contains(errOut, "must start with https:// (http:// is allowed only on this machine's loopback address)") {
			t.Errorf("registry at %s: exit %d, want 1 refusing plain http\n%s", host, code, errOut)
		}
	}
}

// TestAddSaysWhenItsProgramIsMissing: a bundle whose server answers but
// whose tools run a program that is not on PATH is installed, and add
// says so plainly at the end, not only doctor; with the program on PATH
// it says nothing of the kind.
func TestAddSaysWhenItsProgramIsMissing(t *testing.T) {
	good := exampleBundles(t)["rigor-1.0.0.mcpb"]
	for _, onPath := range []bool{false, true} {
		s := newAddSandbox(t, newFakeHub(t))
		if onPath {
			s.path = standinDir + string(os.PathListSeparator) + os.Getenv("PATH")
		}
		file := filepath.Join(s.proj, "rigor.mcpb")
		if err := os.WriteFile(file, good, 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut := s.must(t, "add", file, "--client", "cursor")
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		warned := strings.Contains(errOut, "warning: rigor answers, but its tools will fail until this is fixed: cannot run rigor")
		switch {
		case !onPath && (!warned || !strings.Contains(lines[len(lines)-1], "then check it with 'mcpship doctor --name rigor'")):
			t.Errorf("rigor not on PATH: add does not end saying so\n%s\n%s", out, errOut)
		case onPath && warned:
			t.Errorf("rigor on PATH: add warns\n%s", errOut)
		}
	}
}
