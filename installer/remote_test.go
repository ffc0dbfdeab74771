package installer

import (
	"maps"
	"os"
	"strings"
	"testing"
)

var remote = Entry{Name: "weather", URL: "https://weather.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${WEATHER_TOKEN}"}}

// TestRemoteEntries writes a remote server in each client that takes
// one, reads it back, and takes it out again.
func TestRemoteEntries(t *testing.T) {
	for client, want := range map[string]string{
		"claude-code": `"weather": {
      "type": "http",
      "url": "https://weather.example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${WEATHER_TOKEN}"
      }
    }`,
		"vscode": `"type": "http",`,
		"cursor": `"weather": {
      "url": "https://weather.example.com/mcp",`,
		"gemini":   `"httpUrl": "https://weather.example.com/mcp",`,
		"windsurf": `"serverUrl": "https://weather.example.com/mcp",`,
		"codex": `[mcp_servers.weather]
url = "https://weather.example.com/mcp"
http_headers = { Authorization = "Bearer ${WEATHER_TOKEN}" }`,
	} {
		t.Run(client, func(t *testing.T) {
			tg, o := testTarget(t, client, ScopeUser)
			ch, err := tg.Add(remote, o)
			if err != nil || ch.Action != "added" {
				t.Fatalf("Add: %+v, %v", ch, err)
			}
			if got := read(t, tg.File); !strings.Contains(got, want) {
				t.Errorf("the file:\n%s\nwant it to hold:\n%s", got, want)
			}
			regs, _, err := tg.Servers(o.StateDir)
			if err != nil || len(regs) != 1 || regs[0].URL != remote.URL || !maps.Equal(regs[0].Headers, remote.Headers) || !regs[0].Recorded {
				t.Fatalf("Servers: %+v, %v", regs, err)
			}
			if why := regs[0].NotStdio(); why != "a remote server at "+remote.URL {
				t.Errorf("NotStdio: %q", why)
			}
			if ch, err := tg.Add(remote, o); err != nil || ch.Action != "unchanged" {
				t.Errorf("Add again: %+v, %v", ch, err)
			}
			moved := remote
			moved.URL = "https://weather.example.com/v2/mcp"
			if _, err := tg.Add(moved, o); err == nil {
				t.Error("Add of another URL under the same name: no conflict")
			}
			if _, err := tg.Remove("weather", o); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tg.File); err == nil && strings.Contains(read(t, tg.File), "weather") {
				t.Errorf("after Remove:\n%s", read(t, tg.File))
			}
		})
	}
}

func TestRemoteRefused(t *testing.T) {
	tg, o := testTarget(t, "zed", ScopeUser)
	if _, err := tg.Add(remote, o); err == nil || !strings.Contains(err.Error(), "mcpship does not know how Zed reads remote servers from its config file") {
		t.Errorf("zed: %v", err)
	}
	tg, o = testTarget(t, "codex", ScopeUser)
	sse := remote
	sse.Type = "sse"
	if _, err := tg.Add(sse, o); err == nil || !strings.Contains(err.Error(), "remote SSE servers") {
		t.Errorf("codex, SSE: %v", err)
	}
	for _, u := range []string{"ftp://x/y", "weather.example.com", "", "http://weather.example.com/mcp", "http://127.0.0.1.evil.example/mcp", "http://[::2]:80/"} {
		bad := remote
		bad.URL = u
		if _, err := tg.Add(bad, o); err == nil {
			t.Errorf("URL %q: no error", u)
		}
	}
	for _, u := range []string{"http://127.0.0.1:8080/mcp", "http://localhost/mcp", "http://[::1]:9/mcp"} {
		ok := remote
		ok.Name = "weather-" + strings.NewReplacer(":", "", "/", "", "[", "", "]", "", ".", "").Replace(u)
		ok.URL = u
		if _, err := tg.Add(ok, o); err != nil {
			t.Errorf("URL %q: %v", u, err)
		}
	}
}
