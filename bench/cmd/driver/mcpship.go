package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The two measurements that only concern the mcpship binary.

type initResult struct {
	N          int     `json:"n"`
	ConfigSize int     `json:"config_bytes"`
	Servers    int     `json:"servers"`
	Med        float64 `json:"init_med_ms"`
	P90        float64 `json:"init_p90_ms"`
	CPUMed     float64 `json:"init_cpu_med_ms"`
	// VersionMed is `mcpship version` in the same environment: the cost
	// of starting the binary at all, for comparison.
	VersionMed float64 `json:"version_med_ms"`
	Err        string  `json:"err,omitempty"`
}

// bigConfig is a ~1 MiB ~/.claude.json with 1,000 servers, the same file
// as installer's BenchmarkAddLarge.
func bigConfig() []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "    \"srv%04d\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@scope/server-%d\"],\n      \"env\": {\"PAD\": %q}\n    },\n", i, i, strings.Repeat("x", 900))
	}
	b.WriteString("    \"last\": {\"command\": \"x\"}\n  }\n}\n")
	return b.Bytes()
}

// measureInit times `mcpship init --client claude-code --scope user` into
// a fresh copy of the 1 MiB config, n times, each with an empty state
// directory, so that every run adds the entry, backs the file up, writes
// it and records the registration.
func measureInit(mcpship string, n int) (r initResult) {
	cfg := bigConfig()
	r.N, r.ConfigSize, r.Servers = n, len(cfg), 1000
	dir, err := os.MkdirTemp("", "mcpship-bench-init-")
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer os.RemoveAll(dir)
	home, state := filepath.Join(dir, "home"), filepath.Join(dir, "state")
	env := append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+state, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	run := func(args ...string) (time.Duration, time.Duration, string, error) {
		cmd := exec.Command(mcpship, args...)
		cmd.Env, cmd.Dir = env, dir
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		el := time.Since(t0)
		var cpu time.Duration
		if cmd.ProcessState != nil {
			cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		return el, cpu, string(out), err
	}
	var ts, cpus, vs []float64
	for i := range n {
		os.RemoveAll(state)
		os.RemoveAll(home)
		os.MkdirAll(home, 0o755)
		if err := os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o600); err != nil {
			r.Err = err.Error()
			return r
		}
		el, cpu, out, err := run("init", "--client", "claude-code", "--scope", "user")
		if err != nil || !strings.Contains(out, "added") {
			r.Err = fmt.Sprintf("run %d: %v: %s", i, err, out)
			return r
		}
		if i == 0 {
			b, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
			if !bytes.Contains(b, []byte(`"mcpship"`)) || len(b) <= len(cfg) {
				r.Err = "the config does not have the new entry"
				return r
			}
		}
		ts, cpus = append(ts, ms(el)), append(cpus, ms(cpu))
		el, _, _, err = run("version")
		if err != nil {
			r.Err = "version: " + err.Error()
			return r
		}
		vs = append(vs, ms(el))
	}
	r.Med, r.P90, r.CPUMed, r.VersionMed = quantile(ts, .5), quantile(ts, .9), quantile(cpus, .5), quantile(vs, .5)
	return r
}

type manifestResult struct {
	Pending string  `json:"pending,omitempty"`
	N       int     `json:"n"`
	Program string  `json:"program"`
	CallMed float64 `json:"call_med_ms"`
	CallP90 float64 `json:"call_p90_ms"`
	ExecMed float64 `json:"exec_med_ms"`
	ExecP90 float64 `json:"exec_p90_ms"`
	Err     string  `json:"err,omitempty"`
}

// measureManifest compares a manifest tool call through `mcpship serve
// --manifest` with a bare fork/exec of the same program and argument,
// alternating the two, n times each.
func measureManifest(mcpship, program string, n int) (r manifestResult) {
	r.N, r.Program = n, program
	help, _ := exec.Command(mcpship, "serve", "--help").CombinedOutput()
	if !bytes.Contains(help, []byte("--manifest")) {
		r.Pending = "this mcpship has no serve --manifest (the manifest package is not merged)"
		return r
	}
	dir, err := os.MkdirTemp("", "mcpship-bench-manifest-")
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer os.RemoveAll(dir)
	manifest := filepath.Join(dir, "mcpship.json")
	m := fmt.Sprintf(`{"tools":[{"name":"say","description":"Print the text.","command":[%q,"{text}"],"output":"text","inputs":{"text":{"required":true}}}]}`, program)
	if err := os.WriteFile(manifest, []byte(m), 0o644); err != nil {
		r.Err = err.Error()
		return r
	}
	s := &server{Name: "mcpship-manifest", Path: mcpship, Args: []string{"serve", "--manifest", manifest}, Tool: "say", Echo: true}
	p, err := start(s)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer func() {
		if st := p.close(15 * time.Second); r.Err != "" {
			r.Err += fmt.Sprintf(" (exit %s; stderr: %s)", st, p.stderr)
		}
	}()
	if err := p.handshake(); err != nil {
		r.Err = err.Error()
		return r
	}
	var calls, execs []float64
	var b []byte
	for i := range n + 5 { // the first 5 of each are warm-up
		t0 := time.Now()
		out, err := exec.Command(program, fmt.Sprintf("t%d", i)).Output()
		e := ms(time.Since(t0))
		if err != nil || strings.TrimSpace(string(out)) != fmt.Sprintf("t%d", i) {
			r.Err = fmt.Sprintf("bare exec: %v: %q", err, out)
			return r
		}
		b = callLine(b[:0], s, i)
		t0 = time.Now()
		if err := p.send(b); err != nil {
			r.Err = err.Error()
			return r
		}
		line, err := p.recvTimeout(30 * time.Second)
		c := ms(time.Since(t0))
		if err != nil {
			r.Err = err.Error()
			return r
		}
		if err := checkManifestReply(line, i); err != nil {
			r.Err = err.Error()
			return r
		}
		if i >= 5 {
			calls, execs = append(calls, c), append(execs, e)
		}
	}
	r.CallMed, r.CallP90 = quantile(calls, .5), quantile(calls, .9)
	r.ExecMed, r.ExecP90 = quantile(execs, .5), quantile(execs, .9)
	return r
}

// checkManifestReply checks that the reply to call i carries the program's
// output, "t<i>" (with or without its newline).
func checkManifestReply(line []byte, i int) error {
	rep, err := parseReply(line)
	if err != nil {
		return err
	}
	want := fmt.Sprintf("t%d", i)
	if string(rep.ID) != fmt.Sprint(i) || rep.Error != nil || rep.Result == nil || rep.Result.IsError ||
		len(rep.Result.Content) == 0 || strings.TrimSpace(rep.Result.Content[0].Text) != want {
		return fmt.Errorf("manifest call %d: unexpected reply %.300q", i, line)
	}
	return nil
}
