// Command lbdriver measures mcpship behind a load balancer: calls per
// second through haproxy, run with examples/deploy/haproxy.cfg, with 1, 2
// and 4 replicas, next to one replica reached directly, in one run: the
// same driver, every deployment started fresh each round in a rotated
// order, medians over rounds.
//
//	lbdriver -bindir DIR -haproxy PATH -config FILE [-rounds 3] [-duration 2s] [-json out.json] [-md out.md]
//
// DIR holds mcpship. Each replica is `mcpship serve --transport http` with
// a shared session key and a manifest whose echo tool runs -program, as in
// bench/cmd/httpdriver. For each deployment and era (legacy: initialize,
// then calls with the session id; modern: stateless 2026-07-28 calls) it
// runs 1, 16 and 64 clients, each making one tools/call at a time over its
// own keep-alive connections, for -duration, and reports calls per second
// and the p50 and p99 latency. bench/lb.sh builds mcpship and runs this.
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpship/mcpship/bench/internal/load"
)

type deploymentSpec struct {
	Name     string `json:"name"`
	Replicas int    `json:"replicas"`
	Balancer bool   `json:"balancer"`
}

type cell struct {
	Deployment string `json:"deployment"`
	Era        string `json:"era"`
	Clients    int    `json:"clients"`
	Round      int    `json:"round"`
	load.Result
}

type results struct {
	Started  time.Time        `json:"started"`
	Ended    time.Time        `json:"ended"`
	Commit   string           `json:"commit,omitempty"`
	CPUs     int              `json:"cpus"`
	Load     [2]string        `json:"loadavg"`
	HAProxy  string           `json:"haproxy"`
	Program  string           `json:"program"`
	Duration string           `json:"duration_per_cell"`
	Specs    []deploymentSpec `json:"deployments"`
	Cells    []cell           `json:"cells"`
}

var clientCounts = []int{1, 16, 64}

func main() {
	bindir := flag.String("bindir", "", "directory holding the mcpship binary")
	haproxy := flag.String("haproxy", "haproxy", "the haproxy binary")
	config := flag.String("config", "", "the haproxy configuration to derive the balancer's from (examples/deploy/haproxy.cfg)")
	run := load.RegisterFlags("deployment", "deployment, era, clients")
	program := flag.String("program", "/bin/echo", "the program the manifest tool runs")
	flag.Parse()
	if *bindir == "" || *config == "" {
		fmt.Fprintln(os.Stderr, "lbdriver: -bindir and -config are required")
		os.Exit(64)
	}
	example, err := os.ReadFile(*config)
	if err != nil {
		fatal(err)
	}
	dir, err := os.MkdirTemp("", "lbdriver-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	manifest := filepath.Join(dir, "echo.json")
	m := fmt.Sprintf(`{"tools":[{"name":"echo","description":"Echo the text back.","command":[%q,"{text}"],"inputs":{"text":{"required":true}}}]}`, *program)
	key := make([]byte, 32)
	rand.Read(key)
	for name, data := range map[string]string{manifest: m, filepath.Join(dir, "session-key"): hex.EncodeToString(key)} {
		if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
			fatal(err)
		}
	}
	specs := []deploymentSpec{
		{Name: "1 replica, direct", Replicas: 1},
		{Name: "haproxy, 1 replica", Replicas: 1, Balancer: true},
		{Name: "haproxy, 2 replicas", Replicas: 2, Balancer: true},
		{Name: "haproxy, 4 replicas", Replicas: 4, Balancer: true},
	}
	version, _ := exec.Command(*haproxy, "-v").Output()
	res := &results{Started: time.Now().UTC(), Commit: run.Commit, CPUs: runtime.NumCPU(), Program: *program,
		Duration: run.Duration.String(), Specs: specs, HAProxy: strings.SplitN(string(version), "\n", 2)[0]}
	res.Load[0] = load.Loadavg()
	for r := range run.Rounds {
		order := append(slices.Clone(specs[r%len(specs):]), specs[:r%len(specs)]...)
		for _, sp := range order {
			fmt.Fprintf(os.Stderr, "round %d: %s\n", r+1, sp.Name)
			d, err := deploy(sp, *bindir, *haproxy, string(example), dir, manifest)
			if err != nil {
				fmt.Fprintln(os.Stderr, "lbdriver:", err)
				continue
			}
			for _, era := range []string{"legacy", "modern"} {
				load.Run(d.url, "lbdriver", era, 4, 300*time.Millisecond) // warm up
				for _, n := range clientCounts {
					res.Cells = append(res.Cells, cell{Deployment: sp.Name, Era: era, Clients: n, Round: r + 1,
						Result: load.Run(d.url, "lbdriver", era, n, run.Duration)})
				}
			}
			d.stop()
		}
	}
	res.Load[1] = load.Loadavg()
	res.Ended = time.Now().UTC()
	if err := run.Write(res, markdown(res)); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "lbdriver:", err)
	os.Exit(1)
}

