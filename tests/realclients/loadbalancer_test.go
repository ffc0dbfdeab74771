package realclients

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lbManifest serves two tools that name the replica that ran them: one at
// once, one after a second.
const lbManifest = `{
  "tools": [
    {"name": "replica", "description": "Name the replica that answers.", "readOnly": true,
     "command": ["sh", "-c", "printf %s \"$MCPSHIP_TEST_REPLICA\""], "passEnv": ["MCPSHIP_TEST_REPLICA"]},
    {"name": "slow", "description": "Wait a second, then name the replica that answers.", "readOnly": true,
     "command": ["sh", "-c", "sleep 1; printf %s \"$MCPSHIP_TEST_REPLICA\""], "passEnv": ["MCPSHIP_TEST_REPLICA"]}
  ]
}`

// A deployment is haproxy, run with examples/deploy/haproxy.cfg, in front
// of mcpship replicas that share a token and a session key.
type deployment struct {
	url      string // the load balancer's MCP endpoint
	token    string
	dir      string // the replicas' token, key and manifest
	replicas []*replica
}

// A replica is one "mcpship serve --transport http" of a deployment.
type replica struct {
	name, addr string
	cmd        *exec.Cmd
	exited     chan struct{}
	stderr     *bytes.Buffer
}

// haproxyBin returns haproxy's path (scripts/install-tools.sh installs it
// from Debian's packages into /usr/sbin), or skips the test.
func haproxyBin(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
		return "/usr/sbin/haproxy"
	}
	if os.Getenv("CI") == "true" && os.Getenv("MCPSHIP_DIST_TOOLS") == "require" {
		t.Fatal("haproxy is not installed: scripts/install-tools.sh installs it (MCPSHIP_DIST_TOOLS=require)")
	}
	skipLoudly(t, "haproxy is not installed: run scripts/install-tools.sh (it installs Debian's haproxy, which needs root)")
	return ""
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startDeployment starts n replicas and haproxy in front of them.
func startDeployment(t *testing.T, n int, extra ...string) *deployment {
	t.Helper()
	haproxy := haproxyBin(t)
	dir := t.TempDir()
	d := &deployment{token: randomHex(t, 16), dir: dir}
	writeFile(t, filepath.Join(dir, "token"), []byte(d.token+"\n"))
	writeFile(t, filepath.Join(dir, "session-key"), []byte(randomHex(t, 32)+"\n"))
	if err := os.Chmod(filepath.Join(dir, "session-key"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "mcpship.json"), []byte(lbManifest))
	for i := 1; i <= n; i++ {
		d.replicas = append(d.replicas, startReplica(t, fmt.Sprintf("mcpship%d", i), dir, "", extra...))
	}

	example, err := os.ReadFile(filepath.Join(repoRoot, "examples", "deploy", "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	lb := freeAddr(t)
	cfg := haproxyConfig(t, string(example), lb, d.replicas)
	cfgFile := filepath.Join(dir, "haproxy.cfg")
	writeFile(t, cfgFile, []byte(cfg))
	cmd := exec.Command(haproxy, "-db", "-f", cfgFile)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("haproxy's output:\n%s", stderr.String())
		}
	})
	if !listening(lb, exited) {
		t.Fatalf("haproxy does not listen on %s:\n%s", lb, stderr.String())
	}
	d.url = "http://" + lb + "/mcp"
	return d
}

// haproxyConfig is the example configuration with the frontend bound to
// lb and one server line per replica, in place of the example's: the
// first server line's options are kept for every replica.
func haproxyConfig(t *testing.T, example, lb string, replicas []*replica) string {
	t.Helper()
	var out []string
	binds, servers := 0, 0
	for _, line := range strings.Split(example, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 1 && (fields[0] == "global" || fields[0] == "defaults"):
			// haproxy's log of each request and check goes to its
			// output, which a failed test shows.
			out = append(out, line)
			if fields[0] == "global" {
				out = append(out, "    log stderr format raw local0")
			} else {
				out = append(out, "    log global", "    option httplog", "    option log-health-checks")
			}
		case len(fields) >= 2 && fields[0] == "bind":
			binds++
			out = append(out, "    bind "+lb)
		case len(fields) >= 3 && fields[0] == "server":
			servers++
			if servers > 1 {
				continue
			}
			for _, r := range replicas {
				out = append(out, "    "+strings.Join(append([]string{"server", r.name, r.addr}, fields[3:]...), " "))
			}
		default:
			out = append(out, line)
		}
	}
	if binds != 1 || servers < 2 {
		t.Fatalf("examples/deploy/haproxy.cfg has %d bind lines and %d server lines, want 1 and at least 2", binds, servers)
	}
	return strings.Join(out, "\n")
}

