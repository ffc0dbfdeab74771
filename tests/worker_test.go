//go:build linux

package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
	"github.com/mcpship/mcpship/mcp"
)

// workerManifest writes a manifest with two tools that run the same
// workerstandin command, "cold" one process per call and "warm" through
// a worker declared by worker (a JSON object), and returns its path.
// tools adds more tools, as JSON objects.
func workerManifest(t *testing.T, dir, prog, worker string, tools ...string) string {
	t.Helper()
	// The stand-in writes (pid files, barriers): it is not read-only.
	common := fmt.Sprintf(`"command": [%q, "{words}"], "inputs": {"words": {"type": "array", "required": true}}, "okExitCodes": [0, 1], "readOnly": false`, prog)
	all := append([]string{
		`{"name": "cold", "description": "the stand-in, cold", ` + common + `}`,
		`{"name": "warm", "description": "the stand-in, warm", ` + common + `, "worker": ` + worker + `}`,
	}, tools...)
	m := `{"defaults": {"env": {"STANDIN_CONFIG": "config.txt"}, "passEnv": ["STANDIN_BOOT"], "dir": "."}, "tools": [` + strings.Join(all, ",\n") + `]}`
	file := filepath.Join(dir, "mcpship.json")
	if err := os.WriteFile(file, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// whoami calls the tool's whoami and returns the pid that served it and
// how many commands that process had run.
func whoami(t *testing.T, c *mcp.Client, tool string) (pid, ran int) {
	t.Helper()
	res := callTool(t, c, tool, map[string]any{"words": []string{"whoami"}})
	if _, err := fmt.Sscanf(text(res), "pid=%d ran=%d", &pid, &ran); err != nil || res.IsError {
		t.Fatalf("whoami: %v: %s", err, text(res))
	}
	return pid, ran
}

// waitDead waits until pid is no live process.
func waitDead(t *testing.T, pid int, why string) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			wantAllDead(t, []int{pid})
		}
	})
	testutil.WaitFor(t, 15*time.Second, fmt.Sprintf("worker %d to end after %s", pid, why), func() bool {
		ok, _ := alive(pid)
		return !ok
	})
}

// keptOutputs returns the whole outputs that res links to, as
// resources/read gives them, and leaves res with each link's URI, name and
// description blanked (in its text too), which name the call rather than
// its output.
func keptOutputs(t *testing.T, c *mcp.Client, res *mcp.CallToolResult) [][]byte {
	t.Helper()
	var kept [][]byte
	for i, ct := range res.Content {
		if ct.Type != "resource_link" {
			continue
		}
		data, _ := readResource(t, c, ct.URI)
		kept = append(kept, data)
		for j := range res.Content {
			res.Content[j].Text = strings.ReplaceAll(res.Content[j].Text, ct.URI, "URI")
		}
		res.Content[i].URI, res.Content[i].Name, res.Content[i].Description = "", "", ""
	}
	return kept
}

// TestWorkerResultsMatchColdRuns calls the same commands through a worker
// and cold: the results are identical, text, exit status notes, errors
// with stderr and JSON alike, and one worker process serves every call.
func TestWorkerResultsMatchColdRuns(t *testing.T) {
	dir := t.TempDir()
	jsonCommon := `"command": ["workerstandin", "json", "{words}"], "inputs": {"words": {"type": "array"}}, "output": "json", "summary": "{{len .words}} words"`
	file := workerManifest(t, dir, "workerstandin", `{"command": ["workerstandin", "--persistent_worker"]}`,
		`{"name": "coldjson", "description": "JSON, cold", `+jsonCommon+`}`,
		`{"name": "warmjson", "description": "JSON, warm", `+jsonCommon+`, "worker": {"command": ["workerstandin", "--persistent_worker"]}}`)
	c := serve(t, "--manifest", file)
	for _, words := range [][]string{
		{"echo", "hello", "  spaced  ", "ünïcode"},
		{"exit", "0"},                                 // no output
		{"exit", "1", "issues found\n"},               // a normal exit status, noted
		{"exit", "1", "no newline"},                   // the note on a line of its own
		{"exit", "64", "partial\n", "bad argument\n"}, // an error, with stderr and stdout
		{"exit", "2", "", "only stderr\n"},            //
		{"nosuchcommand"},                             // the stand-in's own usage error
		{"env", "STANDIN_CONFIG"},                     // the same environment
		{"repeat", "300000", "four"},                  // over maxOutputBytes: cut with the same note
	} {
		args := map[string]any{"words": words}
		cold, warm := callTool(t, c, "cold", args), callTool(t, c, "warm", args)
		if !reflect.DeepEqual(keptOutputs(t, c, cold), keptOutputs(t, c, warm)) || !reflect.DeepEqual(cold, warm) {
			t.Errorf("%q: the warm result differs from the cold one:\ncold: %s\nwarm: %s", words, dump(cold), dump(warm))
		}
	}
	for _, words := range [][]string{{"a", "b"}, {}} {
		args := map[string]any{"words": words}
		cold, warm := callTool(t, c, "coldjson", args), callTool(t, c, "warmjson", args)
		if !reflect.DeepEqual(cold, warm) {
			t.Errorf("json %q: the warm result differs from the cold one:\ncold: %s\nwarm: %s", words, dump(cold), dump(warm))
		}
	}
	pid, ran := whoami(t, c, "warm")
	if ran < 10 {
		t.Errorf("the worker %d ran %d commands; the 10 warm calls before should all have gone to it", pid, ran)
	}
	if pid2, _ := whoami(t, c, "warm"); pid2 != pid {
		t.Errorf("a second worker (%d, then %d) served sequential calls", pid, pid2)
	}
	if cold1, _ := whoami(t, c, "cold"); cold1 == pid {
		t.Errorf("the cold tool ran in the worker")
	}
}

