//go:build linux

package tests

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/mcpb"
	"github.com/mcpship/mcpship/internal/testutil"
)

// writeScriptBundle writes a bundle "probe" 1.0.0 whose binary server is
// the shell script given, to dir, and returns its path.
func writeScriptBundle(t *testing.T, dir, script string) string {
	return writeNamedScriptBundle(t, dir, "probe", script)
}

// writeNamedScriptBundle writes a bundle name 1.0.0 whose binary server
// is the shell script given, to dir, and returns its path.
func writeNamedScriptBundle(t *testing.T, dir, name, script string) string {
	t.Helper()
	m := &mcpb.Manifest{ManifestVersion: mcpb.ManifestVersion, Name: name, Version: "1.0.0", Description: "d", Author: mcpb.Author{Name: "a"},
		Server: mcpb.Server{Type: "binary", EntryPoint: "server/run", MCPConfig: &mcpb.MCPConfig{Command: "${__dirname}/server/run"}}}
	var buf bytes.Buffer
	if err := mcpb.Write(&buf, m, []mcpb.File{{Name: "server/run", Data: []byte(script), Mode: 0o755}}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "probe.mcpb")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// startBounded starts mcpship with args, and kills it if it has not
// exited after limit: a command that hangs fails the test instead of
// hanging it.
func (s addSandbox) startBounded(t *testing.T, limit time.Duration, args ...string) (cmd *exec.Cmd, stderr *syncBuffer, wait func() (code int, hung bool)) {
	t.Helper()
	cmd = s.cmd(args...)
	cmd.Env = append(cmd.Env, "SSL_CERT_FILE="+s.certFile)
	stderr = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return cmd, stderr, func() (int, bool) {
		select {
		case <-done:
			return cmd.ProcessState.ExitCode(), false
		case <-time.After(limit):
			cmd.Process.Kill()
			<-done
			return -1, true
		}
	}
}

// wantGroupDead fails t if pid, or a process of its group, still runs
// (a zombie counts as dead), and kills what does.
func wantGroupDead(t *testing.T, pid int) {
	t.Helper()
	pgid, err := syscall.Getpgid(pid)
	if err != nil {
		pgid = pid // gone: it led its group, or its group is gone too
	}
	if pgid == syscall.Getpgrp() {
		t.Errorf("process %d runs in the test's own process group, not in one of its own", pid)
		wantAllDead(t, []int{pid})
		return
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) && fields[0] != "Z" && fields[0] != "X" {
			t.Errorf("process %s of the server's group %d still runs", filepath.Base(filepath.Dir(f)), pgid)
			n, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			syscall.Kill(n, syscall.SIGKILL)
		}
	}
	wantAllDead(t, []int{pid})
}

// syncBuffer is a bytes.Buffer safe for a command's output and a test
// reading it at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// hangingServers are servers that never answer the handshake and leave
// a child, sleep, holding their output; its pid is written to PIDFILE.
var hangingServers = map[string]string{
	"waits for its child":               "#!/bin/sh\nsleep 1000 &\necho $! > PIDFILE\nwait\n",
	"exits, its child stays":            "#!/bin/sh\nsleep 1000 &\necho $! > PIDFILE\nexit 0\n",
	"ignores SIGTERM, and so its child": "#!/bin/sh\ntrap '' TERM\nsleep 1000 &\necho $! > PIDFILE\nwait\nwait\n",
	"runs its child in the foreground":  "#!/bin/sh\necho $$ > PIDFILE\nsleep 1000\n",
}

// TestAddCheckIsBounded: the handshake check ends within --timeout even
// when the server leaves a child holding its output; the child is
// killed, nothing is installed, and the lock is free for the next add.
func TestAddCheckIsBounded(t *testing.T) {
	for what, script := range hangingServers {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			s := newAddSandbox(t, newFakeHub(t))
			pidfile := filepath.Join(t.TempDir(), "pid")
			file := writeScriptBundle(t, s.proj, strings.ReplaceAll(script, "PIDFILE", pidfile))
			_, errOut, wait := s.startBounded(t, 60*time.Second, "add", file, "--client", "cursor", "--timeout", "2s")
			code, hung := wait()
			if hung || code != 1 || !strings.Contains(errOut.String(), "the server did not pass the handshake check") {
				t.Errorf("exit %d (hung: %v), want 1 from the failed check\n%s", code, hung, errOut.String())
			}
			wantGroupDead(t, readPids(t, pidfile, 1)[0])
			s.nothingInstalled(t)
		})
	}
}

