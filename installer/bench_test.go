package installer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigConfig is a ~1 MiB ~/.claude.json-like file with 1,000 servers.
func bigConfig() string {
	var b strings.Builder
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "    \"srv%04d\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@scope/server-%d\"],\n      \"env\": {\"PAD\": %q}\n    },\n", i, i, strings.Repeat("x", 900))
	}
	b.WriteString("    \"last\": {\"command\": \"x\"}\n  }\n}\n")
	return b.String()
}

// BenchmarkAddLarge measures an add into the big config, without I/O.
func BenchmarkAddLarge(b *testing.B) {
	tg := &Target{Assistant: clients[1], Scope: ScopeUser, File: "big.json", Container: []string{"mcpServers"}}
	body := []byte(bigConfig())
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		d, err := tg.Assistant.format.parse(tg.File, body)
		if err != nil {
			b.Fatal(err)
		}
		e := tg.Assistant.shape(srv)
		out, _, err := d.set(tg.Container, "mcpship", e)
		if err != nil {
			b.Fatal(err)
		}
		if err := tg.verify(d, plan{out: out, entry: plain(e)}, "mcpship"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInitLarge measures Target.Add into the big config as a file,
// the way `mcpship init` runs it: lock, read, parse, plan, verify, back
// up, write atomically (with its fsyncs) and record. Each iteration
// starts from a fresh copy of the file and an empty state directory.
func BenchmarkInitLarge(b *testing.B) {
	root := b.TempDir()
	env := fakeEnv("linux", filepath.Join(root, "proj"), map[string]string{"HOME": filepath.Join(root, "home")})
	cl, err := LookupAssistant("claude-code")
	if err != nil {
		b.Fatal(err)
	}
	tg, err := cl.Target(env, ScopeUser)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(bigConfig())
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		b.StopTimer()
		state := filepath.Join(root, "state")
		if err := os.RemoveAll(state); err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(tg.File), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(tg.File, body, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		ch, err := tg.Add(srv, Options{StateDir: state})
		if err != nil || ch.Action != "added" {
			b.Fatal(ch, err)
		}
	}
}

// genTOML is a Codex config.toml of about size bytes.
func genTOML(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "[mcp_servers.server-%05d]\ncommand = \"npx\"\nargs = [\"-y\", \"@scope/server-%d@1.2.%d\"]\nstartup_timeout_sec = 20\n\n[mcp_servers.server-%05d.env]\nTOKEN = \"token-%d\"\nLEVEL = \"debug\"\n\n[profiles.p%05d]\nmodel = \"gpt-5\"\n\n", i, i, i%100, i, i, i)
	}
	return []byte(b.String())
}

// genYAML is a Goose config.yaml of about size bytes.
func genYAML(size int) []byte {
	var b strings.Builder
	b.WriteString("extensions:\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "  ext-%05d:\n    name: ext-%05d\n    type: stdio\n    enabled: true # on\n    cmd: npx\n    args:\n      - -y\n      - \"@scope/server-%d@1.2.%d\"\n    envs:\n      TOKEN: token-%d\n    timeout: 300\n", i, i, i, i%100, i)
	}
	return []byte(b.String())
}

// benchEdit measures an add into body for client, without I/O: parse,
// plan, verify.
func benchEdit(b *testing.B, client string, body []byte) {
	cl, _ := LookupAssistant(client)
	tg := &Target{Assistant: cl, Scope: ScopeUser, File: "f", Container: []string{cl.key}}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		d, err := cl.format.parse("f", body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := lookup(d, tg.Container, "mcpship"); err != nil {
			b.Fatal(err)
		}
		e := cl.shape(srv)
		out, _, err := d.set(tg.Container, "mcpship", e)
		if err != nil {
			b.Fatal(err)
		}
		if err := tg.verify(d, plan{out: out, entry: plain(e)}, "mcpship"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEditTOML(b *testing.B) { benchEdit(b, "codex", genTOML(1<<20)) }
func BenchmarkEditYAML(b *testing.B) { benchEdit(b, "goose", genYAML(1<<20)) }
func BenchmarkEditJSON(b *testing.B) { benchEdit(b, "claude-code", []byte(bigConfig())) }

// genClaudeJSON is a ~/.claude.json of about size bytes, as
// bench/cmd/editbench makes it: strict JSON, mostly per-project history.
func genClaudeJSON(size int) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"numStartups\": 42,\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"github\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"],\n      \"env\": {}\n    }\n  },\n  \"projects\": {\n")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `    "/home/user/src/project-%05d": {
      "allowedTools": [],
      "history": [
        {"display": "fix the failing test in pkg/%d and explain why it failed", "pastedContents": {}},
        {"display": "run the benchmarks again with -count=5 \u00e9", "pastedContents": {}}
      ],
      "mcpServers": {},
      "hasTrustDialogAccepted": true,
      "lastCost": 0.%04d,
      "lastDuration": %d
    }`, i, i, i%10000, i*37)
	}
	b.WriteString("\n  },\n  \"userID\": \"0123456789abcdef\"\n}\n")
	return []byte(b.String())
}

// genVSCodeJSONC is a VS Code mcp.json of about size bytes, with comments
// and trailing commas, as bench/cmd/editbench makes it.
func genVSCodeJSONC(size int) []byte {
	var b strings.Builder
	b.WriteString("// MCP servers for VS Code\n{\n  \"inputs\": [],\n  \"servers\": {\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `    // server %d
    "server-%05d": {
      "type": "stdio",
      "command": "npx", /* pinned */
      "args": ["-y", "@scope/server-%d@1.2.%d",],
      "env": {"TOKEN": "${input:token-%d}", "LEVEL": "debug",},
    },
`, i, i, i, i%100, i)
	}
	b.WriteString("  },\n}\n")
	return []byte(b.String())
}

// BenchmarkFileEdit measures Target.Add, then Target.Remove, on a 1 MiB
// file of each format as `mcpship init` and `mcpship remove` run them:
// lock, read, parse, plan, verify, diff, back up, write atomically and
// record. Remove gives back the file as it was.
func BenchmarkFileEdit(b *testing.B) {
	for _, c := range []struct {
		name, client string
		body         []byte
	}{
		{"JSON", "claude-code", genClaudeJSON(1 << 20)},
		{"JSONC", "vscode", genVSCodeJSONC(1 << 20)},
		{"TOML", "codex", genTOML(1 << 20)},
		{"YAML", "goose", genYAML(1 << 20)},
	} {
		root := b.TempDir()
		env := fakeEnv("linux", filepath.Join(root, "proj"), map[string]string{"HOME": filepath.Join(root, "home")})
		cl, err := LookupAssistant(c.client)
		if err != nil {
			b.Fatal(err)
		}
		tg, err := cl.Target(env, ScopeUser)
		if err != nil {
			b.Fatal(err)
		}
		state := filepath.Join(root, "state")
		fresh := func(b *testing.B) {
			b.StopTimer()
			defer b.StartTimer()
			if err := os.RemoveAll(state); err != nil {
				b.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(tg.File), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(tg.File, c.body, 0o600); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(c.name+"/init", func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				fresh(b)
				if ch, err := tg.Add(srv, Options{StateDir: state}); err != nil || ch.Action != "added" {
					b.Fatal(ch, err)
				}
			}
		})
		b.Run(c.name+"/remove", func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				fresh(b)
				b.StopTimer()
				if _, err := tg.Add(srv, Options{StateDir: state}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if ch, err := tg.Remove(srv.Name, Options{StateDir: state}); err != nil || ch.Action != "removed" {
					b.Fatal(ch, err)
				}
			}
		})
	}
}
