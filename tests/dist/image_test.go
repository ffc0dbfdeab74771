// The image is a Linux one, built and run with Linux tools.

//go:build linux

package dist

import (
	"archive/tar"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// imageName is the repository of the release image in .goreleaser.yaml,
// and imageServer the MCP Registry name its label carries.
const (
	imageName   = "ghcr.io/mcpship/mcpship"
	imageServer = "io.github.mcpship/mcpship"
)

// TestImage builds the release image the way a release does, with
// GoReleaser's dockers_v2 and the real .goreleaser.yaml, but without a
// Docker daemon: podman, which builds images daemonless, answers the
// "docker buildx build" that GoReleaser runs. The configuration is the
// repository's, with two changes for time: only the Linux builds, and the
// dist directory outside the source tree. It is a snapshot, so GoReleaser
// loads each platform's image locally instead of pushing an index.
//
// Each image (linux/amd64 and linux/arm64) must hold one file, the release
// binary of its platform byte for byte, and carry the registry label, a
// non-root user and "mcpship serve --transport http" as its entry point.
// No container runs here (the sandbox refuses the runtime's setrlimit), so
// the test runs the image's entry point from the image's own file system,
// as the image's user, and talks MCP to it over HTTP with a bearer token.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the GoReleaser image build in -short mode")
	}
	goreleaser := tool(t, "goreleaser")
	podman := tool(t, "podman")
	src := source(t)
	work := filepath.Join(scratch, "image")
	dist := filepath.Join(work, "dist")
	if err := os.MkdirAll(filepath.Join(work, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(podman, filepath.Join(work, "bin", "docker")); err != nil {
		t.Fatal(err)
	}
	// A storage of the test's own, so that no image is left behind.
	storage := filepath.Join(work, "storage.conf")
	conf := fmt.Sprintf("[storage]\ndriver = \"vfs\"\ngraphroot = %q\nrunroot = %q\n",
		filepath.Join(work, "graph"), filepath.Join(work, "run"))
	if err := os.WriteFile(storage, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := imageConfig(t, filepath.Join(src, ".goreleaser.yaml"), dist)
	cfgFile := filepath.Join(work, "goreleaser.yaml")
	if err := os.WriteFile(cfgFile, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PATH=" + filepath.Join(work, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		"CONTAINERS_STORAGE_CONF=" + storage,
		"GITHUB_TOKEN=", "GITLAB_TOKEN=", "GITEA_TOKEN=", // GoReleaser refuses more than one forge token
	}
	start := time.Now()
	run(t, src, env, goreleaser, "release", "--snapshot", "--clean", "-f", cfgFile,
		"--skip=archive,nfpm,homebrew,sbom,sign")
	t.Logf("goreleaser release --snapshot of the image: %v", time.Since(start).Round(time.Second))
	docker := filepath.Join(work, "bin", "docker")
	t.Cleanup(func() {
		// Rootless podman's layers belong to the user's subordinate IDs,
		// which os.RemoveAll may not be allowed to remove.
		cmd := exec.Command(docker, "rmi", "-a", "-f")
		cmd.Env = append(os.Environ(), env...)
		cmd.Run()
	})

	var meta struct{ Version string }
	readJSON(t, filepath.Join(dist, "metadata.json"), &meta)
	var artifacts []struct {
		Name, Path, Type, Goos, Goarch string
	}
	readJSON(t, filepath.Join(dist, "artifacts.json"), &artifacts)
	binaries := map[string]string{} // "amd64" -> the release binary
	var images []string
	for _, a := range artifacts {
		switch {
		case a.Type == "Binary" && a.Goos == "linux":
			binaries[a.Goarch] = a.Path
			if !filepath.IsAbs(a.Path) {
				binaries[a.Goarch] = filepath.Join(src, a.Path)
			}
		case a.Type == "Docker Image":
			images = append(images, a.Name)
		}
	}
	slices.Sort(images)
	want := []string{imageName + ":" + meta.Version + "-amd64", imageName + ":" + meta.Version + "-arm64"}
	if !slices.Equal(images, want) {
		t.Fatalf("GoReleaser made the images %q, want %q", images, want)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			archive := filepath.Join(work, arch+".tar")
			run(t, work, env, docker, "save", "-o", archive, imageName+":"+meta.Version+"-"+arch)
			img := readImage(t, archive)
			checkImageConfig(t, img.config, arch, meta.Version)
			bin, err := os.ReadFile(binaries[arch])
			if err != nil {
				t.Fatalf("the release binary for linux/%s: %v", arch, err)
			}
			if got := slices.Sorted(maps.Keys(img.files)); !slices.Equal(got, []string{"usr/bin/mcpship"}) {
				t.Fatalf("the image holds %q, want only usr/bin/mcpship", got)
			}
			if !bytes.Equal(img.files["usr/bin/mcpship"], bin) {
				t.Fatalf("usr/bin/mcpship in the image is not the release binary %s", binaries[arch])
			}
			if arch == runtime.GOARCH && runtime.GOOS == "linux" {
				runImage(t, img, meta.Version)
			}
		})
	}
}

