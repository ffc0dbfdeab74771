// Command workerstandin stands in for a program that boots slowly and can
// run as a Bazel persistent worker, for the end-to-end tests of warm
// workers and for bench/. Run as "workerstandin ARGS...", it boots (it
// sleeps $STANDIN_BOOT, reads the file $STANDIN_CONFIG), runs one
// command and exits with its status. Run as "workerstandin
// --persistent_worker [--multiplex] [--cancel] [--refuse]", it boots
// once, then reads WorkRequests on stdin, as Bazel's JSON protocol
// writes them, and runs each request's arguments as the same command,
// answering with a WorkResponse: the command's stdout is "output", its
// exit status "exitCode", and its stderr goes to the worker's stderr.
// Responses are written back to back with no newline between them, as
// Bazel's own JSON workers do.
//
// It checks the protocol as it goes and exits with status 70 on a
// violation: a multiplex request without a requestId, a singleplex one
// with one, or a second request to a singleplex worker before the first
// was answered.
//
// The commands:
//
//	echo WORDS...           print the words, space-separated, and a newline
//	exit N [OUT [ERR]]      print OUT on stdout, ERR on stderr, exit N
//	repeat N TEXT           print TEXT N times
//	json WORDS...           print {"words": [...]} on stdout
//	whoami                  print the pid and how many commands this process ran
//	config                  print what $STANDIN_CONFIG held at boot
//	env NAME                print $NAME
//	sleep DURATION [FILE]   write the pid to FILE, sleep, print "slept"
//	barrier DIR N           add a file to DIR, wait until it holds N, print the pid
//	crash                   write "crashing" on stderr and exit 3 at once, worker or not
//	garbage                 a worker writes something that is not JSON on stdout
//	endless                 a worker begins a response and never ends it
//	twice DURATION WORDS... print the words; a worker answers, reads no request
//	                        for DURATION, answers the same again, and reads
//	                        none for DURATION more
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var (
	config string       // $STANDIN_CONFIG at boot
	ran    atomic.Int64 // commands run
)

func main() {
	if d, err := time.ParseDuration(os.Getenv("STANDIN_BOOT")); err == nil {
		time.Sleep(d)
	}
	if f := os.Getenv("STANDIN_CONFIG"); f != "" {
		b, _ := os.ReadFile(f)
		config = string(b)
	}
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--persistent_worker" {
		serve(args[1:])
		return
	}
	os.Exit(run(context.Background(), args, os.Stdout, os.Stderr))
}

// run runs one command and returns its exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ran.Add(1)
	if len(args) == 0 {
		fmt.Fprintln(stderr, "workerstandin: no command")
		return 64
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "echo":
		fmt.Fprintln(stdout, strings.Join(rest, " "))
	case "exit":
		n, _ := strconv.Atoi(at(rest, 0))
		fmt.Fprint(stdout, at(rest, 1))
		fmt.Fprint(stderr, at(rest, 2))
		return n
	case "repeat":
		n, _ := strconv.Atoi(at(rest, 0))
		fmt.Fprint(stdout, strings.Repeat(at(rest, 1), n))
	case "json":
		b, _ := json.Marshal(map[string]any{"words": rest})
		fmt.Fprintf(stdout, "%s\n", b)
	case "whoami":
		fmt.Fprintf(stdout, "pid=%d ran=%d\n", os.Getpid(), ran.Load())
	case "config":
		fmt.Fprint(stdout, config)
	case "env":
		fmt.Fprintln(stdout, os.Getenv(at(rest, 0)))
	case "sleep":
		d, _ := time.ParseDuration(at(rest, 0))
		if f := at(rest, 1); f != "" {
			_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return -1
		}
		fmt.Fprintln(stdout, "slept")
	case "barrier": // only N calls in flight at once get past it
		dir := at(rest, 0)
		n, _ := strconv.Atoi(at(rest, 1))
		f, err := os.CreateTemp(dir, strconv.Itoa(os.Getpid())+"-")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		f.Close()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if entries, _ := os.ReadDir(dir); len(entries) >= n {
				break
			}
			if time.Now().After(deadline) {
				fmt.Fprintln(stderr, "barrier: timed out")
				return 1
			}
		}
		fmt.Fprintf(stdout, "pid=%d\n", os.Getpid())
	case "crash":
		fmt.Fprintln(os.Stderr, "crashing")
		os.Exit(3)
	case "garbage":
		fmt.Fprint(os.Stdout, "this is not JSON\n")
	case "endless", "twice":
		fmt.Fprintln(stdout, strings.Join(rest[min(len(rest), 1):], " "))
	default:
		fmt.Fprintf(stderr, "workerstandin: unknown command %q\n", cmd)
		return 64
	}
	return 0
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