func dump(res *mcp.CallToolResult) string {
	b, _ := json.Marshal(res)
	if len(b) > 600 {
		return string(b[:300]) + "…" + string(b[len(b)-300:])
	}
	return string(b)
}

// TestWorkerPool checks when workers start: one for sequential calls, a
// second only while the first is busy, at most maxInstances; a multiplex
// worker is one process that has every call in flight at once. The
// barrier command returns only once N calls are in it together.
func TestWorkerPool(t *testing.T) {
	for _, tc := range []struct {
		name, worker string
		calls, pids  int
	}{
		{"singleplex", `{"command": ["workerstandin", "--persistent_worker"], "maxInstances": 3}`, 3, 3},
		{"multiplex", `{"command": ["workerstandin", "--persistent_worker", "--multiplex"], "multiplex": true, "maxInstances": 4}`, 4, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c := serve(t, "--manifest", workerManifest(t, dir, "workerstandin", tc.worker))
			first, _ := whoami(t, c, "warm")
			if again, _ := whoami(t, c, "warm"); again != first {
				t.Fatalf("sequential calls went to two workers, %d and %d", first, again)
			}
			barrier := t.TempDir()
			var wg sync.WaitGroup
			results := make([]*mcp.CallToolResult, tc.calls)
			for i := range results {
				wg.Go(func() {
					results[i] = callTool(t, c, "warm", map[string]any{"words": []string{"barrier", barrier, strconv.Itoa(tc.calls)}})
				})
			}
			wg.Wait()
			pids := map[string]bool{}
			for _, res := range results {
				ok(t, res)
				pids[strings.TrimSpace(text(res))] = true
			}
			if len(pids) != tc.pids {
				t.Errorf("%d calls in flight at once were served by %d worker processes %v, want %d", tc.calls, len(pids), pids, tc.pids)
			}
			if !pids[fmt.Sprintf("pid=%d", first)] {
				t.Errorf("the idle worker %d took none of the calls %v", first, pids)
			}
			if n := strings.Count(c.Stderr(), "protocol violation"); n > 0 {
				t.Errorf("the worker saw a protocol violation:\n%s", c.Stderr())
			}
		})
	}
}

