// Command editbench measures `mcpship init` and `mcpship remove` on large
// config files of each format against editfloor, the least a safe edit
// must do (read, back up, write a temp file, fsync, rename, fsync the
// directory), as whole processes: wall time and CPU time (user + system;
// medians of the rounds) and peak RSS (the largest of the rounds). Beside
// them, editparse: the file parsed twice by the library mcpship uses for
// the format, the least an edit and its check spend in that library. On a
// busy machine wall time stretches for CPU-bound work far more than for
// the floor's disk waits; the CPU times show the work itself.
//
//	go run ./cmd/editbench -bindir DIR [-rounds 5] [-sizes 1,10]
//	go run ./cmd/editbench -bindir DIR -peers NODE_BIN_DIR [-rounds 3]
//
// With -peers, it times instead the assistants' own CLIs (claude mcp
// add-json and remove, gemini mcp add and remove, codex mcp add and
// remove) doing the same edit as mcpship init and remove on the same file,
// in turn, round by round (bench/peers.sh).
//
// DIR holds the mcpship, editfloor and editparse binaries; bench/edit.sh
// builds them.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A config is one kind of file mcpship edits, and how to fill one to a size.
type config struct {
	label, client, format string
	gen                   func(size int) []byte
}

var configs = []config{
	{"~/.claude.json (JSON)", "claude-code", "json", claudeJSON},
	{"VS Code mcp.json (JSONC)", "vscode", "jsonc", vscodeJSONC},
	{"Codex config.toml (TOML)", "codex", "toml", codexTOML},
	{"Goose config.yaml (YAML)", "goose", "yaml", gooseYAML},
}

func main() {
	bindir := flag.String("bindir", "", "directory holding the mcpship, editfloor and editparse binaries")
	rounds := flag.Int("rounds", 5, "runs of each command; the median time is reported")
	sizes := flag.String("sizes", "1,10", "config sizes in MiB, comma-separated")
	only := flag.String("client", "", "measure only this client")
	peerdir := flag.String("peers", "", "directory of the assistants' CLIs (claude, gemini, codex): time them beside mcpship instead")
	spawnOut := flag.String("spawn", "", "run the command after -- and write what it used to this file (used by editbench itself)")
	flag.Parse()
	if *spawnOut != "" {
		spawn(*spawnOut, flag.Args())
	}
	if *bindir == "" {
		fmt.Fprintln(os.Stderr, "editbench: -bindir is required")
		os.Exit(2)
	}
	var mibs []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "editbench: bad -sizes:", err)
			os.Exit(2)
		}
		mibs = append(mibs, n)
	}
	if *peerdir != "" {
		if err := runPeers(*bindir, *peerdir, mibs, *rounds, *only); err != nil {
			fmt.Fprintln(os.Stderr, "editbench:", err)
			os.Exit(1)
		}
		return
	}
	fmt.Printf("| config | size | floor | init | init/floor | remove | remove/floor | library parse ×2 | parse/floor | CPU floor / init / remove / parse ×2 | peak RSS init | peak RSS remove |\n")
	fmt.Printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range configs {
		if *only != "" && c.client != *only {
			continue
		}
		for _, mib := range mibs {
			r, err := measure(*bindir, c, mib<<20, *rounds)
			if err != nil {
				fmt.Fprintf(os.Stderr, "editbench: %s at %d MiB: %v\n", c.client, mib, err)
				os.Exit(1)
			}
			fmt.Printf("| %s | %d MiB | %s | %s | %.1f× | %s | %.1f× | %s | %.1f× | %s / %s / %s / %s | %s (%.1f B/B) | %s (%.1f B/B) |\n",
				c.label, mib, ms(r.floor.wall), ms(r.init.wall), float64(r.init.wall)/float64(r.floor.wall),
				ms(r.remove.wall), float64(r.remove.wall)/float64(r.floor.wall),
				ms(r.parse.wall), float64(r.parse.wall)/float64(r.floor.wall),
				ms(r.floor.cpu), ms(r.init.cpu), ms(r.remove.cpu), ms(r.parse.cpu),
				mb(r.initRSS), float64(r.initRSS)/float64(r.size), mb(r.removeRSS), float64(r.removeRSS)/float64(r.size))
		}
	}
}

