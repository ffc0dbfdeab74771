package dist

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoInstall installs mcpship with "go install module@testTag" from a
// file:// module proxy that holds the scratch repository at testTag, as
// proxy.golang.org would serve it, and checks that the binary reports
// testVersion: no ldflags, only the module version in its build info.
func TestGoInstall(t *testing.T) {
	const module = "github.com/mcpship/mcpship"
	src := source(t)
	tmp := t.TempDir()

	// The proxy layout of https://go.dev/ref/mod#goproxy-protocol.
	proxy := filepath.Join(tmp, "proxy")
	versions := filepath.Join(proxy, module, "@v")
	if err := os.MkdirAll(versions, 0o755); err != nil {
		t.Fatal(err)
	}
	// A module zip leaves out nested modules (directories with their own
	// go.mod, such as tests/realclients), as the go command does.
	args := []string{"archive", "--format=zip", "--prefix=" + module + "@" + testTag + "/",
		"-o", filepath.Join(versions, testTag+".zip"), testTag, "--", "."}
	nested, err := exec.Command("git", "-C", src, "ls-files", "--", "*/go.mod").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(nested)) {
		args = append(args, ":(exclude)"+filepath.Dir(f))
	}
	run(t, src, nil, "git", args...)
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": testTag, "Time": testDate})
	for name, content := range map[string][]byte{
		"list":            []byte(testTag + "\n"),
		testTag + ".info": info,
		testTag + ".mod":  gomod,
	} {
		if err := os.WriteFile(filepath.Join(versions, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Dependencies come from the shared module cache, or the real proxy when
	// they are not there yet; mcpship itself goes into a scratch module cache
	// so that the shared one never holds this made-up version.
	shared := strings.TrimSpace(run(t, "", nil, "go", "env", "GOMODCACHE"))
	gobin := filepath.Join(tmp, "bin")
	env := []string{
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(shared, "cache", "download")) + ",https://proxy.golang.org",
		"GOSUMDB=off",
		"GONOSUMDB=" + module,
		"GOFLAGS=-mod=mod -modcacherw",
		"GOMODCACHE=" + filepath.Join(tmp, "modcache"),
		"GOPATH=" + filepath.Join(tmp, "gopath"),
		"GOBIN=" + gobin,
		"GOTOOLCHAIN=local",
	}
	run(t, tmp, env, "go", "install", module+"/cmd/mcpship@"+testTag)

	bin := filepath.Join(gobin, "mcpship")
	out := run(t, tmp, nil, bin, "version")
	if want := "mcpship " + testVersion + " ("; !strings.HasPrefix(out, want) {
		t.Errorf("go-installed mcpship version printed %q, want it to start with %q", out, want)
	}
	var got struct{ Version string }
	if err := json.Unmarshal([]byte(run(t, tmp, nil, bin, "version", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if got.Version != testVersion {
		t.Errorf("go-installed mcpship version --json reports %q, want %q", got.Version, testVersion)
	}
}