// TestWorkerRestarts checks each reason a worker is replaced: a restartOn
// file changed (same size, mtime put back), its executable replaced,
// maxRequests served, idleTimeout passed. Each time the old process is
// gone and the next call sees the new state.
func TestWorkerRestarts(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(bin, "workerstandin")
	copyFile(t, filepath.Join(standinDir, "workerstandin"), prog)
	config := filepath.Join(dir, "config.txt")
	if err := os.WriteFile(config, []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// "idle" has a worker of its own: a short idleTimeout would make the
	// others flaky on a busy machine.
	file := workerManifest(t, dir, "bin/workerstandin", `{"command": ["bin/workerstandin", "--persistent_worker"], "restartOn": ["config.txt"], "maxRequests": 4}`,
		`{"name": "idle", "description": "d", "command": ["bin/workerstandin", "{words}"], "inputs": {"words": {"type": "array", "required": true}},
		  "worker": {"command": ["bin/workerstandin", "--persistent_worker"], "idleTimeout": "2s"}}`)
	c := serve(t, "--manifest", file)
	configOf := func() string {
		return strings.TrimSpace(text(callTool(t, c, "warm", map[string]any{"words": []string{"config"}})))
	}

	if got := configOf(); got != "v1" {
		t.Fatalf("config: %q, want v1", got)
	}
	pid, _ := whoami(t, c, "warm")
	// The same size, and the mtime put back: only ctime tells.
	st, _ := os.Stat(config)
	if err := os.WriteFile(config, []byte("v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(config, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := configOf(); got != "v2" {
		t.Errorf("after the restartOn file changed, config: %q, want v2", got)
	}
	waitDead(t, pid, "its restartOn file changed")

	pid, _ = whoami(t, c, "warm")
	tmp := prog + ".new"
	copyFile(t, filepath.Join(standinDir, "workerstandin"), tmp)
	if err := os.Rename(tmp, prog); err != nil { // an upgrade: a new file in its place
		t.Fatal(err)
	}
	if again, ran := whoami(t, c, "warm"); again == pid || ran != 1 {
		t.Errorf("after the executable was replaced, pid %d ran=%d answered; want a new worker, not %d", again, ran, pid)
	}
	waitDead(t, pid, "its executable was replaced")

	// maxRequests 4: the fourth request is the worker's last.
	pid, ran := whoami(t, c, "warm")
	for ran < 4 {
		var p int
		p, ran = whoami(t, c, "warm")
		if p != pid {
			t.Fatalf("the worker changed (%d, then %d) before its 4th request", pid, p)
		}
	}
	if again, ran := whoami(t, c, "warm"); again == pid || ran != 1 {
		t.Errorf("after maxRequests, pid %d ran=%d answered; want a new worker, not %d", again, ran, pid)
	}
	waitDead(t, pid, "it served maxRequests")

	// idleTimeout 2s.
	pid, _ = whoami(t, c, "idle")
	waitDead(t, pid, "its idleTimeout")
	if again, _ := whoami(t, c, "idle"); again == pid {
		t.Errorf("the idle worker %d served again", pid)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestWorkerDeath kills a worker in the middle of a call, lets one exit
// during a call, and one break the protocol: each call gets an error
// result saying so, and the next call is served by a new worker.
func TestWorkerDeath(t *testing.T) {
	dir := t.TempDir()
	c := serve(t, "--manifest", workerManifest(t, dir, "workerstandin", `{"command": ["workerstandin", "--persistent_worker"]}`))
	pid, _ := whoami(t, c, "warm")

	pidfile := filepath.Join(dir, "pid")
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := c.CallTool(context.Background(), "warm", map[string]any{"words": []string{"sleep", "60s", pidfile}})
		done <- res
	}()
	if got := readPids(t, pidfile, 1)[0]; got != pid {
		t.Fatalf("the sleep ran in %d, not in the worker %d", got, pid)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	res := <-done
	isError(t, res, fmt.Sprintf("the worker workerstandin --persistent_worker (pid %d) ended during the call", pid))
	isError(t, res, "signal: killed")
	waitDead(t, pid, "SIGKILL")
	next, _ := whoami(t, c, "warm")
	if next == pid {
		t.Fatalf("the dead worker served again")
	}

	res = callTool(t, c, "warm", map[string]any{"words": []string{"crash"}})
	isError(t, res, "exit status 3")
	isError(t, res, "crashing") // its stderr
	waitDead(t, next, "it exited")

	pid, _ = whoami(t, c, "warm")
	res = callTool(t, c, "warm", map[string]any{"words": []string{"garbage"}})
	isError(t, res, "it wrote something other than a WorkResponse on stdout")
	waitDead(t, pid, "it broke the protocol")
	if again, _ := whoami(t, c, "warm"); again == pid {
		t.Errorf("the worker that broke the protocol served again")
	}
}

// TestWorkerCancel cancels a call in a singleplex worker, which stops
// that worker's process group (its state is unknown) and starts another;
// in workers that take cancel requests, which are sent one and go on
// serving; and in a multiplex worker that does not, which goes on with
// the request and whose late answer is dropped.
func TestWorkerCancel(t *testing.T) {
	for _, tc := range []struct {
		name, worker string
		survives     bool
		sleep        string
	}{
		// One instance: the next call waits for the cancelled one to be
		// done with, rather than start a second worker meanwhile.
		{"singleplex", `{"command": ["workerstandin", "--persistent_worker"], "maxInstances": 1}`, false, "60s"},
		{"singleplex-cancellation", `{"command": ["workerstandin", "--persistent_worker", "--cancel"], "cancellation": true, "maxInstances": 1}`, true, "60s"},
		{"multiplex-cancellation", `{"command": ["workerstandin", "--persistent_worker", "--multiplex", "--cancel"], "multiplex": true, "cancellation": true}`, true, "60s"},
		{"multiplex", `{"command": ["workerstandin", "--persistent_worker", "--multiplex"], "multiplex": true}`, true, "2s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c := serve(t, "--manifest", workerManifest(t, dir, "workerstandin", tc.worker))
			pid, _ := whoami(t, c, "warm")
			pidfile := filepath.Join(dir, "pid")
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := c.CallTool(ctx, "warm", map[string]any{"words": []string{"sleep", tc.sleep, pidfile}})
				errc <- err
			}()
			readPids(t, pidfile, 1)
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool after cancel: %v", err)
			}
			if tc.survives {
				if again, _ := whoami(t, c, "warm"); again != pid {
					t.Errorf("the worker was replaced (%d, then %d)", pid, again)
				}
				if tc.sleep == "2s" { // the cancelled request's answer comes, and is dropped
					time.Sleep(3 * time.Second)
					if again, _ := whoami(t, c, "warm"); again != pid {
						t.Errorf("the worker was replaced after its late answer (%d, then %d):\n%s", pid, again, c.Stderr())
					}
				}
				return
			}
			waitDead(t, pid, "its call was cancelled")
			if again, _ := whoami(t, c, "warm"); again == pid {
				t.Errorf("the cancelled worker %d served again", pid)
			}
		})
	}
}

// TestWorkerFallsBackToColdRuns uses a program that cannot be a worker
// (it refuses --persistent_worker): calls run cold with the same results,
// and serve's log says so once.
func TestWorkerFallsBackToColdRuns(t *testing.T) {
	dir := t.TempDir()
	c := serve(t, "--manifest", workerManifest(t, dir, "workerstandin", `{"command": ["workerstandin", "--persistent_worker", "--refuse"]}`))
	pids := map[int]bool{}
	for range 3 {
		args := map[string]any{"words": []string{"exit", "1", "found\n"}}
		if cold, warm := callTool(t, c, "cold", args), callTool(t, c, "warm", args); !reflect.DeepEqual(cold, warm) {
			t.Errorf("the fallback's result differs from the cold one:\ncold: %s\nwarm: %s", dump(cold), dump(warm))
		}
		pid, ran := whoami(t, c, "warm")
		if ran != 1 {
			t.Errorf("whoami ran in a process that had run %d commands; it should run cold", ran)
		}
		pids[pid] = true
	}
	if len(pids) != 3 {
		t.Errorf("3 calls ran in %d processes", len(pids))
	}
	log := c.Stderr()
	if n := strings.Count(log, "the worker could not start"); n != 1 {
		t.Errorf("serve's log says %d times that the worker could not start, want once:\n%s", n, log)
	}
	if !regexp.MustCompile(`worker="workerstandin --persistent_worker --refuse".*exit status 64.*unknown flag --persistent_worker`).MatchString(log) {
		t.Errorf("serve's log does not say why the worker could not start:\n%s", log)
	}
}

// TestWorkersDieWithMcpship stops mcpship, gently and by SIGKILL: its
// workers do not outlive it.
func TestWorkersDieWithMcpship(t *testing.T) {
	for _, kill := range []bool{false, true} {
		dir := t.TempDir()
		cmd := exec.Command(binPath, "serve", "--manifest", workerManifest(t, dir, "workerstandin",
			`{"command": ["workerstandin", "--persistent_worker"], "maxInstances": 2}`))
		cmd.Env = append(os.Environ(), "PATH="+standinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		c, err := mcp.StartCommand(cmd, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Initialize(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
		pidfile := filepath.Join(dir, "pid")
		go func() {
			_, _ = c.CallTool(context.Background(), "warm", map[string]any{"words": []string{"sleep", "60s", pidfile}})
		}()
		busy := readPids(t, pidfile, 1)[0]
		idle, _ := whoami(t, c, "warm") // a second worker, idle after this call
		if idle == busy {
			t.Fatalf("the busy worker %d took another call", busy)
		}
		if kill {
			_ = cmd.Process.Kill()
		}
		_ = c.Close()
		for _, pid := range []int{idle, busy} {
			waitDead(t, pid, fmt.Sprintf("mcpship stopped (SIGKILL: %v)", kill))
		}
	}
}

// TestWorkerTimeout lets a call through a worker outlast its tool's
// timeout: the result is the cold run's timeout error, and the worker,
// shared with another tool of the same worker, is replaced.
func TestWorkerTimeout(t *testing.T) {
	dir := t.TempDir()
	w := `{"command": ["workerstandin", "--persistent_worker"]}`
	c := serve(t, "--manifest", workerManifest(t, dir, "workerstandin", w,
		`{"name": "brief", "description": "the stand-in, warm, 1s at most", "command": ["workerstandin", "{words}"], "inputs": {"words": {"type": "array", "required": true}}, "timeout": "1s", "readOnly": false, "worker": `+w+`}`))
	pid, _ := whoami(t, c, "warm")
	res := callTool(t, c, "brief", map[string]any{"words": []string{"sleep", "60s"}})
	isError(t, res, "workerstandin timed out after 1s and was stopped (SIGTERM to its process group, SIGKILL after 2s).")
	waitDead(t, pid, "its call timed out")
	if again, _ := whoami(t, c, "warm"); again == pid {
		t.Errorf("the worker whose call timed out served again")
	}

	// A multiplex worker goes on, and says so.
	mux := `{"command": ["workerstandin", "--persistent_worker", "--multiplex"], "multiplex": true}`
	c = serve(t, "--manifest", workerManifest(t, t.TempDir(), "workerstandin", mux,
		`{"name": "brief", "description": "the stand-in, warm, 1s at most", "command": ["workerstandin", "{words}"], "inputs": {"words": {"type": "array", "required": true}}, "timeout": "1s", "readOnly": false, "worker": `+mux+`}`))
	pid, _ = whoami(t, c, "warm")
	res = callTool(t, c, "brief", map[string]any{"words": []string{"sleep", "3s"}})
	isError(t, res, "workerstandin timed out after 1s; its multiplex worker goes on with the request, and its answer will be dropped.")
	if again, _ := whoami(t, c, "warm"); again != pid {
		t.Errorf("the multiplex worker was replaced (%d, then %d) after a call timed out", pid, again)
	}
}

// TestWorkerPoolsPerDirectoryAndEnvironment checks that workers are kept
// per working directory and per environment (an input bound to a
// variable), that a worker started for one never serves another, and
// that past ten such pools the least recently used one is stopped.
func TestWorkerPoolsPerDirectoryAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := `{"command": ["workerstandin", "--persistent_worker"]}`
	tool := func(name, sub string) string {
		return fmt.Sprintf(`{"name": %q, "description": "d", "command": ["workerstandin", "{words}"], "dir": %q, "worker": %s,
		  "inputs": {"words": {"type": "array", "required": true}, "tag": {"env": "STANDIN_TAG"}}}`, name, sub, w)
	}
	c := serve(t, "--manifest", workerManifest(t, dir, "workerstandin", w, tool("in_a", "a"), tool("in_b", "b")))
	call := func(tool, tag string) (pid int, env string) {
		t.Helper()
		res := callTool(t, c, tool, map[string]any{"words": []string{"env", "STANDIN_TAG"}, "tag": tag})
		env = strings.TrimSpace(text(res))
		res = callTool(t, c, tool, map[string]any{"words": []string{"whoami"}, "tag": tag})
		if _, err := fmt.Sscanf(text(res), "pid=%d", &pid); err != nil {
			t.Fatalf("whoami: %s", text(res))
		}
		return pid, env
	}
	a, _ := call("in_a", "x")
	if b, _ := call("in_b", "x"); b == a {
		t.Errorf("one worker (%d) served two working directories", a)
	}
	pids := map[string]int{}
	for i := range 12 {
		tag := strconv.Itoa(i)
		pid, env := call("in_a", tag)
		if env != tag {
			t.Errorf("the worker for STANDIN_TAG=%s has STANDIN_TAG=%q", tag, env)
		}
		for other, p := range pids {
			if p == pid {
				t.Errorf("the worker %d of STANDIN_TAG=%s served STANDIN_TAG=%s", pid, other, tag)
			}
		}
		pids[tag] = pid
	}
	// 14 pools were made: the 4 used least recently are gone.
	for _, tag := range []string{"0", "1"} {
		waitDead(t, pids[tag], "ten other pools were used after its own")
	}
	if again, _ := call("in_a", "11"); again != pids["11"] {
		t.Errorf("the worker of STANDIN_TAG=11 was replaced (%d, then %d)", pids["11"], again)
	}
}

// TestWorkerRestartOnFoldersAndPatterns declares a folder and a pattern
// in restartOn: a file added deep in the folder (a dotfile), a file in it
// rewritten, and a new file that the pattern matches each replace the
// worker; a file that neither names does not.
func TestWorkerRestartOnFoldersAndPatterns(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("conf/sub/rules.yml", "a: 1\n")
	c := serve(t, "--manifest", workerManifest(t, dir, "workerstandin",
		`{"command": ["workerstandin", "--persistent_worker"], "restartOn": ["conf", "*.lock"]}`))
	pid, _ := whoami(t, c, "warm")
	for _, change := range []struct{ what, name, content string }{
		{"a dotfile added deep in the folder", "conf/sub/deeper/.hidden", "x"},
		{"a file in the folder rewritten", "conf/sub/rules.yml", "a: 2\n"},
		{"a file the pattern matches created", "Gemfile.lock", "gems"},
		{"that file rewritten", "Gemfile.lock", "gems 2"},
	} {
		write(change.name, change.content)
		next, _ := whoami(t, c, "warm")
		if next == pid {
			t.Errorf("after %s, the same worker %d served", change.what, pid)
		}
		waitDead(t, pid, change.what)
		pid = next
	}
	write("notes.txt", "unrelated")
	write("conf.txt", "unrelated")
	if next, _ := whoami(t, c, "warm"); next != pid {
		t.Errorf("a file that restartOn does not name replaced the worker (%d, then %d)", pid, next)
	}
}

// TestWorkerResponseOverLimit has a worker answer with more than the
// output limit can keep, and with a response that never ends: what is
// read of a response is bounded as a process's output is, the call ends
// with an error that names the limit, and the worker is replaced.
func TestWorkerResponseOverLimit(t *testing.T) {
	dir := t.TempDir()
	file := workerManifest(t, dir, "workerstandin", `{"command": ["workerstandin", "--persistent_worker"]}`)
	c := serve(t, "--manifest", file)
	for _, words := range [][]string{{"repeat", "3000000", "x"}, {"endless"}} {
		pid, _ := whoami(t, c, "warm")
		res := callTool(t, c, "warm", map[string]any{"words": words})
		isError(t, res, fmt.Sprintf("(pid %d) ended during the call: it wrote a response of more than", pid))
		isError(t, res, "over the output limit (maxOutputBytes in "+file+")")
		waitDead(t, pid, "a response over the limit")
		if next, _ := whoami(t, c, "warm"); next == pid {
			t.Errorf("%q: the worker that wrote too much served again", words)
		}
	}
	// The same output cold is cut to the limit, as before.
	if res := callTool(t, c, "cold", map[string]any{"words": []string{"repeat", "3000000", "x"}}); res.IsError {
		t.Errorf("the cold run failed: %s", dump(res))
	}
}

// TestWorkerAnswerOutOfTurn has a singleplex worker answer one request
// twice, the second time after the next request was sent: the next call
// never gets the earlier call's answer, and the worker is replaced.
func TestWorkerAnswerOutOfTurn(t *testing.T) {
	dir := t.TempDir()
	c := serve(t, "--manifest", workerManifest(t, dir, "workerstandin", `{"command": ["workerstandin", "--persistent_worker"]}`))
	pid, _ := whoami(t, c, "warm")
	res := callTool(t, c, "warm", map[string]any{"words": []string{"twice", "1s", "first"}})
	if got := text(res); res.IsError || !strings.Contains(got, "first") {
		t.Fatalf("the first call: %s", dump(res))
	}
	res = callTool(t, c, "warm", map[string]any{"words": []string{"echo", "second"}})
	if strings.Contains(text(res), "first") {
		t.Fatalf("the next call got the earlier call's answer: %s", dump(res))
	}
	if res.IsError {
		isError(t, res, fmt.Sprintf("(pid %d) ended during the call: it answered out of turn", pid))
	} else if !strings.Contains(text(res), "second") {
		t.Fatalf("the second call: %s", dump(res))
	}
	waitDead(t, pid, "it answered out of turn")
	res = callTool(t, c, "warm", map[string]any{"words": []string{"echo", "third"}})
	if res.IsError || !strings.Contains(text(res), "third") {
		t.Errorf("the call after: %s", dump(res))
	}
}