type result struct {
	size                       int
	floor, init, remove, parse times
	initRSS, removeRSS         int64
}

// times are a run's wall and CPU (user + system) time.
type times struct{ wall, cpu time.Duration }

func measure(bindir string, c config, size, rounds int) (result, error) {
	root, err := os.MkdirTemp("", "editbench")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(root)
	home := filepath.Join(root, "home")
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"MCPSHIP_STATE_DIR="+filepath.Join(root, "state"), "CODEX_HOME=")
	mcpship := filepath.Join(bindir, "mcpship")
	initArgs := []string{"init", "--client", c.client, "--scope", "user", "--command", mcpship}
	removeArgs := []string{"remove", "--client", c.client, "--scope", "user"}

	// Where the client's file is: ask a dry run on an empty home.
	out, _, err := run(env, root, mcpship, append(initArgs, "--dry-run", "--json")...)
	if err != nil {
		return result{}, err
	}
	var chs []struct{ File string }
	if err := json.Unmarshal(out, &chs); err != nil || len(chs) != 1 {
		return result{}, fmt.Errorf("dry run printed %q: %v", out, err)
	}
	file := chs[0].File
	body := c.gen(size)
	r := result{size: len(body)}
	var floors, inits, removes, parses []times
	for range rounds {
		if err := os.RemoveAll(filepath.Join(root, "state")); err != nil {
			return r, err
		}
		if err := writeConfig(file, body); err != nil {
			return r, err
		}
		_, u, err := run(env, root, filepath.Join(bindir, "editfloor"), file, filepath.Join(root, "floor-backup"))
		if err != nil {
			return r, err
		}
		floors = append(floors, u.times)
		_, u, err = run(env, root, filepath.Join(bindir, "editparse"), c.format, file)
		if err != nil {
			return r, err
		}
		parses = append(parses, u.times)
		_, u, err = run(env, root, mcpship, initArgs...)
		if err != nil {
			return r, err
		}
		inits, r.initRSS = append(inits, u.times), max(r.initRSS, u.rss)
		_, u, err = run(env, root, mcpship, removeArgs...)
		if err != nil {
			return r, err
		}
		removes, r.removeRSS = append(removes, u.times), max(r.removeRSS, u.rss)
		got, err := os.ReadFile(file)
		if err != nil {
			return r, err
		}
		if string(got) != string(body) {
			return r, fmt.Errorf("init then remove did not give back %s byte for byte", file)
		}
	}
	r.floor, r.init, r.remove, r.parse = median(floors), median(inits), median(removes), median(parses)
	return r, nil
}

// writeConfig writes body to the config file file, making its directory.
func writeConfig(file string, body []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	return os.WriteFile(file, body, 0o600)
}

type usage struct {
	times
	rss int64 // peak, bytes
}

// run runs name in dir and returns its standard output and what it used.
// It starts name through a fresh editbench (see spawn), because Linux
// counts the peak RSS of the process that starts a program into the
// program's own: Go starts children with vfork, so each would report at
// least editbench's peak, which holds the generated configs.
func run(env []string, dir, name string, args ...string) ([]byte, usage, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, usage{}, err
	}
	f, err := os.CreateTemp("", "editbench-usage")
	if err != nil {
		return nil, usage{}, err
	}
	f.Close()
	defer os.Remove(f.Name())
	cmd := exec.Command(self, append([]string{"-spawn", f.Name(), "--", name}, args...)...)
	cmd.Env, cmd.Dir = env, dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, usage{}, fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	var u usage
	b, err := os.ReadFile(f.Name())
	if err == nil {
		_, err = fmt.Sscan(string(b), &u.wall, &u.cpu, &u.rss)
	}
	return []byte(stdout.String()), u, err
}

// spawn runs argv with editbench's standard streams, then writes its wall
// time, CPU time and peak RSS to the file out, and exits as it did.
func spawn(out string, argv []string) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "editbench:", err)
		os.Exit(1)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss) << 10 // KiB on Linux
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if err := os.WriteFile(out, fmt.Appendf(nil, "%d %d %d\n", int64(wall), int64(cpu), rss), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "editbench:", err)
		os.Exit(1)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// median returns the median wall time and the median CPU time.