type request struct {
	Arguments []string `json:"arguments"`
	RequestID int32    `json:"requestId"`
	Cancel    bool     `json:"cancel"`
}

type response struct {
	ExitCode     int32  `json:"exitCode,omitempty"`
	Output       string `json:"output,omitempty"`
	RequestID    int32  `json:"requestId,omitempty"`
	WasCancelled bool   `json:"wasCancelled,omitempty"`
}

// serve is the persistent worker.
func serve(flags []string) {
	var multiplex, cancellable bool
	for _, f := range flags {
		switch f {
		case "--multiplex":
			multiplex = true
		case "--cancel":
			cancellable = true
		case "--refuse": // an old version that knows no worker mode
			fmt.Fprintln(os.Stderr, "workerstandin: unknown flag --persistent_worker")
			os.Exit(64)
		}
	}
	var (
		out      sync.Mutex
		mu       sync.Mutex
		inFlight = map[int32]context.CancelFunc{}
		wg       sync.WaitGroup
	)
	reply := func(r response) {
		b, _ := json.Marshal(r)
		out.Lock()
		os.Stdout.Write(b) // no newline: as Bazel's JSON workers write
		out.Unlock()
	}
	violation := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "workerstandin: protocol violation: "+format+"\n", args...)
		os.Exit(70)
	}
	dec := json.NewDecoder(os.Stdin)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if err != io.EOF {
				violation("%v", err)
			}
			break
		}
		mu.Lock()
		cancel, busy := inFlight[req.RequestID]
		switch {
		case req.Cancel:
			if busy && cancellable {
				cancel()
			}
			mu.Unlock()
			continue
		case multiplex && req.RequestID == 0:
			violation("a multiplex request without a requestId")
		case !multiplex && req.RequestID != 0:
			violation("a singleplex request with requestId %d", req.RequestID)
		case busy:
			violation("request %d sent while it is in flight", req.RequestID)
		}
		ctx, cancelReq := context.WithCancel(context.Background())
		inFlight[req.RequestID] = cancelReq
		mu.Unlock()
		wg.Add(1)
		handle := func() {
			defer wg.Done()
			var stdout bytes.Buffer
			code := run(ctx, req.Arguments, &stdout, os.Stderr)
			if len(req.Arguments) > 0 && req.Arguments[0] == "garbage" {
				out.Lock()
				os.Stdout.WriteString("this is not JSON\n")
				out.Unlock()
			}
			mu.Lock()
			delete(inFlight, req.RequestID)
			mu.Unlock()
			cancelReq()
			if ctx.Err() != nil && code == -1 {
				reply(response{RequestID: req.RequestID, WasCancelled: true})
				return
			}
			reply(response{ExitCode: int32(code), Output: stdout.String(), RequestID: req.RequestID})
		}
		switch at(req.Arguments, 0) {
		case "endless":
			out.Lock()
			os.Stdout.WriteString(`{"output": "`)
			for chunk := strings.Repeat("x", 64<<10); ; {
				if _, err := os.Stdout.WriteString(chunk); err != nil {
					os.Exit(1)
				}
			}
		case "twice":
			handle()
			d, _ := time.ParseDuration(at(req.Arguments, 1))
			time.Sleep(d)
			reply(response{Output: strings.Join(req.Arguments[min(len(req.Arguments), 2):], " ") + "\n", RequestID: req.RequestID})
			time.Sleep(d)
			continue
		}
		go handle() // reading on: cancel requests, more requests, violations

	}
	wg.Wait()
}
