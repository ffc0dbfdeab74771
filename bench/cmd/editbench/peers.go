package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A peer is an assistant's own CLI, doing the edit that mcpship init and
// mcpship remove do to that assistant's user config.
type peer struct {
	label, client, format string
	file                  string   // the config, under HOME
	bin                   string   // the CLI, in the -peers directory
	add, remove           []string // its arguments
	gen                   func(size int) []byte
}

// The server both register: the same name and command.
const peerName, peerCommand = "benchpeer", "/usr/bin/true"

var peers = []peer{
	{"Claude Code (~/.claude.json)", "claude-code", "json", ".claude.json", "claude",
		[]string{"mcp", "add-json", "-s", "user", peerName, `{"type":"stdio","command":"` + peerCommand + `","args":[]}`},
		[]string{"mcp", "remove", "-s", "user", peerName}, claudeJSON},
	{"Gemini CLI (~/.gemini/settings.json)", "gemini", "json", ".gemini/settings.json", "gemini",
		[]string{"mcp", "add", "-s", "user", peerName, peerCommand},
		[]string{"mcp", "remove", "-s", "user", peerName}, geminiJSON},
	{"Codex (~/.codex/config.toml)", "codex", "toml", ".codex/config.toml", "codex",
		[]string{"mcp", "add", peerName, "--", peerCommand},
		[]string{"mcp", "remove", peerName}, codexTOML},
}

// measurePeers times, round by round in turn on the same file, the
// assistant's CLI adding and removing the server, mcpship init and remove
// doing the same, and editparse (the library's parse, twice).
func measurePeers(bindir, peerdir string, p peer, size, rounds int) (map[string]times, error) {
	root, err := os.MkdirTemp("", "peerbench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	home := filepath.Join(root, "home")
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"MCPSHIP_STATE_DIR="+filepath.Join(root, "state"), "CODEX_HOME="+filepath.Join(home, ".codex"), "CI=true")
	file := filepath.Join(home, p.file)
	body := p.gen(size)
	mcpship := filepath.Join(bindir, "mcpship")
	cmds := []struct {
		key  string
		name string
		args []string
		want bool // the server is registered after it
	}{
		{"peer add", filepath.Join(peerdir, p.bin), p.add, true},
		{"peer remove", filepath.Join(peerdir, p.bin), p.remove, false},
		{"init", mcpship, []string{"init", "--client", p.client, "--scope", "user", "--name", peerName, "--", peerCommand}, true},
		{"remove", mcpship, []string{"remove", "--client", p.client, "--scope", "user", "--name", peerName}, false},
		{"parse", filepath.Join(bindir, "editparse"), []string{p.format, file}, false},
	}
	got := map[string][]times{}
	for range rounds {
		for _, c := range cmds {
			if c.want || c.key == "parse" {
				// Each edit starts from the same file.
				if err := writeConfig(file, body); err != nil {
					return nil, err
				}
			}
			_, u, err := run(env, home, c.name, c.args...)
			if err != nil {
				return nil, err
			}
			got[c.key] = append(got[c.key], u.times)
			if c.key == "parse" {
				continue
			}
			after, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			if has := bytes.Contains(after, []byte(peerName)); has != c.want {
				return nil, fmt.Errorf("%s %s: the server is registered: %v, want %v", filepath.Base(c.name), strings.Join(c.args, " "), has, c.want)
			}
			if c.key == "remove" && !bytes.Equal(after, body) {
				return nil, fmt.Errorf("mcpship init then remove did not give back %s byte for byte", file)
			}
		}
	}
	out := map[string]times{}
	for k, ts := range got {
		out[k] = median(ts)
	}
	return out, nil
}

// runPeers prints the peer comparison as a Markdown table.
func runPeers(bindir, peerdir string, mibs []int, rounds int, only string) error {
	fmt.Printf("| assistant | size | its CLI: add / remove | mcpship init / remove | init ÷ add | remove ÷ remove | library parse ×2 | init ÷ parse | remove ÷ parse | CPU init / remove / parse ×2 | CPU init, remove ÷ parse |\n")
	fmt.Printf("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range peers {
		if only != "" && p.client != only {
			continue
		}
		for _, mib := range mibs {
			r, err := measurePeers(bindir, peerdir, p, mib<<20, rounds)
			if err != nil {
				return fmt.Errorf("%s at %d MiB: %v", p.client, mib, err)
			}
			ratio := func(a, b string) float64 { return float64(r[a].wall) / float64(r[b].wall) }
			cpu := func(a string) float64 { return float64(r[a].cpu) / float64(r["parse"].cpu) }
			fmt.Printf("| %s | %d MiB | %s / %s | %s / %s | %.2f× | %.2f× | %s | %.2f× | %.2f× | %s / %s / %s | %.2f×, %.2f× |\n", p.label, mib,
				ms(r["peer add"].wall), ms(r["peer remove"].wall), ms(r["init"].wall), ms(r["remove"].wall),
				ratio("init", "peer add"), ratio("remove", "peer remove"), ms(r["parse"].wall), ratio("init", "parse"), ratio("remove", "parse"),
				ms(r["init"].cpu), ms(r["remove"].cpu), ms(r["parse"].cpu), cpu("init"), cpu("remove"))
		}
	}
	return nil
}

// geminiJSON is a Gemini CLI settings.json: strict JSON, two-space
// indented as Gemini CLI writes it, mostly MCP servers.
func geminiJSON(size int) []byte {
	var b strings.Builder
	n := 0
	b.WriteString("{\n  \"ui\": {\n    \"theme\": \"GitHub\"\n  },\n  \"mcpServers\": {\n")
	fill(&b, &n, size, func(i int) string {
		sep := ",\n"
		if i == 0 {
			sep = ""
		}
		return fmt.Sprintf(`%s    "server-%05d": {
      "command": "npx",
      "args": ["-y", "@scope/server-%d@1.2.%d"],
      "env": {"TOKEN": "token-%d", "LEVEL": "debug"},
      "timeout": 30000
    }`, sep, i, i, i%100, i)
	})
	b.WriteString("\n  }\n}\n")
	return []byte(b.String())
}