// TestAddCheckStopsOnSIGTERM: one SIGTERM during the check stops add
// (exit 130) at once, whatever --timeout says, kills the server and its
// child, and removes what add unpacked.
func TestAddCheckStopsOnSIGTERM(t *testing.T) {
	for what, script := range hangingServers {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			s := newAddSandbox(t, newFakeHub(t))
			pidfile := filepath.Join(t.TempDir(), "pid")
			file := writeScriptBundle(t, s.proj, strings.ReplaceAll(script, "PIDFILE", pidfile))
			cmd, errOut, wait := s.startBounded(t, 60*time.Second, "add", file, "--client", "cursor", "--timeout", "1h")
			pids := readPids(t, pidfile, 1)
			cmd.Process.Signal(syscall.SIGTERM)
			code, hung := wait()
			if hung || code != 130 || !strings.Contains(errOut.String(), "interrupted; nothing was installed") {
				t.Errorf("exit %d (hung: %v), want 130\n%s", code, hung, errOut.String())
			}
			wantGroupDead(t, pids[0])
			s.nothingInstalled(t)
		})
	}
}

// TestProbeIsBounded: doctor, tools and call start a server the same
// way as add's check: each ends within --timeout when the server leaves
// a child holding its output, kills the child, and one SIGTERM stops
// each at once (exit 130) whatever --timeout says.
func TestProbeIsBounded(t *testing.T) {
	for what, script := range hangingServers {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			s := newAddSandbox(t, newFakeHub(t))
			dir := t.TempDir()
			pidfile, server := filepath.Join(dir, "pid"), filepath.Join(dir, "server")
			if err := os.WriteFile(server, []byte(strings.ReplaceAll(script, "PIDFILE", pidfile)), 0o755); err != nil {
				t.Fatal(err)
			}
			cursor, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"hang": map[string]any{"command": server}}})
			os.MkdirAll(filepath.Join(s.home, ".cursor"), 0o755)
			if err := os.WriteFile(filepath.Join(s.home, ".cursor", "mcp.json"), cursor, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"doctor", "--client", "cursor", "--timeout", "2s"},
				{"tools", "--timeout", "2s", "--", server},
				{"call", "--timeout", "2s", "t", "--", server},
				{"tools", "--timeout", "2s", "--name", "hang"},
			} {
				os.Remove(pidfile)
				_, out, wait := s.startBounded(t, 60*time.Second, args...)
				code, hung := wait()
				if hung || code != 1 {
					t.Errorf("%s: exit %d (hung: %v), want 1\n%s", args, code, hung, out.String())
				}
				wantGroupDead(t, readPids(t, pidfile, 1)[0])
			}
			for _, args := range [][]string{
				{"doctor", "--client", "cursor", "--timeout", "1h"},
				{"tools", "--timeout", "0", "--", server},
				{"call", "--timeout", "0", "t", "--", server},
			} {
				os.Remove(pidfile)
				cmd, out, wait := s.startBounded(t, 60*time.Second, args...)
				pid := readPids(t, pidfile, 1)[0]
				cmd.Process.Signal(syscall.SIGTERM)
				code, hung := wait()
				if hung || code != 130 || !strings.Contains(out.String(), "interrupted") {
					t.Errorf("%s, SIGTERM: exit %d (hung: %v), want 130\n%s", args, code, hung, out.String())
				}
				wantGroupDead(t, pid)
			}
		})
	}
}

