package procgroup

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// hasLiveMember reports whether /proc lists a process of group pgid that
// is not a zombie. When /proc cannot be read it answers true.
func hasLiveMember(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and ')'.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 3 || fields[2] != strconv.Itoa(pgid) {
			continue
		}
		if fields[0] != "Z" && fields[0] != "X" {
			return true
		}
	}
	return false
}

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

var subreaper sync.Once

// groupAttr starts the command in a process group of its own, and asks
// the kernel to SIGKILL it if mcpship dies first, even by SIGKILL. It
// also makes mcpship a child subreaper (once): a process that outlives
// its parent then becomes mcpship's child instead of init's, where Sweep
// finds it.
func groupAttr() *syscall.SysProcAttr {
	subreaper.Do(func() { _, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0) })
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Sweep stops what a call left running outside its process group (such
// as a daemon that called setsid), once its group is gone: those
// processes are then orphans, children of mcpship as subreaper, and carry
// the call's marker variable (a NAME=VALUE entry) in their environment.
// Each gets SIGTERM, then SIGKILL after Grace; their own children
// become mcpship's in turn and are found in a later round. A process that
// replaced its environment is not found. Sweep also collects the exited
// orphans of group pgid, which only mcpship can wait for.
//
// A round ends the sweep only when it finds nothing to stop and nothing
// changed under it. Two races would otherwise let an orphan go (issue 20
// saw one in 10,000 calls): the list of children is read before each
// child's state, so an orphan stopped in an earlier round can become a
// zombie just after the list was read, its own child, now mcpship's,
// missing from it; and a child in the middle of execve has an empty
// environment for a moment, so its marker does not show. So a round that
// collects a zombie, or sees a child whose environment it cannot read, is
// followed by another; for the latter, up to maxUnsure rounds (a program
// run with an empty environment by another call reads empty for good).
func Sweep(pgid int, marker string) {
	defer collectGroup(pgid)
	signalled := map[int]bool{}
	sig := syscall.SIGTERM
	deadline := time.Now().Add(Grace)
	unsure := 0 // rounds that saw an environment they could not read
	for round := 0; round < 500; round++ {
		var live []int
		again, unknown := false, false
		for _, c := range children() {
			if c.state == 'Z' {
				if signalled[c.pid] {
					_, _ = syscall.Wait4(c.pid, nil, syscall.WNOHANG, nil)
					again = true
				}
				continue
			}
			switch marked, known := hasEntry(c.pid, marker); {
			case marked:
				live = append(live, c.pid)
			case !known:
				unknown = true
			}
		}
		if unknown && unsure < maxUnsure {
			unsure++
			again = true
		}
		if len(live) == 0 && !again {
			break
		}
		if time.Now().After(deadline) {
			sig = syscall.SIGKILL
		}
		for _, pid := range live {
			if !signalled[pid] || sig == syscall.SIGKILL {
				_ = syscall.Kill(pid, sig)
			}
			signalled[pid] = true
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Collect the last ones killed.
	for deadline := time.Now().Add(time.Second); len(signalled) > 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for pid := range signalled {
			if got, err := syscall.Wait4(pid, nil, syscall.WNOHANG, nil); got == pid || err != nil {
				delete(signalled, pid)
			}
		}
	}
}

// collectGroup waits for the orphans of group pgid that became mcpship's
// children and have exited or are exiting. It asks the kernel (wait4 of
// -pgid) rather than /proc, whose lists of children may miss a process
// that exits while they are read.
func collectGroup(pgid int) {
	for deadline := time.Now().Add(time.Second); ; time.Sleep(5 * time.Millisecond) {
		got, err := syscall.Wait4(-pgid, nil, syscall.WNOHANG, nil)
		switch {
		case got > 0:
			continue // collected one; there may be more
		case err != nil:
			return // ECHILD: no child of mcpship is left in the group
		case !hasLiveMember(pgid) && time.Now().Before(deadline):
			// Children of the group remain and none is alive, so they are
			// dying: wait for them to become zombies.
		default:
			return // a member still runs (reap stops those), or time is up
		}
	}
}

// child is one of mcpship's child processes.
type child struct {
	pid   int
	state byte // 'Z' for a zombie
}

// children lists the child processes of mcpship's main thread: the
// orphans reparented to mcpship as subreaper, which Sweep looks among.
// Linux gives an orphan to the subreaper's first live thread (since 3.19),
// which is the main one: a Go program never ends it. The other threads'
// children, which each list apart, are processes mcpship started itself,
// the leaders of calls; Sweep never stops those. Reading the one list
// rather than every thread's is most of what Sweep costs after a call
// that left nothing behind. On a kernel older than 4.0, or with
// allThreads set (by the benchmark), every thread's list is read.
func children() []child {
	tasks := []string{"/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children"}
	if allThreads || !orphansToMain() {
		tasks = tasks[:0]
		f, err := os.Open("/proc/self/task")
		if err == nil {
			tids, _ := f.Readdirnames(-1)
			f.Close()
			for _, tid := range tids {
				tasks = append(tasks, "/proc/self/task/"+tid+"/children")
			}
		}
	}
	var list []child
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			st, err := os.ReadFile("/proc/" + f + "/stat")
			if err != nil {
				continue
			}
			// pid (comm) state ppid pgrp ...; comm may hold spaces and ')'.
			s := string(st)
			fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
			if len(fields) < 3 {
				continue
			}
			if pid, err := strconv.Atoi(f); err == nil {
				list = append(list, child{pid: pid, state: fields[0][0]})
			}
		}
	}
	return list
}

// allThreads makes children read every thread's list, as on an old
// kernel; for the benchmark.
var allThreads bool

// orphansToMain reports whether the kernel gives the orphans it
// reparents to a subreaper's main thread: Linux 4.0 or later (the rule
// came with 3.19).
var orphansToMain = sync.OnceValue(func() bool {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return false
	}
	var rel []byte
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		rel = append(rel, byte(c))
	}
	major, _, _ := strings.Cut(string(rel), ".")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 4
})

// maxUnsure is how many rounds Sweep waits for a child whose environment
// reads empty: an execve takes far less than these 50 ms.
const maxUnsure = 5

// hasEntry reports whether the environment of process pid holds entry.
// known is false when the environment reads empty, as it does while the
// process is in execve (every process a call starts has the marker, so
// an empty one is rarely for good).
func hasEntry(pid int, entry string) (has, known bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false, true // gone, or not ours to read
	}
	if len(env) == 0 {
		return false, false
	}
	want := []byte(entry + "\x00")
	return bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...)), true
}
