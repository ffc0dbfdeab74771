// Command standin plays the programs the end-to-end tests serve through
// manifests: it answers as "rigor", "commitbrief" or "standin", chosen by
// the name it is run as (argv[0]), and reports exactly what it received.
//
// Words in its arguments select behaviour: "exit64" exits 64 with a usage
// message on stderr, "findings" exits 1 (rigor's "problems found"),
// "sleep PIDFILE" starts a child and a grandchild, appends the three pids
// to PIDFILE and sleeps; "stubborn" makes the grandchild ignore SIGTERM;
// "background PIDFILE" leaves a sleeping child behind and exits at once;
// "big" prints 3 MiB; "notjson" prints plain text; "stdin" reads stdin;
// "escape PIDFILE" leaves behind a child in a new session (setsid), outside
// the process group, and exits at once; "reexec PIDFILE" does the same
// with a child that becomes a shell that execs itself over and over; "progress FILE" writes "working: step 1" to stderr and waits until FILE
// exists. "lines N" prints N numbered lines of text; "bytes N" prints N
// bytes that are not UTF-8; "steps N MS" writes "step I of N $STANDIN_SAY"
// to stderr N times, MS milliseconds apart, then prints "done"; "create
// FILE" (whole words) creates FILE, as a tool that changes something.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "__descendant" {
		descendant(args[1:])
		return
	}
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	has := func(w string) bool {
		return slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, w) })
	}
	after := func(w string) string {
		i := slices.Index(args, w)
		if i < 0 || i+1 >= len(args) {
			fail("%s needs a pid file after it", w)
		}
		return args[i+1]
	}
	out := map[string]any{"program": name, "argv": args, "env": env()}
	if wd, err := os.Getwd(); err == nil {
		out["cwd"] = wd
	}
	if i := slices.Index(args, "create"); i >= 0 && i+1 < len(args) {
		if err := os.WriteFile(args[i+1], []byte("created\n"), 0o644); err != nil {
			fail("%v", err)
		}
	}
	switch {
	case has("exit64"):
		fmt.Fprintf(os.Stderr, "%s: usage error: bad arguments %q\n", name, args)
		fmt.Println("partial stdout")
		os.Exit(64)
	case has("sleep"):
		pidfile := after("sleep")
		appendPid(pidfile)
		spawn("child", pidfile, fmt.Sprint(has("stubborn")))
		time.Sleep(time.Hour)
	case has("background"):
		pidfile := after("background")
		appendPid(pidfile)
		spawn("lingerer", pidfile, "false")
		waitPids(pidfile, 2) // exit only once the lingerer runs
	case has("escape"):
		pidfile := after("escape")
		appendPid(pidfile)
		spawnWith(newSession(), "escaper", pidfile, "false")
		waitPids(pidfile, 2)
	case has("reexec"):
		pidfile := after("reexec")
		appendPid(pidfile)
		spawnWith(newSession(), "reexecer", pidfile, "false")
		waitPids(pidfile, 2)
	case has("progress"):
		file := after("progress")
		fmt.Fprint(os.Stderr, "starting\nworking: step 1\n")
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(file); err == nil {
				break
			}
		}
	case has("big"):
		out["blob"] = strings.Repeat("x", 3<<20)
	case slices.Contains(args, "lines"): // whole words: "two\nlines" is a value
		n := number(after("lines"))
		w := bufio.NewWriter(os.Stdout)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(w, "line %d of %d: ünïcödé\n", i, n)
		}
		w.Flush()
		return
	case slices.Contains(args, "bytes"):
		b := make([]byte, number(after("bytes")))
		for i := range b {
			b[i] = byte(i*7 + i/256)
		}
		os.Stdout.Write(b)
		return
	case slices.Contains(args, "steps"):
		i := slices.Index(args, "steps")
		if i+2 >= len(args) {
			fail("steps needs a count and milliseconds after it")
		}
		n, every := number(args[i+1]), time.Duration(number(args[i+2]))*time.Millisecond
		for i := 1; i <= n; i++ {
			fmt.Fprintf(os.Stderr, "step %d of %d %s\n", i, n, os.Getenv("STANDIN_SAY"))
			time.Sleep(every)
		}
		fmt.Println("done")
		return
	case has("notjson"):
		fmt.Println("this is not JSON")
		return
	case has("stdin"):
		b, err := io.ReadAll(os.Stdin)
		out["stdin"] = string(b)
		out["stdinErr"] = fmt.Sprint(err)
	}
	switch name {
	case "commitbrief":
		out["schema_version"] = 1
		out["findings"] = []map[string]any{
			{"severity": "warning", "file": "main.go", "line": 12, "title": "error ignored"},
			{"severity": "note", "file": "README.md", "line": 3, "title": "typo"},
		}
	case "rigor":
		if len(args) > 0 && args[0] == "annotate" {
			fmt.Printf("# annotated %s\n", args[len(args)-1])
			return
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("%v", err)
	}
	if has("findings") {
		os.Exit(1)
	}
}

// descendant is a child ("child" starts a grandchild) or a lingerer.
func descendant(args []string) {
	role, pidfile, stubborn := args[0], args[1], args[2] == "true"
	if role == "grandchild" && stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	appendPid(pidfile)
	if role == "reexecer" {
		reexec()
	}
	if role == "child" {
		spawn("grandchild", pidfile, args[2])
	}
	time.Sleep(time.Hour)
}

// reexec replaces the process with a shell that execs itself over and
// over, keeping its pid and environment: it spends much of its life in
// execve (a shell, with its dynamic loader, more than a static program).
func reexec() {
	loop := `exec /bin/sh -c "$0" "$0"`
	err := execve("/bin/sh", []string{"sh", "-c", loop, loop}, os.Environ())
	fail("exec /bin/sh: %v", err)
}

func spawn(role, pidfile, stubborn string) { spawnWith(nil, role, pidfile, stubborn) }

func spawnWith(attr *syscall.SysProcAttr, role, pidfile, stubborn string) {
	exe, err := os.Executable()
	if err != nil {
		fail("%v", err)
	}
	cmd := exec.Command(exe, "__descendant", role, pidfile, stubborn)
	cmd.SysProcAttr = attr
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr // hold the pipes, as real children do
	if err := cmd.Start(); err != nil {
		fail("%v", err)
	}
}

// number reads a count given after a word.
func number(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		fail("want a number, got %q", s)
	}
	return n
}

func appendPid(file string) {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fail("%v", err)
	}
	fmt.Fprintln(f, os.Getpid())
	f.Close()
}

// waitPids waits up to 5s until file lists n pids.
func waitPids(file string, n int) {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(file); len(strings.Fields(string(b))) >= n {
			return
		}
	}
	fail("%s: %d pids did not appear", file, n)
}

func env() map[string]string {
	m := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "standin: "+format+"\n", args...)
	os.Exit(70)
}