// imageConfig returns the GoReleaser configuration in file with only the
// Linux builds and the dist directory dist.
func imageConfig(t *testing.T, file, dist string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	root := doc.Content[0]
	set := func(m *yaml.Node, key string, v *yaml.Node) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				m.Content[i+1] = v
				return
			}
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	}
	get := func(m *yaml.Node, key string) *yaml.Node {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1]
			}
		}
		t.Fatalf("%s has no %q", file, key)
		return nil
	}
	if get(root, "dockers_v2").Kind != yaml.SequenceNode {
		t.Fatalf("%s: dockers_v2 is not a list", file)
	}
	set(root, "dist", &yaml.Node{Kind: yaml.ScalarNode, Value: dist})
	linux := &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "linux"}}}
	for _, b := range get(root, "builds").Content {
		set(b, "goos", linux)
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// An image is what "docker save" wrote of one image: its configuration
// and the regular files of its layers, by path.
type image struct {
	config imageConfigFile
	files  map[string][]byte
	modes  map[string]os.FileMode
}

type imageConfigFile struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Config       struct {
		User         string              `json:"User"`
		Entrypoint   []string            `json:"Entrypoint"`
		Cmd          []string            `json:"Cmd"`
		Env          []string            `json:"Env"`
		Labels       map[string]string   `json:"Labels"`
		ExposedPorts map[string]struct{} `json:"ExposedPorts"`
	} `json:"config"`
}