func median(ts []times) times {
	walls, cpus := make([]time.Duration, len(ts)), make([]time.Duration, len(ts))
	for i, t := range ts {
		walls[i], cpus[i] = t.wall, t.cpu
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	return times{walls[len(ts)/2], cpus[len(ts)/2]}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
func mb(n int64) string         { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// fill writes items made by item until the text reaches size bytes.
func fill(w io.Writer, n *int, size int, item func(i int) string) {
	for i := 0; *n < size; i++ {
		s := item(i)
		*n += len(s)
		io.WriteString(w, s)
	}
}

// claudeJSON is a ~/.claude.json: strict JSON, two-space indented as
// Claude Code writes it, mostly per-project history.
func claudeJSON(size int) []byte {
	var b strings.Builder
	n := 0
	b.WriteString("{\n  \"numStartups\": 42,\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"github\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"],\n      \"env\": {}\n    }\n  },\n  \"projects\": {\n")
	fill(&b, &n, size, func(i int) string {
		sep := ",\n"
		if i == 0 {
			sep = ""
		}
		return fmt.Sprintf(`%s    "/home/user/src/project-%05d": {
      "allowedTools": [],
      "history": [
        {"display": "fix the failing test in pkg/%d and explain why it failed", "pastedContents": {}},
        {"display": "run the benchmarks again with -count=5 \u00e9", "pastedContents": {}}
      ],
      "mcpServers": {},
      "hasTrustDialogAccepted": true,
      "lastCost": 0.%04d,
      "lastDuration": %d
    }`, sep, i, i, i%10000, i*37)
	})
	b.WriteString("\n  },\n  \"userID\": \"0123456789abcdef\"\n}\n")
	return []byte(b.String())
}

// vscodeJSONC is a VS Code mcp.json with comments and trailing commas.
func vscodeJSONC(size int) []byte {
	var b strings.Builder
	n := 0
	b.WriteString("// MCP servers for VS Code\n{\n  \"inputs\": [],\n  \"servers\": {\n")
	fill(&b, &n, size, func(i int) string {
		return fmt.Sprintf(`    // server %d
    "server-%05d": {
      "type": "stdio",
      "command": "npx", /* pinned */
      "args": ["-y", "@scope/server-%d@1.2.%d",],
      "env": {"TOKEN": "${input:token-%d}", "LEVEL": "debug",},
    },
`, i, i, i, i%100, i)
	})
	b.WriteString("  },\n}\n")
	return []byte(b.String())
}

// codexTOML is a Codex config.toml with many servers and profiles.
func codexTOML(size int) []byte {
	var b strings.Builder
	n := 0
	b.WriteString("# Codex\nmodel = \"o3\"\napproval_policy = \"on-request\"\n\n")
	fill(&b, &n, size, func(i int) string {
		return fmt.Sprintf(`[mcp_servers.server-%05d]
command = "npx"
args = ["-y", "@scope/server-%d@1.2.%d"]
startup_timeout_sec = 20

[mcp_servers.server-%05d.env]
TOKEN = "token-%d"
LEVEL = "debug"

[profiles.p%05d]
model = "gpt-5"
model_reasoning_effort = "high"

`, i, i, i%100, i, i, i)
	})
	return []byte(b.String())
}

// gooseYAML is a Goose config.yaml with many extensions.
func gooseYAML(size int) []byte {
	var b strings.Builder
	n := 0
	b.WriteString("GOOSE_PROVIDER: openai\nGOOSE_MODEL: gpt-4o\n# extensions\nextensions:\n")
	fill(&b, &n, size, func(i int) string {
		return fmt.Sprintf(`  ext-%05d:
    name: ext-%05d
    type: stdio
    enabled: true # on
    cmd: npx
    args:
      - -y
      - "@scope/server-%d@1.2.%d"
    envs:
      TOKEN: token-%d
    timeout: 300
`, i, i, i, i%100, i)
	})
	b.WriteString("GOOSE_MODE: smart_approve\n")
	return []byte(b.String())
}