// killedDuringCheck starts add of a bundle rigor 1.0.0 whose server never
// answers, and kills mcpship (SIGKILL, which it cannot clean up after)
// once the server runs, then the server's group.
func killedDuringCheck(t *testing.T, s addSandbox) {
	t.Helper()
	pidfile := filepath.Join(t.TempDir(), "pid")
	file := writeNamedScriptBundle(t, t.TempDir(), "rigor", "#!/bin/sh\necho $$ > "+pidfile+"\nsleep 1000\n")
	cmd, _, wait := s.startBounded(t, 60*time.Second, "add", file, "--client", "cursor", "--timeout", "1h")
	pid := readPids(t, pidfile, 1)[0]
	cmd.Process.Kill()
	wait()
	syscall.Kill(-pid, syscall.SIGKILL)
	if _, err := os.Stat(filepath.Join(s.serversDir(), "rigor", "1.0.0", "manifest.json")); err != nil {
		t.Fatalf("the add killed during its check left no folder: %v", err)
	}
}

// killedWhileUnpacking starts add of a bundle rigor 1.0.0 with a file of
// 400 MB of zeros, and kills mcpship (SIGKILL) while it unpacks.
func killedWhileUnpacking(t *testing.T, s addSandbox) {
	t.Helper()
	big := hostileZip(t, func(zw *zip.Writer) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "server/zeros", Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		zero := make([]byte, 1<<20)
		for range 400 {
			w.Write(zero)
		}
	})
	file := filepath.Join(t.TempDir(), "big.mcpb")
	if err := os.WriteFile(file, big, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, out, wait := s.startBounded(t, 60*time.Second, "add", file, "--client", "cursor")
	pattern := filepath.Join(s.serversDir(), "rigor", ".unpack-1.0.0-*", "server", "zeros")
	t.Cleanup(func() {
		if t.Failed() {
			cmd.Process.Kill()
			wait()
			t.Logf("add's output:\n%s", out.String())
		}
	})
	testutil.WaitFor(t, 30*time.Second, "add to start unpacking the big file", func() bool {
		m, _ := filepath.Glob(pattern)
		return len(m) > 0
	})
	cmd.Process.Kill()
	wait()
	if m, _ := filepath.Glob(filepath.Join(s.serversDir(), "rigor", ".unpack-*")); len(m) == 0 {
		t.Fatalf("add was killed after it had unpacked (the test needs a bigger file)\n%s", out.String())
	}
}

// TestAddCleansAfterAKill: after an add killed during its check or while
// unpacking, the next add of the server cleans what it left and
// installs, and so does any other add; remove --purge deletes it too
// rather than saying there is no such server and deleting nothing.
func TestAddCleansAfterAKill(t *testing.T) {
	good := exampleBundles(t)["rigor-1.0.0.mcpb"]
	for what, kill := range map[string]func(*testing.T, addSandbox){"during the check": killedDuringCheck, "while unpacking": killedWhileUnpacking} {
		t.Run(what+" then add", func(t *testing.T) {
			s := newAddSandbox(t, newFakeHub(t))
			kill(t, s)
			file := filepath.Join(t.TempDir(), "rigor.mcpb")
			os.WriteFile(file, good, 0o644)
			_, errOut, code := s.mcpship("add", file, "--client", "cursor")
			if code != 0 || !strings.Contains(errOut, "which an add that was stopped left") {
				t.Errorf("the next add: exit %d, want 0, saying what it cleaned\n%s", code, errOut)
			}
			wantOnly(t, filepath.Join(s.serversDir(), "rigor"), "1.0.0", "installed.json")
		})
		t.Run(what+" then another add", func(t *testing.T) {
			s := newAddSandbox(t, newFakeHub(t))
			kill(t, s)
			file := filepath.Join(t.TempDir(), "commitbrief.mcpb")
			os.WriteFile(file, exampleBundles(t)["commitbrief-1.0.0.mcpb"], 0o644)
			s.must(t, "add", file, "--client", "cursor")
			wantOnly(t, s.serversDir(), "commitbrief")
		})
		t.Run(what+" then remove --purge", func(t *testing.T) {
			s := newAddSandbox(t, newFakeHub(t))
			kill(t, s)
			out, errOut, code := s.mcpship("remove", "--name", "rigor", "--purge", "--client", "cursor")
			if code != 0 || !strings.Contains(out, "deleted "+filepath.Join(s.serversDir(), "rigor")+", which an add that was stopped left") {
				t.Errorf("remove --purge: exit %d, want 0, saying what it deleted\n%s\n%s", code, out, errOut)
			}
			wantOnly(t, s.serversDir())
		})
	}
}

// wantOnly fails t unless dir holds exactly the names given.
func wantOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}
