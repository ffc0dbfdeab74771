package dist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestInstallScriptShellcheck(t *testing.T) {
	shellcheck := tool(t, "shellcheck")
	root := repoRoot(t)
	run(t, root, nil, shellcheck, "-s", "sh", "install.sh")
	scripts, err := filepath.Glob(filepath.Join(root, "scripts", "*.sh"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	// Each script by its own shebang (or shell directive), following what it sources.
	run(t, root, nil, shellcheck, append([]string{"-x"}, scripts...)...)
}

// posixShell is one shell that install.sh must work under, with a PATH of
// the commands it may find there.
type posixShell struct {
	argv []string // the shell, e.g. {"/usr/bin/dash"}
	path string   // a directory of symlinks to the commands on its PATH
}

// dashShell runs install.sh with dash and a PATH of symlinks to the
// system's curl and the commands install.sh needs: nothing else, so no stray
// cosign.
func dashShell(t *testing.T) posixShell {
	return posixShell{argv: []string{tool(t, "dash")}, path: systemPath(t, "curl")}
}

// bashShell runs install.sh with bash, downloading with GNU wget.
func bashShell(t *testing.T) posixShell {
	return posixShell{argv: []string{tool(t, "bash")}, path: systemPath(t, "wget")}
}

// systemPath returns a directory of symlinks to the system's downloader
// (curl or wget) and the other commands install.sh needs.
func systemPath(t *testing.T, downloader string) string {
	dir := t.TempDir()
	for _, name := range []string{downloader, "uname", "awk", "sed", "tr", "mktemp", "tar", "gzip", "cp", "chmod", "mv", "mkdir", "rm", "sha256sum", "cat", "find"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("%s is not installed: %v", name, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// busyboxShell runs install.sh with busybox sh and only busybox's applets on
// PATH, so it downloads with busybox wget.
func busyboxShell(t *testing.T) posixShell {
	busybox := tool(t, "busybox")
	dir := t.TempDir()
	for _, name := range strings.Fields(run(t, "", nil, busybox, "--list")) {
		if err := os.Symlink(busybox, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return posixShell{argv: []string{busybox, "sh"}, path: dir}
}

// installRun is one run of install.sh: what the test sets, then what
// exec fills in.
type installRun struct {
	args   []string
	env    []string              // added to the environment
	uname  [2]string             // fake "uname -s" and "uname -m" output, when set
	cosign string                // "pass" or "fail": a stub cosign on PATH
	onPath bool                  // put the install directory on PATH
	piped  []byte                // run "sh -s -- args" with this script on stdin
	setup  func(f *fakeReleases) // changes to the release server

	stdout, stderr bytes.Buffer
	err            error
	took           time.Duration // how long install.sh ran
	home           string        // $HOME, also the working directory
	bin            string        // $HOME/bin, which "-b bin" and "{bin}" name
	tmp            string        // $TMPDIR
	cosignArgs     string        // where the stub cosign writes its arguments
}

// host is the release platform of this machine, as install.sh names it.
func host(t *testing.T) string {
	h := runtime.GOOS + "_" + runtime.GOARCH
	if runtime.GOOS == "windows" || !slices.Contains(platforms, h) {
		t.Skipf("install.sh does not install on %s", h)
	}
	return h
}

// oldBinary is what the tests put at the install location beforehand: a
// failed install must leave it as it is.
const oldBinary = "#!/bin/sh\necho old mcpship\n"

// exec runs install.sh with sh against f, after putting oldBinary into the
// install directory $HOME/bin. "{bin}" in the arguments stands for that
// directory.
func (r *installRun) exec(t *testing.T, sh posixShell, f *fakeReleases) {
	t.Helper()
	r.home, r.tmp = t.TempDir(), t.TempDir()
	r.bin = filepath.Join(r.home, "bin")
	if err := os.MkdirAll(r.bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.bin, "mcpship"), []byte(oldBinary), 0o755); err != nil {
		t.Fatal(err)
	}
	path := sh.path
	fake := t.TempDir()
	if r.uname != [2]string{} {
		script := "#!/bin/sh\ncase $1 in -m) echo '" + r.uname[1] + "' ;; *) echo '" + r.uname[0] + "' ;; esac\n"
		writeScript(t, filepath.Join(fake, "uname"), script)
	}
	if r.cosign != "" {
		code := map[string]string{"pass": "0", "fail": "1"}[r.cosign]
		r.cosignArgs = filepath.Join(r.home, "cosign-args")
		writeScript(t, filepath.Join(fake, "cosign"), "#!/bin/sh\nprintf '%s\\n' \"$@\" >\""+r.cosignArgs+"\"\nexit "+code+"\n")
	}
	path = fake + string(os.PathListSeparator) + path
	if r.onPath {
		path += string(os.PathListSeparator) + r.bin
	}
	if r.setup != nil {
		r.setup(f)
	}
	args := append(slices.Clone(sh.argv), filepath.Join(repoRoot(t), "install.sh"))
	if r.piped != nil {
		args = append(slices.Clone(sh.argv), "-s", "--")
	}
	for _, a := range r.args {
		args = append(args, strings.ReplaceAll(a, "{bin}", r.bin))
	}
	// No run should come near this; it only keeps a hanging install.sh
	// from hanging the tests.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.WaitDelay = time.Second // a killed shell's curl may hold stderr open
	cmd.Dir = r.home
	cmd.Env = append([]string{
		"PATH=" + path, "HOME=" + r.home, "TMPDIR=" + r.tmp, "MCPSHIP_BASE_URL=" + f.URL,
	}, r.env...)
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	if r.piped != nil {
		cmd.Stdin = bytes.NewReader(r.piped)
	}
	start := time.Now()
	r.err = cmd.Run()
	r.took = time.Since(start)
	t.Logf("install.sh %s: %v\n%s", strings.Join(r.args, " "), r.err, r.stderr.String())
	if leftover, _ := os.ReadDir(r.tmp); len(leftover) > 0 {
		t.Errorf("install.sh left %d files in TMPDIR, e.g. %s", len(leftover), leftover[0].Name())
	}
}

func writeScript(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// wantInstalled checks that dir holds exactly mcpship and that it is the
// test release.
func (r *installRun) wantInstalled(t *testing.T, dir string) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("install.sh failed: %v\n%s", r.err, r.stderr.String())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "mcpship" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want only mcpship", dir, names)
	}
	out := run(t, "", nil, filepath.Join(dir, "mcpship"), "version")
	if want := "mcpship " + testVersion + " ("; !strings.HasPrefix(out, want) {
		t.Errorf("installed mcpship version printed %q, want it to start with %q", out, want)
	}
}

// wantFailed checks that install.sh failed with msg on stderr and that the
// install directory holds only the old binary, untouched.
func (r *installRun) wantFailed(t *testing.T, msg string) {
	t.Helper()
	var exit *exec.ExitError
	if !errors.As(r.err, &exit) {
		t.Fatalf("install.sh: got error %v, want a non-zero exit", r.err)
	}
	if !strings.Contains(r.stderr.String(), msg) {
		t.Errorf("install.sh stderr does not say %q:\n%s", msg, r.stderr.String())
	}
	r.wantUntouched(t)
}

// wantUntouched checks that the install directories hold only oldBinary.
func (r *installRun) wantUntouched(t *testing.T) {
	t.Helper()
	entries, _ := os.ReadDir(r.bin)
	b, _ := os.ReadFile(filepath.Join(r.bin, "mcpship"))
	if len(entries) != 1 || string(b) != oldBinary {
		t.Errorf("%s changed: %d entries, mcpship is %d bytes; want only the old mcpship", r.bin, len(entries), len(b))
	}
	if _, err := os.Stat(filepath.Join(r.home, ".local")); err == nil {
		t.Errorf("install.sh created %s/.local", r.home)
	}
}

// setChecksum replaces the checksums.txt line for archive with the SHA-256
// of content, or removes the line when content is nil.
func setChecksum(f *fakeReleases, archive string, content []byte) {
	key := testTag + "/checksums.txt"
	var out []string
	for _, line := range strings.SplitAfter(string(f.files[key]), "\n") {
		if !strings.HasSuffix(strings.TrimSpace(line), "  "+archive) {
			out = append(out, line)
			continue
		}
		if content != nil {
			sum := sha256.Sum256(content)
			out = append(out, hex.EncodeToString(sum[:])+"  "+archive+"\n")
		}
	}
	f.files[key] = []byte(strings.Join(out, ""))
}

// tarGz returns a gzipped tar archive of README.md and then the entries hdrs,
// each with content when it is a regular file.
func tarGz(t *testing.T, content string, hdrs ...tar.Header) []byte {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	readme := "# mcpship\n"
	hdrs = append([]tar.Header{{Name: "README.md", Mode: 0o644, Size: int64(len(readme))}}, hdrs...)
	for i, h := range hdrs {
		body := content
		if i == 0 {
			body = readme
		}
		if h.Typeflag == tar.TypeReg || h.Typeflag == 0 {
			h.Size = int64(len(body))
		} else {
			body = ""
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestInstallScript(t *testing.T) {
	for name, newShell := range map[string]func(*testing.T) posixShell{"dash": dashShell, "busybox": busyboxShell, "bash": bashShell} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sh := newShell(t)
			testInstallScript(t, sh)
		})
	}
}

func testInstallScript(t *testing.T, sh posixShell) {
	h := host(t)
	archive := archiveName(h)
	noLatest := func(t *testing.T, f *fakeReleases) {
		if slices.Contains(f.requested(), "/latest") {
			t.Errorf("a pinned install asked for /latest: %v", f.requested())
		}
	}

	t.Run("latest", func(t *testing.T) {
		f := newFakeReleases(t)
		r := &installRun{args: []string{"-b", "bin"}} // relative to $HOME, the working directory
		r.exec(t, sh, f)
		r.wantInstalled(t, r.bin)
		if !slices.Contains(f.requested(), "/latest") {
			t.Errorf("install.sh did not resolve /latest: %v", f.requested())
		}
		if !strings.Contains(r.stderr.String(), "is not on your PATH") {
			t.Errorf("no PATH hint for an install directory off PATH:\n%s", r.stderr.String())
		}
	})
	for _, v := range []string{testVersion, testTag} {
		t.Run("pinned -v "+v, func(t *testing.T) {
			f := newFakeReleases(t)
			f.latest = "v9.9.9" // not there: following it would fail
			r := &installRun{onPath: true, args: []string{"-v", v, "-b", "{bin}"}}
			r.exec(t, sh, f)
			r.wantInstalled(t, r.bin)
			noLatest(t, f)
			if strings.Contains(r.stderr.String(), "PATH") {
				t.Errorf("PATH hint although the install directory is on PATH:\n%s", r.stderr.String())
			}
		})
	}
	t.Run("MCPSHIP_VERSION into the default ~/.local/bin", func(t *testing.T) {
		f := newFakeReleases(t)
		f.latest = "v9.9.9"
		r := &installRun{env: []string{"MCPSHIP_VERSION=" + testTag}}
		r.exec(t, sh, f)
		r.wantInstalled(t, filepath.Join(r.home, ".local", "bin"))
		noLatest(t, f)
	})
	t.Run("MCPSHIP_INSTALL_DIR", func(t *testing.T) {
		f := newFakeReleases(t)
		r := &installRun{}
		dir := filepath.Join(t.TempDir(), "new", "dir")
		r.env = []string{"MCPSHIP_INSTALL_DIR=" + dir}
		r.exec(t, sh, f)
		r.wantInstalled(t, dir)
	})

	failures := []struct {
		name string
		r    installRun
		msg  string
	}{
		{"checksum mismatch", installRun{setup: func(f *fakeReleases) {
			setChecksum(f, archive, []byte("something else"))
		}}, "SHA-256 mismatch for " + archive},
		{"no checksum line", installRun{setup: func(f *fakeReleases) {
			setChecksum(f, archive, nil)
		}}, "checksums.txt of " + testTag + " has no line for " + archive},
		{"version not found", installRun{args: []string{"-v", "1.0.0"}}, "could not download"},
		{"no checksums.txt", installRun{setup: func(f *fakeReleases) {
			delete(f.files, testTag+"/checksums.txt")
		}}, "could not download"},
		{"truncated archive", installRun{setup: func(f *fakeReleases) {
			key := testTag + "/" + archive
			cut := f.files[key][:len(f.files[key])/2]
			f.files[key] = cut
			setChecksum(f, archive, cut) // the checksum passes; unpacking must not
		}}, "could not unpack mcpship from " + archive},
		{"no latest release", installRun{setup: func(f *fakeReleases) { f.latest = "" }}, "could not find the latest release"},
		{"latest is not a version", installRun{setup: func(f *fakeReleases) { f.latest = "nightly" }}, "could not find the latest release"},
		{"unknown arch", installRun{uname: [2]string{"Linux", "riscv64"}}, "no mcpship release for CPU 'riscv64'"},
		{"unknown OS", installRun{uname: [2]string{"FreeBSD", "amd64"}}, "no mcpship release for OS 'FreeBSD'"},
		{"signature required, no cosign", installRun{env: []string{"MCPSHIP_REQUIRE_SIGNATURE=1"}}, "cosign is not installed"},
		{"cosign rejects the signature", installRun{cosign: "fail", setup: func(f *fakeReleases) {
			f.files[testTag+"/checksums.txt.sigstore.json"] = []byte("{}")
		}}, "cosign could not verify"},
		{"cosign present, no signature", installRun{cosign: "pass"}, "could not download"},
		{"bad version", installRun{args: []string{"-v", "1.0;rm -rf /"}}, "is not a version"},
		{"stray argument", installRun{args: []string{"1.0.0"}}, "unexpected argument '1.0.0'"},
	}
	for _, tc := range failures {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeReleases(t)
			r := tc.r
			r.args = append(r.args, "-b", "bin")
			r.exec(t, sh, f)
			r.wantFailed(t, tc.msg)
			if r.uname != [2]string{} && len(f.requested()) > 0 {
				t.Errorf("install.sh downloaded for a platform it cannot install on: %v", f.requested())
			}
		})
	}

	// The archive passes its checksum, but its mcpship entry is not a
	// regular file of its own: install.sh must not install what it points
	// to (a file of this machine), nor hang on a FIFO.
	local := filepath.Join(t.TempDir(), "local-file")
	writeScript(t, local, "#!/bin/sh\necho a local file\n")
	odd := []struct {
		name string
		hdrs []tar.Header
	}{
		{"symlink entry", []tar.Header{{Name: "mcpship", Typeflag: tar.TypeSymlink, Linkname: local, Mode: 0o777}}},
		{"relative symlink entry", []tar.Header{{Name: "mcpship", Typeflag: tar.TypeSymlink, Linkname: "README.md", Mode: 0o777}}},
		{"hard link entry", []tar.Header{{Name: "mcpship", Typeflag: tar.TypeLink, Linkname: local}}},
		{"hard link to another entry", []tar.Header{{Name: "mcpship", Typeflag: tar.TypeLink, Linkname: "README.md"}}},
		{"directory entry", []tar.Header{{Name: "mcpship/", Typeflag: tar.TypeDir, Mode: 0o755}}},
		{"FIFO entry", []tar.Header{{Name: "mcpship", Typeflag: tar.TypeFifo, Mode: 0o755}}},
		{"no mcpship entry", nil},
	}
	for _, tc := range odd {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeReleases(t)
			b := tarGz(t, "#!/bin/sh\necho from the archive\n", tc.hdrs...)
			f.files[testTag+"/"+archive] = b
			setChecksum(f, archive, b)
			r := &installRun{args: []string{"-b", "bin"}}
			r.exec(t, sh, f)
			// Some tar programs already refuse to unpack some of these.
			msg := "the mcpship entry of " + archive + " is not a regular file"
			if strings.Contains(r.stderr.String(), "could not unpack mcpship") {
				msg = "could not unpack mcpship from " + archive
			}
			r.wantFailed(t, msg)
		})
	}

	// A server that stops sending makes install.sh give up within its
	// bound: 3 tries of MCPSHIP_TIMEOUT seconds each and 3 s between them
	// with curl and GNU wget, 10 times MCPSHIP_TIMEOUT with a busybox wget
	// that has no -T.
	const timeout = 1
	bound := 10 * timeout * time.Second
	stalls := []struct {
		name, path string
		after      int
		msg        string
	}{
		{"stall before the headers of /latest", "/latest", -1, "could not find the latest release"},
		{"stall in the middle of the archive", "/objects/" + testTag + "/" + archive, 100, "/" + archive + "; check your network"},
	}
	for _, tc := range stalls {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeReleases(t)
			f.stall, f.stallAfter = tc.path, tc.after
			r := &installRun{args: []string{"-b", "bin"}, env: []string{fmt.Sprintf("MCPSHIP_TIMEOUT=%d", timeout)}}
			r.exec(t, sh, f)
			r.wantFailed(t, tc.msg)
			// Generous slack for a loaded machine; without the limits
			// install.sh waits until the 2 minutes of exec run out.
			if r.took > bound+30*time.Second {
				t.Errorf("install.sh took %v against a stalled server; want about %v at most", r.took.Round(time.Second), bound)
			}
		})
	}
	t.Run("bad MCPSHIP_TIMEOUT", func(t *testing.T) {
		f := newFakeReleases(t)
		r := &installRun{args: []string{"-b", "bin"}, env: []string{"MCPSHIP_TIMEOUT=1m"}}
		r.exec(t, sh, f)
		r.wantFailed(t, "MCPSHIP_TIMEOUT='1m' is not a number of seconds")
		if got := f.requested(); len(got) > 0 {
			t.Errorf("install.sh sent requests with a bad MCPSHIP_TIMEOUT: %v", got)
		}
	})

	t.Run("cosign verifies", func(t *testing.T) {
		f := newFakeReleases(t)
		f.files[testTag+"/checksums.txt.sigstore.json"] = []byte("{}")
		r := &installRun{cosign: "pass", args: []string{"-v", testVersion, "-b", "bin"}, env: []string{"MCPSHIP_REQUIRE_SIGNATURE=1"}}
		r.exec(t, sh, f)
		r.wantInstalled(t, r.bin)
		b, err := os.ReadFile(r.cosignArgs)
		if err != nil {
			t.Fatalf("cosign was not run: %v", err)
		}
		args := string(b)
		for _, want := range []string{"verify-blob", "--bundle", "checksums.txt.sigstore.json", `@refs/tags/v0\.0\.1-test$`, "https://token.actions.githubusercontent.com"} {
			if !strings.Contains(args, want) {
				t.Errorf("cosign arguments lack %q:\n%s", want, args)
			}
		}
	})

	dryRuns := []struct {
		name  string
		uname [2]string
		want  string
	}{
		{"dry run", [2]string{}, "/download/" + testTag + "/" + archive},
		{"dry run aarch64", [2]string{"Linux", "aarch64"}, "mcpship_" + testVersion + "_linux_arm64.tar.gz"},
		{"dry run macOS arm64", [2]string{"Darwin", "arm64"}, "mcpship_" + testVersion + "_darwin_arm64.tar.gz"},
		{"dry run macOS x86_64", [2]string{"Darwin", "x86_64"}, "mcpship_" + testVersion + "_darwin_amd64.tar.gz"},
	}
	for _, tc := range dryRuns {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeReleases(t)
			r := &installRun{uname: tc.uname, args: []string{"-n", "-v", testTag, "-b", "bin"}}
			r.exec(t, sh, f)
			if r.err != nil {
				t.Fatalf("install.sh -n failed: %v\n%s", r.err, r.stderr.String())
			}
			if !strings.Contains(r.stderr.String(), tc.want) {
				t.Errorf("install.sh -n does not mention %q:\n%s", tc.want, r.stderr.String())
			}
			if got := f.requested(); len(got) > 0 {
				t.Errorf("install.sh -n sent requests: %v", got)
			}
			r.wantUntouched(t)
		})
	}

	script, err := os.ReadFile(filepath.Join(repoRoot(t), "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("piped to sh -s", func(t *testing.T) {
		f := newFakeReleases(t)
		r := &installRun{piped: script, args: []string{"-v", testVersion, "-b", "bin"}}
		r.exec(t, sh, f)
		r.wantInstalled(t, r.bin)
	})
	// A download cut short must do nothing: main runs on the last line
	// only, and a cut anywhere in that line must not run it either.
	t.Run("truncated script", func(t *testing.T) {
		f := newFakeReleases(t)
		var cuts []int
		for n := 0; n < len(script)-1; n += len(script) / 16 {
			cuts = append(cuts, n)
		}
		last := bytes.LastIndexByte(script[:len(script)-1], '\n') + 1
		for n := last; n < len(script)-1; n++ {
			cuts = append(cuts, n)
		}
		for _, n := range cuts {
			r := &installRun{piped: script[:n], args: []string{"-b", "bin"}}
			r.exec(t, sh, f)
			r.wantUntouched(t)
		}
		if got := f.requested(); len(got) > 0 {
			t.Errorf("a truncated install.sh sent requests: %v", got)
		}
	})

	t.Run("help", func(t *testing.T) {
		f := newFakeReleases(t)
		r := &installRun{args: []string{"-h"}}
		r.exec(t, sh, f)
		if r.err != nil || !strings.Contains(r.stdout.String(), "Usage: install.sh") {
			t.Errorf("install.sh -h: %v, stdout:\n%s", r.err, r.stdout.String())
		}
		r.wantUntouched(t)
	})
}