// A deployment is its replicas and, if it has one, haproxy.
type deployment struct {
	procs []*exec.Cmd
	url   string
}

func (d *deployment) stop() {
	for _, p := range d.procs {
		p.Process.Kill()
		p.Wait()
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func deploy(sp deploymentSpec, bindir, haproxy, example, dir, manifest string) (*deployment, error) {
	d := &deployment{}
	var addrs []string
	for i := range sp.Replicas {
		cmd := exec.Command(filepath.Join(bindir, "mcpship"), "serve", "--transport", "http", "--listen", "127.0.0.1:0",
			"--session-key-file", filepath.Join(dir, "session-key"), "--max-sessions", "100000", "--manifest", manifest)
		url, err := load.StartServing(cmd, 20*time.Second)
		if err != nil {
			d.stop()
			return nil, fmt.Errorf("replica %d: %w", i+1, err)
		}
		d.procs = append(d.procs, cmd)
		addrs = append(addrs, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"))
		d.url = url
	}
	if !sp.Balancer {
		return d, nil
	}
	lb, err := freeAddr()
	if err != nil {
		d.stop()
		return nil, err
	}
	cfg, err := haproxyConfig(example, lb, addrs)
	if err != nil {
		d.stop()
		return nil, err
	}
	file := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		d.stop()
		return nil, err
	}
	cmd := exec.Command(haproxy, "-db", "-f", file)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		d.stop()
		return nil, err
	}
	d.procs = append(d.procs, cmd)
	d.url = "http://" + lb + "/mcp"
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", lb); err == nil {
			c.Close()
			return d, nil
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, fmt.Errorf("haproxy does not listen on %s:\n%s", lb, out.String())
		}
	}
}

// haproxyConfig is the example with the frontend bound to lb and one
// server line per replica address, with the example's first server
// line's options, as tests/realclients (TestLoadBalancer) derives it.
func haproxyConfig(example, lb string, addrs []string) (string, error) {
	var out []string
	binds, servers := 0, 0
	for _, line := range strings.Split(example, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "bind":
			binds++
			out = append(out, "    bind "+lb)
		case len(f) >= 3 && f[0] == "server":
			servers++
			if servers > 1 {
				continue
			}
			for i, a := range addrs {
				out = append(out, "    "+strings.Join(append([]string{"server", fmt.Sprintf("mcpship%d", i+1), a}, f[3:]...), " "))
			}
		default:
			out = append(out, line)
		}
	}
	if binds != 1 || servers == 0 {
		return "", fmt.Errorf("the haproxy configuration has %d bind and %d server lines, want 1 and some", binds, servers)
	}
	return strings.Join(out, "\n"), nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// markdown reports the medians over rounds of each cell, with the ratio of
// calls per second to the direct replica's.
func markdown(res *results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# mcpship behind haproxy\n\n")
	fmt.Fprintf(&b, "- started %s, ended %s; commit %s\n", res.Started.Format(time.RFC3339), res.Ended.Format(time.RFC3339), res.Commit)
	fmt.Fprintf(&b, "- %d CPUs (the replicas, haproxy and the driver share them); load average before %q, after %q\n", res.CPUs, res.Load[0], res.Load[1])
	fmt.Fprintf(&b, "- %s; the tool runs %s; %s per cell; medians over rounds\n\n", res.HAProxy, res.Program, res.Duration)
	type key struct {
		dep, era string
		n        int
	}
	per := map[key][]cell{}
	for _, c := range res.Cells {
		k := key{c.Deployment, c.Era, c.Clients}
		per[k] = append(per[k], c)
	}
	fmt.Fprintf(&b, "| deployment | era | clients | calls/s | vs direct | p50 ms | p99 ms | errors |\n|---|---|---|---|---|---|---|---|\n")
	for _, era := range []string{"modern", "legacy"} {
		for _, n := range clientCounts {
			direct := 0.0
			for _, sp := range res.Specs {
				cs := per[key{sp.Name, era, n}]
				var rate, p50, p99 []float64
				errs := 0
				for _, c := range cs {
					rate = append(rate, c.PerSec)
					p50 = append(p50, c.P50us/1e3)
					p99 = append(p99, c.P99us/1e3)
					errs += c.Errors
				}
				r := median(rate)
				if !sp.Balancer {
					direct = r
				}
				ratio := "-"
				if sp.Balancer && direct > 0 {
					ratio = fmt.Sprintf("%.2f×", r/direct)
				}
				fmt.Fprintf(&b, "| %s | %s | %d | %.0f | %s | %.2f | %.2f | %d |\n", sp.Name, era, n, r, ratio, median(p50), median(p99), errs)
			}
		}
	}
	return b.String()
}
