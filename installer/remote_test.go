package installer

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// A remote case is one file of testdata/remote: a client's config file
// before and after mcpship writes a remote server in it. The archive's
// comment holds "key: value" lines:
//
//	client: the client's name
//	scope: the scope (default user)
//	entry: the Entry to add, as JSON
//
// and its files:
//
//	in: the config file before (absent: no file)
//	want: the file after adding the entry
//	error: adding is refused with a *RemoteError saying this
//
// Each written case is then read back (the URL, headers and token
// variable as given), added again (unchanged), and removed again, which
// gives back in.
func TestRemoteCases(t *testing.T) {
	files, err := filepath.Glob("testdata/remote/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			a, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			hdr := map[string]string{"scope": "user"}
			for _, line := range strings.Split(strings.TrimSpace(string(a.Comment)), "\n") {
				k, v, _ := strings.Cut(line, ":")
				hdr[k] = strings.TrimSpace(v)
			}
			var e Entry
			if err := json.Unmarshal([]byte(hdr["entry"]), &e); err != nil {
				t.Fatalf("entry: %v", err)
			}
			seen[hdr["client"]] = true
			parts := map[string]string{}
			for _, af := range a.Files {
				parts[af.Name] = string(af.Data)
			}
			tg, o := testTarget(t, hdr["client"], Scope(hdr["scope"]))
			in, hasIn := parts["in"]
			if hasIn {
				write(t, tg.File, in, 0o600)
			}
			ch, err := tg.Add(e, o)
			if want, ok := parts["error"]; ok {
				var re *RemoteError
				if !errors.As(err, &re) || re.Client != hdr["client"] || !strings.Contains(err.Error(), strings.TrimSpace(want)) {
					t.Fatalf("Add: %v, want a RemoteError saying %q", err, strings.TrimSpace(want))
				}
				if _, err := os.Stat(tg.File); hasIn && read(t, tg.File) != in || !hasIn && err == nil {
					t.Error("a refused add changed the file")
				}
				return
			}
			if err != nil || ch.Action != "added" {
				t.Fatalf("Add: %+v, %v", ch, err)
			}
			if got := read(t, tg.File); got != parts["want"] {
				t.Fatalf("after adding:\n%s\nwant:\n%s", got, parts["want"])
			}
			regs, _, err := tg.Servers(o.StateDir)
			if err != nil {
				t.Fatal(err)
			}
			var got *Registration
			for i := range regs {
				if regs[i].Name == e.Name {
					got = &regs[i]
				}
			}
			if got == nil || got.URL != e.URL || !got.Recorded || got.Command != "" {
				t.Fatalf("Servers: %+v", regs)
			}
			wantHeaders := maps.Clone(e.Headers)
			if e.TokenEnv != "" && got.TokenEnv == "" {
				if wantHeaders == nil {
					wantHeaders = map[string]string{}
				}
				wantHeaders["Authorization"] = "Bearer " + tg.Assistant.TokenRef(e.TokenEnv)
			} else if got.TokenEnv != e.TokenEnv {
				t.Errorf("read back TokenEnv %q, want %q", got.TokenEnv, e.TokenEnv)
			}
			if !maps.Equal(got.Headers, wantHeaders) {
				t.Errorf("read back headers %v, want %v", got.Headers, wantHeaders)
			}
			if why := got.NotStdio(); why != "a remote server at "+e.URL {
				t.Errorf("NotStdio: %q", why)
			}
			if ch, err := tg.Add(e, o); err != nil || ch.Action != "unchanged" {
				t.Errorf("Add again: %+v, %v", ch, err)
			}
			moved := e
			moved.URL += "/v2"
			var ce *ConflictError
			if _, err := tg.Add(moved, o); !errors.As(err, &ce) {
				t.Errorf("Add of another URL under the same name: %v, want a conflict", err)
			}
			if _, err := tg.Remove(e.Name, o); err != nil {
				t.Fatal(err)
			}
			_, err = os.Stat(tg.File)
			switch back := ""; {
			case !hasIn && err == nil:
				if back = read(t, tg.File); strings.Contains(back, e.Name) {
					t.Errorf("after Remove:\n%s", back)
				}
			case hasIn:
				if back = read(t, tg.File); back != in {
					t.Errorf("after Remove:\n%s\nwant the file as it was:\n%s", back, in)
				}
			}
		})
	}
	for _, c := range clients {
		if !seen[c.Name] {
			t.Errorf("no case in testdata/remote for %s", c.Name)
		}
	}
}

func TestRemoteRefused(t *testing.T) {
	base := Entry{Name: "weather", URL: "https://weather.example.com/mcp"}
	for _, c := range []struct {
		client string
		edit   func(*Entry)
		want   string
	}{
		{"codex", func(e *Entry) { e.Type = "sse" }, "reads no servers of the older SSE transport"},
		{"zed", func(e *Entry) { e.Type = "sse" }, "reads no servers of the older SSE transport"},
		{"cline", func(e *Entry) { e.TokenEnv = "TOKEN" }, "Cline expands no environment variables in its config file"},
		{"goose", func(e *Entry) { e.TokenEnv = "TOKEN" }, "Goose expands no environment variables"},
		{"continue", func(e *Entry) { e.Headers = map[string]string{"X-Team": "blue"} }, "does not know where Continue takes HTTP headers"},
		{"claude-desktop", func(*Entry) {}, "Settings, Connectors"},
		{"amazonq", func(*Entry) {}, "--client kiro"},
	} {
		e := base
		c.edit(&e)
		tg, o := testTarget(t, c.client, ScopeUser)
		var re *RemoteError
		if _, err := tg.Add(e, o); !errors.As(err, &re) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a RemoteError saying %q", c.client, err, c.want)
		}
	}
	tg, o := testTarget(t, "claude-code", ScopeUser)
	for _, bad := range []Entry{
		{URL: "ftp://x/y"}, {URL: "weather.example.com"}, {URL: ""},
		{URL: "http://weather.example.com/mcp"}, {URL: "http://127.0.0.1.evil.example/mcp"}, {URL: "http://[::2]:80/"},
		{URL: base.URL, Headers: map[string]string{"X-Team": "blue\r\nX-Evil: 1"}},
		{URL: base.URL, Headers: map[string]string{"X Team": "blue"}},
		{URL: base.URL, Headers: map[string]string{"": "blue"}},
		{URL: base.URL, TokenEnv: "1TOKEN"},
		{URL: base.URL, TokenEnv: "TOKEN", Headers: map[string]string{"authorization": "Bearer x"}},
	} {
		bad.Name = "weather"
		if _, err := tg.Add(bad, o); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := os.Stat(tg.File); err == nil {
		t.Errorf("refused adds wrote %s", tg.File)
	}
	for _, u := range []string{"http://127.0.0.1:8080/mcp", "http://localhost/mcp", "http://[::1]:9/mcp"} {
		ok := base
		ok.Name = "weather-" + strings.NewReplacer(":", "", "/", "", "[", "", "]", "", ".", "").Replace(u)
		ok.URL = u
		if _, err := tg.Add(ok, o); err != nil {
			t.Errorf("URL %q: %v", u, err)
		}
	}
}