// readImage reads a docker-archive tar: manifest.json names the
// configuration and the layers, each a tar itself.
func readImage(t *testing.T, archive string) image {
	t.Helper()
	entries := map[string][]byte{}
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		if h.Typeflag == tar.TypeReg {
			if entries[h.Name], err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	var manifest []struct {
		Config string
		Layers []string
	}
	if err := json.Unmarshal(entries["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("%s: manifest.json %q: %v", archive, entries["manifest.json"], err)
	}
	img := image{files: map[string][]byte{}, modes: map[string]os.FileMode{}}
	if err := json.Unmarshal(entries[manifest[0].Config], &img.config); err != nil {
		t.Fatalf("%s: the configuration %s: %v", archive, manifest[0].Config, err)
	}
	for _, l := range manifest[0].Layers {
		lr := tar.NewReader(bytes.NewReader(entries[l]))
		for {
			h, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: layer %s: %v", archive, l, err)
			}
			if h.Typeflag == tar.TypeReg {
				name := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
				if img.files[name], err = io.ReadAll(lr); err != nil {
					t.Fatal(err)
				}
				img.modes[name] = h.FileInfo().Mode()
			}
		}
	}
	return img
}

// checkImageConfig checks what the registry, a container runtime and a
// user read from an image's configuration.
func checkImageConfig(t *testing.T, c imageConfigFile, arch, version string) {
	t.Helper()
	if c.OS != "linux" || c.Architecture != arch {
		t.Errorf("the image is for %s/%s, want linux/%s", c.OS, c.Architecture, arch)
	}
	if got := c.Config.Labels["io.modelcontextprotocol.server.name"]; got != imageServer {
		t.Errorf("label io.modelcontextprotocol.server.name = %q, want %q (the MCP Registry checks an oci package by it)", got, imageServer)
	}
	if got := c.Config.Labels["org.opencontainers.image.version"]; got != version {
		t.Errorf("label org.opencontainers.image.version = %q, want %q", got, version)
	}
	if u := c.Config.User; u == "" || u == "0" || u == "root" || strings.HasPrefix(u, "0:") || strings.HasPrefix(u, "root:") {
		t.Errorf("the image runs as user %q, want a non-root user", u)
	}
	if want := []string{"/usr/bin/mcpship", "serve", "--transport", "http"}; !slices.Equal(c.Config.Entrypoint, want) {
		t.Errorf("entry point %q, want %q", c.Config.Entrypoint, want)
	}
	if want := []string{"--listen", "0.0.0.0:8080"}; !slices.Equal(c.Config.Cmd, want) {
		t.Errorf("cmd %q, want %q", c.Config.Cmd, want)
	}
	if _, ok := c.Config.ExposedPorts["8080/tcp"]; !ok {
		t.Errorf("exposed ports %v, want 8080/tcp", c.Config.ExposedPorts)
	}
}

// runImage runs the image's entry point from a copy of its file system,
// as its user when the test runs as root, listening on loopback instead of
// the CMD's 0.0.0.0:8080, with the token in $MCPSHIP_AUTH_TOKEN as the
// image's documentation says; then lists and calls its tools over HTTP.
func runImage(t *testing.T, img image, version string) {
	t.Helper()
	root, err := os.MkdirTemp("", "mcpship-image-root-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	for name, data := range img.files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, img.modes[name].Perm()); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	ep := img.config.Config.Entrypoint
	const token = "image-test-token"
	cmd := exec.Command(filepath.Join(root, strings.TrimPrefix(ep[0], "/")), append(ep[1:], "--listen", "127.0.0.1:0")...)
	cmd.Env = append(img.config.Config.Env, "MCPSHIP_AUTH_TOKEN="+token)
	cmd.Dir = "/"
	if os.Geteuid() == 0 {
		var uid, gid uint32
		if _, err := fmt.Sscanf(img.config.Config.User, "%d:%d", &uid, &gid); err != nil {
			t.Fatalf("user %q is not UID:GID: %v", img.config.Config.User, err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("running the image's entry point: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	var log bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if u, ok := strings.CutPrefix(sc.Text(), "serving MCP on "); ok {
				addr <- u
			}
		}
		close(addr)
	}()
	var url string
	select {
	case u, ok := <-addr:
		if !ok {
			t.Fatalf("the entry point ended before it listened: %v", cmd.Wait())
		}
		url = u
	case <-time.After(60 * time.Second):
		t.Fatal("the entry point did not listen within 60s")
	}

	call := func(token, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"dist-test","version":"0"}}}`
	if code, body := call("", initialize); code != http.StatusUnauthorized {
		t.Errorf("without the token: status %d, want 401\n%s", code, body)
	}
	code, body := call(token, initialize)
	if code != http.StatusOK || !strings.Contains(body, `"serverInfo":{"name":"mcpship","version":"`+version+`"`) {
		t.Fatalf("initialize: status %d, want 200 and serverInfo mcpship %s\n%s\nserver log:\n%s", code, version, body, log.String())
	}
	if os.Geteuid() == 0 {
		t.Logf("the entry point ran as %s and answered initialize: %s", img.config.Config.User, strings.TrimSpace(body))
	}
}
