package procgroup

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
)

// startOffMain runs cmd in a process group of its own, started from an
// OS thread that is not the main one, as a call's command usually is, and
// returns once it has exited.
func startOffMain(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	Set(cmd)
	done := make(chan error)
	var start func()
	start = func() {
		runtime.LockOSThread() // kept locked: the next try gets another thread
		if syscall.Gettid() == os.Getpid() {
			go start()
			return
		}
		done <- cmd.Run()
	}
	go start()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// live reports whether pid runs and is not a zombie.
func live(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// sleeping reports whether pid runs sleep.
func sleeping(pid int) bool {
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return err == nil && string(comm) == "sleep\n" && live(pid)
}

// TestSweepStopsSetsidGrandchild starts, from a thread other than the
// main one, a command that leaves a grandchild running in a session of
// its own (a daemon) and exits: Sweep finds the grandchild, which the
// kernel gave to mcpship as subreaper, by its marker, stops it and
// collects it; an unmarked process is left alone.
func TestSweepStopsSetsidGrandchild(t *testing.T) {
	const marker = "MCPSHIP_CALL=sweep-test.1"
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", `setsid sleep 1000 >/dev/null & echo $!; setsid sh -c 'unset MCPSHIP_CALL; exec sleep 1000' >/dev/null & echo $!`)
	cmd.Env = append(os.Environ(), marker)
	cmd.Stdout = &out
	startOffMain(t, cmd)
	pids := strings.Fields(out.String())
	if len(pids) != 2 {
		t.Fatalf("the command printed %q, want two pids", out.String())
	}
	marked, _ := strconv.Atoi(pids[0])
	unmarked, _ := strconv.Atoi(pids[1])
	defer syscall.Kill(unmarked, syscall.SIGKILL)
	// Wait until both run sleep: until its exec, the unmarked one still
	// has the marker of the shell it was forked from.
	testutil.WaitFor(t, 10*time.Second, "the grandchildren to start", func() bool { return sleeping(marked) && sleeping(unmarked) })
	Reap(cmd.Process.Pid)
	Sweep(cmd.Process.Pid, marker)
	if _, err := os.Stat("/proc/" + pids[0]); err == nil {
		t.Errorf("the marked grandchild %d is still there (alive %v) after Sweep", marked, live(marked))
	}
	if !live(unmarked) {
		t.Errorf("Sweep stopped %d, which has no marker", unmarked)
	}
	syscall.Kill(unmarked, syscall.SIGKILL)
	syscall.Wait4(unmarked, nil, 0, nil)
}

// BenchmarkSweep is what Reap and Sweep cost after a command that left
// nothing behind (true), with 16 more OS threads in the process, as in a
// busy serve: reading the main thread's list of children, and every
// thread's, as on a kernel older than 4.0.
func BenchmarkSweep(b *testing.B) {
	stop := make(chan struct{})
	defer close(stop)
	for range 16 {
		go func() {
			runtime.LockOSThread()
			<-stop
		}()
	}
	const marker = "MCPSHIP_CALL=sweep-bench.1"
	for _, all := range []bool{false, true} {
		name := "main-thread"
		if all {
			name = "every-thread"
		}
		b.Run(name, func(b *testing.B) {
			allThreads = all
			defer func() { allThreads = false }()
			for b.Loop() {
				b.StopTimer()
				cmd := exec.Command("true")
				cmd.Env = []string{marker}
				Set(cmd)
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				Reap(cmd.Process.Pid)
				Sweep(cmd.Process.Pid, marker)
			}
		})
	}
}