// startReplica starts a replica named name at addr, or at a free
// loopback address when addr is "".
func startReplica(t *testing.T, name, dir, addr string, extra ...string) *replica {
	t.Helper()
	return startReplicaAs(t, name, name, dir, addr, extra...)
}

// startReplicaAs is startReplica for a replica whose tools answer with
// label rather than its name.
func startReplicaAs(t *testing.T, name, label, dir, addr string, extra ...string) *replica {
	t.Helper()
	for try := 1; ; try++ {
		r := &replica{name: name, addr: addr, exited: make(chan struct{}), stderr: &bytes.Buffer{}}
		if addr == "" {
			r.addr = freeAddr(t)
		}
		args := append([]string{"serve", "--transport", "http", "--listen", r.addr,
			"--auth-token-file", filepath.Join(dir, "token"), "--session-key-file", filepath.Join(dir, "session-key"),
			"--manifest", filepath.Join(dir, "mcpship.json"), "--log-level", "info"}, extra...)
		r.cmd = exec.Command(binPath, args...)
		r.cmd.Env = append(os.Environ(), "MCPSHIP_TEST_REPLICA="+label)
		r.cmd.Stderr = r.stderr
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { r.cmd.Wait(); close(r.exited) }()
		if listening(r.addr, r.exited) {
			t.Cleanup(func() {
				r.cmd.Process.Kill()
				<-r.exited
				if t.Failed() {
					t.Logf("replica %s (mcpship %s); its stderr:\n%s", name, strings.Join(args, " "), r.stderr.String())
				}
			})
			return r
		}
		r.cmd.Process.Kill()
		<-r.exited
		if try == 3 || addr != "" {
			t.Fatalf("replica %s does not listen on %s:\n%s", name, r.addr, r.stderr.String())
		}
	}
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// bearer adds the deployment's token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect connects the official Go SDK's client to the load balancer at
// revision rev.
func (d *deployment) connect(t *testing.T, ctx context.Context, rev string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpship-realclients-lb", Version: "0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: d.url, HTTPClient: &http.Client{Transport: bearer{d.token}}}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatalf("connecting through haproxy at %s: %v", rev, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callReplica calls tool and returns the name of the replica that ran it.
func callReplica(ctx context.Context, cs *mcp.ClientSession, tool string) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil {
		return "", err
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError || !strings.HasPrefix(text, "mcpship") {
		return "", fmt.Errorf("tools/call %s: isError %v, text %q", tool, res.IsError, text)
	}
	return strings.TrimSpace(text), nil
}

// TestLoadBalancer runs haproxy with examples/deploy/haproxy.cfg in front
// of two replicas of the real binary that share a token and a session key,
// and drives it with the official Go SDK's client, in both eras.
func TestLoadBalancer(t *testing.T) {
	// Round robin spreads a client's calls over both replicas; a legacy
	// client's session, minted by one, is served by both.
	t.Run("spread", func(t *testing.T) {
		t.Parallel()
		d := startDeployment(t, 2)
		for _, rev := range []string{rev20260728, rev20251125} {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cs := d.connect(t, ctx, rev)
			if rev == rev20251125 && cs.ID() == "" {
				t.Fatalf("%s: the client has no session id", rev)
			}
			id := cs.ID()
			seen := map[string]int{}
			for range 10 {
				name, err := callReplica(ctx, cs, "replica")
				if err != nil {
					t.Fatalf("%s: %v", rev, err)
				}
				seen[name]++
			}
			if seen["mcpship1"] == 0 || seen["mcpship2"] == 0 {
				t.Errorf("%s: the calls went to %v, want both replicas", rev, seen)
			}
			if cs.ID() != id {
				t.Errorf("%s: the session id changed from %q to %q", rev, id, cs.ID())
			}
			t.Logf("%s: session %q, calls per replica %v", rev, id, seen)
		}
	})

	// A replica killed with SIGKILL while calls run: the calls it was
	// running are lost, and every call started after it died succeeds
	// on the other replica.
	t.Run("sigkill", func(t *testing.T) {
		t.Parallel()
		d := startDeployment(t, 2)
		killed := d.replicas[1]
		results := load(t, d, 4, 2*time.Second, 4*time.Second, func() {
			killed.cmd.Process.Signal(syscall.SIGKILL)
			<-killed.exited
		})
		checkLoad(t, results, killed.name, false)
	})

	// A replica stopped with SIGTERM while calls run: it finishes what it
	// was running, takes nothing new (503, which haproxy retries on the
	// other replica), and no call is lost.
	t.Run("rolling", testRollingRestart)

	t.Run("sigterm", func(t *testing.T) {
		t.Parallel()
		d := startDeployment(t, 2)
		stopped := d.replicas[1]
		results := load(t, d, 4, 2*time.Second, 4*time.Second, func() {
			stopped.cmd.Process.Signal(syscall.SIGTERM)
			// The calls that count as after the stop are those sent once
			// the replica drains: its health check says so.
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				resp, err := http.Get("http://" + stopped.addr + "/healthz")
				if err != nil {
					return // it has exited already
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusServiceUnavailable {
					return
				}
			}
			t.Errorf("replica %s: /healthz did not answer 503 within a minute of SIGTERM", stopped.name)
		})
		select {
		case <-stopped.exited:
		case <-time.After(time.Minute):
			t.Errorf("replica %s did not exit within a minute of SIGTERM", stopped.name)
		}
		if !strings.Contains(stopped.stderr.String(), "draining") {
			t.Errorf("replica %s did not say it drained:\n%s", stopped.name, stopped.stderr.String())
		}
		checkLoad(t, results, stopped.name, true)
	})
}

// A result is one call of load.
type result struct {
	tool         string
	start, end   time.Time
	replica      string
	err          error
	afterTrigger bool // started after the trigger had returned
}

// load runs workers clients, modern and legacy in turn, each calling
// "replica" and "slow" in turn, for warm, then runs trigger, then goes on
// for after; it returns every call's result.
func load(t *testing.T, d *deployment, workers int, warm, after time.Duration, trigger func()) []result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var (
		mu       sync.Mutex
		results  []result
		wg       sync.WaitGroup
		triggerd = make(chan struct{})
		stop     = make(chan struct{})
	)
	for w := range workers {
		rev := rev20260728
		if w%2 == 1 {
			rev = rev20251125
		}
		cs := d.connect(t, ctx, rev)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tool := "replica"
				if (i+w)%2 == 1 {
					tool = "slow"
				}
				var after bool
				select {
				case <-triggerd:
					after = true
				default:
				}
				r := result{tool: tool + " (" + rev + ")", start: time.Now(), afterTrigger: after}
				r.replica, r.err = callReplica(ctx, cs, tool)
				r.end = time.Now()
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(warm)
	trigger()
	close(triggerd)
	time.Sleep(after)
	close(stop)
	wg.Wait()
	return results
}

// checkLoad checks load's results: every call started after the trigger
// succeeded; those that failed before it were running on the replica the
// trigger stopped (allowed only if none may be lost); and both replicas
// served calls before the trigger, only the other one after it.
func checkLoad(t *testing.T, results []result, gone string, noneLost bool) {
	t.Helper()
	var before, after, failed, lost int
	servedBefore := map[string]int{}
	for _, r := range results {
		switch {
		case r.afterTrigger && r.err != nil:
			lost++
			t.Errorf("%s, started %v after the replica was stopped, failed: %v", r.tool, r.start.Format("15:04:05.000"), r.err)
		case r.afterTrigger:
			after++
			if gone != "" && r.replica == gone {
				t.Errorf("%s, started after %s was stopped, was answered by it", r.tool, gone)
			}
		case r.err != nil:
			failed++
			if noneLost {
				t.Errorf("%s, started %s, failed at %s, while replicas were stopped: %v",
					r.tool, r.start.Format("15:04:05.000"), r.end.Format("15:04:05.000"), r.err)
			}
		default:
			before++
			servedBefore[r.replica]++
		}
	}
	t.Logf("calls: %d before the replica was stopped (per replica %v), %d running then that failed, %d after (%d of them failed)",
		before, servedBefore, failed, after, lost)
	if after == 0 || len(servedBefore) < 2 {
		t.Errorf("the load did not run across the stop: %d calls after it, replicas before it %v", after, servedBefore)
	}
}
