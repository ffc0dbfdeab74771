package realclients

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The AI assistants below cannot call a tool without a model, so these tests
// register mcpship the way "mcpship init" will and run each assistant's own
// offline health check, which starts the server and handshakes with it.
//
// Each configuration holds three servers:
//   - "mcpship": the real binary, exactly as init writes it; it must be
//     reported connected;
//   - "mcpship_wire": the same through the recording relay, to check which
//     revision the assistant speaks and that no request of its got an error;
//   - "mcpship_broken": a command line that exits at once; it must be
//     reported as not connected, which shows the check can fail.

const (
	regName   = "mcpship"
	wireName  = "mcpship_wire"
	brokenReg = "mcpship_broken"
)

// registration is one server entry of an assistant's configuration.
type registration struct {
	name    string
	command string
	args    []string
}

// registrations returns the three entries for srv, the relay logging to
// wireLog.
func registrations(srv server, wireLog string) []registration {
	wireCmd, wireArgs := recordCommand(wireLog, srv.args())
	return []registration{
		{regName, binPath, srv.args()},
		{wireName, wireCmd, wireArgs},
		// serve refuses an unknown transport and exits 64 before speaking.
		{brokenReg, binPath, append(srv.args(), "--transport", "no-such-transport")},
	}
}

// mcpServersFile is the {"mcpServers": {...}} document that Claude Code
// (.mcp.json) and Gemini CLI (.gemini/settings.json) read.
func mcpServersFile(regs []registration) map[string]any {
	servers := map[string]any{}
	for _, r := range regs {
		servers[r.name] = map[string]any{"command": r.command, "args": r.args}
	}
	return map[string]any{"mcpServers": servers}
}

// statusLine returns the line of out that reports the server name, found
// by marker+name+": ".
func statusLine(t *testing.T, out, marker, name string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), marker) && strings.Contains(line, name+": ") {
			rest := strings.TrimSpace(line)
			rest = strings.TrimSpace(strings.TrimPrefix(rest, marker))
			if strings.HasPrefix(rest, name+": ") {
				return line
			}
		}
	}
	t.Fatalf("no status line for %s in the output:\n%s", name, out)
	return ""
}

// TestClaudeCode registers mcpship in a project's .mcp.json and runs
// "claude mcp list" and "claude mcp get", which connect to every server.
func TestClaudeCode(t *testing.T) {
	claude := nodeBin(t, "claude")
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			home, proj := t.TempDir(), t.TempDir()
			wireLog := filepath.Join(home, "wire.log")
			writeJSON(t, filepath.Join(proj, ".mcp.json"), mcpServersFile(registrations(srv, wireLog)))
			// Project servers need approval; this is the one way to give it
			// without a prompt that research found (see real-clients.md). The
			// telemetry opt-out keeps Claude Code off the network.
			env := []string{"HOME=" + home, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "MCP_TIMEOUT=20000"}
			approve := []string{"--settings", `{"enableAllProjectMcpServers":true}`}

			r := runTool(t, 90*time.Second, proj, env, claude, append(approve, "mcp", "list")...)
			if r.code != 0 {
				t.Fatalf("claude mcp list: want exit 0\n%s", r)
			}
			line := statusLine(t, r.stdout, "", regName)
			if !strings.Contains(line, "✔ Connected") || !strings.Contains(line, binPath+" serve") {
				t.Errorf("claude mcp list: want %q reported \"✔ Connected\" with its command line, got %q\n%s", regName, line, r)
			}
			if line := statusLine(t, r.stdout, "", brokenReg); !strings.Contains(line, "✘ Failed to connect") {
				t.Errorf("claude mcp list: want the broken server \"✘ Failed to connect\", got %q", line)
			}
			if line := statusLine(t, r.stdout, "", wireName); !strings.Contains(line, "✔ Connected") {
				t.Errorf("claude mcp list: the relayed server is not connected: %q\n%s", line, r)
			}
			// Claude Code speaks 2026-07-28 through server/discover, then lists tools.
			checkTranscript(t, readTranscript(t, wireLog), []string{rev20260728}, "server/discover", "tools/list")

			r = runTool(t, 90*time.Second, proj, env, claude, append(approve, "mcp", "get", regName)...)
			if r.code != 0 || !strings.Contains(r.stdout, "Status: ✔ Connected") || !strings.Contains(r.stdout, "Command: "+binPath) {
				t.Errorf("claude mcp get %s: want exit 0, \"Status: ✔ Connected\" and the command\n%s", regName, r)
			}

			t.Run("inspector-reads-mcp.json", func(t *testing.T) {
				inspectRegistration(t, filepath.Join(proj, ".mcp.json"), srv)
			})
		})
	}
}

