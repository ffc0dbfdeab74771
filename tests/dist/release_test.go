package dist

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// platforms are the targets of .goreleaser.yaml.
var platforms = []string{
	"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64", "windows_arm64",
}

// archiveName returns the name of a release archive for platform ("linux_amd64").
func archiveName(platform string) string {
	ext := ".tar.gz"
	if strings.HasPrefix(platform, "windows_") {
		ext = ".zip"
	}
	return "mcpship_" + testVersion + "_" + platform + ext
}

func TestGoreleaserCheck(t *testing.T) {
	goreleaser := tool(t, "goreleaser")
	// check exits non-zero on errors and on deprecated settings.
	run(t, repoRoot(t), nil, goreleaser, "check")
}

var (
	releaseOnce sync.Once
	releaseDir  string
	releaseErr  error
)

// release cuts testTag from the scratch repository with GoReleaser, offline
// (no publishing, signing or SBOMs), once per test process, and returns its
// dist directory.
func release(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping the GoReleaser release build in -short mode")
	}
	goreleaser := tool(t, "goreleaser")
	src := source(t)
	releaseOnce.Do(func() {
		cmd := exec.Command(goreleaser, "release", "--clean", "--skip=publish,sign,sbom,announce")
		cmd.Dir = src
		// GoReleaser refuses to run with more than one forge token set.
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GITHUB_TOKEN=") && !strings.HasPrefix(kv, "GITLAB_TOKEN=") && !strings.HasPrefix(kv, "GITEA_TOKEN=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			releaseErr = fmt.Errorf("goreleaser release in %s: %v\n%s", src, err, out)
			return
		}
		releaseDir = filepath.Join(src, "dist")
	})
	if releaseErr != nil {
		t.Fatal(releaseErr)
	}
	return releaseDir
}

// checksums parses a checksums.txt into file name -> hex SHA-256.
func checksums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("%s: malformed line %q", path, sc.Text())
		}
		sums[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sums
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// archiveFiles returns the files in a .tar.gz or .zip archive by name.
func archiveFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatalf("%s: %s: %v", path, f.Name, err)
			}
			files[f.Name], err = io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatalf("%s: %s: %v", path, f.Name, err)
			}
		}
		return files
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if files[h.Name], err = io.ReadAll(tr); err != nil {
			t.Fatalf("%s: %s: %v", path, h.Name, err)
		}
	}
	return files
}

// TestRelease checks what a release of testTag contains: an archive per
// platform holding the binary, README.md and LICENSE, and a checksums.txt
// that matches them; and that the binary for this machine reports testVersion.
func TestRelease(t *testing.T) {
	dist := release(t)
	if sourceNote != "" {
		t.Log(sourceNote)
	}
	sums := checksums(t, filepath.Join(dist, "checksums.txt"))
	for _, p := range platforms {
		name := archiveName(p)
		want, ok := sums[name]
		if !ok {
			t.Errorf("checksums.txt has no line for %s; it lists %v", name, slices.Sorted(maps.Keys(sums)))
			continue
		}
		if got := sha256File(t, filepath.Join(dist, name)); got != want {
			t.Errorf("%s: SHA-256 is %s, checksums.txt says %s", name, got, want)
		}
		bin := "mcpship"
		if strings.HasPrefix(p, "windows_") {
			bin = "mcpship.exe"
		}
		files := archiveFiles(t, filepath.Join(dist, name))
		var got []string
		for n := range files {
			got = append(got, n)
		}
		slices.Sort(got)
		if wantFiles := []string{"LICENSE", "README.md", bin}; !slices.Equal(got, wantFiles) {
			t.Errorf("%s holds %v, want %v", name, got, wantFiles)
		}
	}
	for _, arch := range []string{"amd64", "arm64"} {
		for _, format := range []string{"deb", "rpm", "apk"} {
			name := "mcpship_" + testVersion + "_linux_" + arch + "." + format
			if _, ok := sums[name]; !ok {
				t.Errorf("checksums.txt has no line for the package %s", name)
			}
		}
	}
	cask, err := os.ReadFile(filepath.Join(dist, "homebrew", "Casks", "mcpship.rb"))
	if err != nil {
		t.Errorf("no Homebrew cask: %v", err)
	}
	for _, want := range []string{`version "` + testVersion + `"`, `sha256 "` + sums[archiveName("darwin_arm64")] + `"`, `binary "mcpship"`} {
		if !strings.Contains(string(cask), want) {
			t.Errorf("the Homebrew cask lacks %s:\n%s", want, cask)
		}
	}
	for name, want := range sums {
		if got := sha256File(t, filepath.Join(dist, name)); got != want {
			t.Errorf("%s: SHA-256 is %s, checksums.txt says %s", name, got, want)
		}
	}

	host := runtime.GOOS + "_" + runtime.GOARCH
	if !slices.Contains(platforms, host) || runtime.GOOS == "windows" {
		t.Skipf("no release archive runs on %s", host)
	}
	bin := filepath.Join(t.TempDir(), "mcpship")
	if err := os.WriteFile(bin, archiveFiles(t, filepath.Join(dist, archiveName(host)))["mcpship"], 0o755); err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(run(t, source(t), nil, "git", "rev-parse", "HEAD"))
	out := run(t, "", nil, bin, "version")
	if want := fmt.Sprintf("mcpship %s (commit %s, built %s, ", testVersion, commit[:12], testDate); !strings.HasPrefix(out, want) {
		t.Errorf("mcpship version from %s printed\n%q\nwant it to start with\n%q", archiveName(host), out, want)
	}
	var info struct{ Version, Commit, Date string }
	if err := json.Unmarshal([]byte(run(t, "", nil, bin, "version", "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Version != testVersion || info.Commit != commit || info.Date != testDate {
		t.Errorf("mcpship version --json = %+v, want version %s, commit %s, date %s", info, testVersion, commit, testDate)
	}
}
