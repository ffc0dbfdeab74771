//go:build linux

package tests

import (
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
)

// writeScriptBundle writes a bundle "probe" 1.0.0 whose binary server is
// the shell script given, to dir, and returns its path.
func writeScriptBundle(t *testing.T, dir, script string) string {
	t.Helper()
	m := &mcpb.Manifest{ManifestVersion: mcpb.ManifestVersion, Name: "probe", Version: "1.0.0", Description: "d", Author: mcpb.Author{Name: "a"},
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