// TestGeminiCLI registers mcpship in a project's .gemini/settings.json and
// runs "gemini mcp list", which connects to every server.
func TestGeminiCLI(t *testing.T) {
	gemini := nodeBin(t, "gemini")
	needNode(t)
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			home, proj := t.TempDir(), t.TempDir()
			wireLog := filepath.Join(home, "wire.log")
			settings := filepath.Join(proj, ".gemini", "settings.json")
			writeJSON(t, settings, mcpServersFile(registrations(srv, wireLog)))
			// An untrusted folder's servers are listed as disabled and never
			// started; the variable trusts it without a prompt.
			env := []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}
			r := runTool(t, 90*time.Second, proj, env, gemini, "mcp", "list")
			if r.code != 0 {
				t.Fatalf("gemini mcp list: want exit 0\n%s", r)
			}
			out := r.stdout + r.stderr // the list goes to stderr
			line := statusLine(t, out, "✓", regName)
			if !strings.HasSuffix(strings.TrimSpace(line), "- Connected") || !strings.Contains(line, binPath+" serve") {
				t.Errorf("gemini mcp list: want %q reported \"- Connected\" with its command line, got %q\n%s", regName, line, r)
			}
			if line := statusLine(t, out, "✗", brokenReg); !strings.Contains(line, "Disconnected") {
				t.Errorf("gemini mcp list: want the broken server Disconnected, got %q", line)
			}
			statusLine(t, out, "✓", wireName)
			// Gemini CLI speaks 2025-06-18 and pings; it does not list tools.
			checkTranscript(t, readTranscript(t, wireLog), []string{rev20250618}, "initialize", "notifications/initialized", "ping")

			t.Run("inspector-reads-settings.json", func(t *testing.T) {
				inspectRegistration(t, settings, srv)
			})
		})
	}
}

// TestCodex registers mcpship in $CODEX_HOME/config.toml. "codex mcp list"
// only reads the file; "codex debug prompt-input" renders the model's
// prompt offline and starts the servers to do so: with required = true, a
// server that fails to start makes it exit 1, and a connected server's
// tools show up as the namespace mcp__NAME.
func TestCodex(t *testing.T) {
	codex := nodeBin(t, "codex")
	needNode(t)
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			home, proj := t.TempDir(), t.TempDir()
			codexHome := filepath.Join(home, ".codex")
			wireLog := filepath.Join(home, "wire.log")
			var toml strings.Builder
			for _, r := range registrations(srv, wireLog) {
				fmt.Fprintf(&toml, "[mcp_servers.%s]\ncommand = %s\nargs = [", strconv.Quote(r.name), strconv.Quote(r.command))
				for i, a := range r.args {
					if i > 0 {
						toml.WriteString(", ")
					}
					toml.WriteString(strconv.Quote(a))
				}
				toml.WriteString("]\n\n")
			}
			writeFile(t, filepath.Join(codexHome, "config.toml"), []byte(toml.String()))
			env := []string{"HOME=" + home, "CODEX_HOME=" + codexHome}

			r := runTool(t, 60*time.Second, proj, env, codex, "mcp", "list", "--json")
			if r.code != 0 || !strings.Contains(r.stdout, `"name": "`+regName+`"`) || !strings.Contains(r.stdout, strconv.Quote(binPath)) {
				t.Fatalf("codex mcp list --json: want exit 0 and %s with its command\n%s", regName, r)
			}

			required := []string{"-c", "mcp_servers." + regName + ".required=true", "-c", "mcp_servers." + wireName + ".required=true"}
			r = runTool(t, 90*time.Second, proj, env, codex, append(required, "debug", "prompt-input")...)
			if r.code != 0 {
				t.Fatalf("codex debug prompt-input with %s required: want exit 0 (exit 1 means a required server failed to start)\n%s", regName, r)
			}
			for _, ns := range []string{regName, wireName} {
				if !strings.Contains(r.stdout, `- mcp__`+ns+`\n`) {
					t.Errorf("codex debug prompt-input: the tool namespace mcp__%s is missing, so Codex did not connect\n%s", ns, r)
				}
			}
			if strings.Contains(r.stdout, "mcp__"+brokenReg) {
				t.Errorf("codex debug prompt-input: the broken server has tools\n%s", r)
			}
			// Codex speaks 2025-06-18 and lists tools.
			checkTranscript(t, readTranscript(t, wireLog), []string{rev20250618}, "initialize", "notifications/initialized", "tools/list")

			// And the check can fail: the broken server, required, stops Codex.
			r = runTool(t, 90*time.Second, proj, env, codex, "-c", "mcp_servers."+brokenReg+".required=true", "debug", "prompt-input")
			if r.code == 0 || !strings.Contains(r.stderr, brokenReg) {
				t.Errorf("codex debug prompt-input with %s required: want a failure naming it\n%s", brokenReg, r)
			}
		})
	}
}

// inspectRegistration calls every known tool of srv through the MCP
// Inspector reading the registration file path: the file works for a
// client that does call tools.
func inspectRegistration(t *testing.T, path string, srv server) {
	t.Helper()
	inspector := nodeBin(t, "mcp-inspector")
	home := t.TempDir()
	for _, c := range srv.calls {
		if !strings.HasPrefix(c.args, "{") && c.args != "" || !slices.Contains(srv.tools, c.tool) {
			continue
		}
		args := []string{"--cli", "--config", path, "--server", regName, "--format", "json", "-q", "--method", "tools/call", "--tool-name", c.tool}
		if c.args != "" {
			args = append(args, "--tool-args-json", c.args)
		}
		r := runTool(t, 60*time.Second, home, []string{"HOME=" + home}, inspector, args...)
		if r.code != 0 {
			t.Fatalf("inspector --config %s --server %s: want exit 0\n%s", path, regName, r)
		}
		c.check(t, inspectorOutcome(t, r))
	}
}
