package registry

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

func weather(t *testing.T) *Server {
	t.Helper()
	b, err := os.ReadFile("testdata/server.json")
	if err != nil {
		t.Fatal(err)
	}
	var r Response
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r.Server
}

func TestChoose(t *testing.T) {
	s := weather(t)
	all := func(string) bool { return true }
	none := func(string) bool { return false }
	tests := []struct {
		goos, goarch string
		have         func(string) bool
		want         string // identifier, or the start of the error
	}{
		{"linux", "amd64", none, "https://github.com/example/weather/releases/download/v1.2.0/weather_1.2.0_linux_amd64.mcpb"},
		{"darwin", "arm64", none, "https://github.com/example/weather/releases/download/v1.2.0/weather-1.2.0-darwin-arm64.mcpb"},
		{"linux", "arm64", all, "@example/weather-mcp"},
		{"linux", "arm64", func(l string) bool { return l == "docker" }, "ghcr.io/example/weather"},
		{"windows", "amd64", none, "no package of io.github.example/weather 1.2.0 can be installed here"},
	}
	for _, tt := range tests {
		p, err := s.Choose(tt.goos, tt.goarch, tt.have)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = p.Identifier
		}
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s/%s: got %q, want %q", tt.goos, tt.goarch, got, tt.want)
		}
	}
	_, err := s.Choose("windows", "amd64", none)
	for _, why := range []string{"built for linux/amd64, this is windows/amd64", "it runs with npx, which is not installed"} {
		if !strings.Contains(err.Error(), why) {
			t.Errorf("the error does not say %q:\n%v", why, err)
		}
	}
}

func TestPlatformOf(t *testing.T) {
	for name, want := range map[string][2]string{
		"x_1.0_linux_amd64.mcpb":         {"linux", "amd64"},
		"x-1.0-macos-aarch64.mcpb":       {"darwin", "arm64"},
		"x-1.0-x86_64-apple-darwin.mcpb": {"darwin", "amd64"},
		"x-win32-x64.mcpb":               {"windows", "amd64"},
		"x.mcpb":                         {"", ""},
		"mcp-winery.mcpb":                {"", ""},
	} {
		if o, a := platformOf("https://h/d/" + name); o != want[0] || a != want[1] {
			t.Errorf("%s: %s/%s, want %s/%s", name, o, a, want[0], want[1])
		}
	}
}

func TestLaunch(t *testing.T) {
	s := weather(t)
	npm, oci := &s.Packages[2], &s.Packages[3]
	var keys []string
	for _, n := range npm.Needs() {
		keys = append(keys, n.Kind+" "+n.Key)
	}
	if want := []string{"environment variable WEATHER_API_KEY", "environment variable WEATHER_REGION", "argument units"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("needs %q, want %q", keys, want)
	}
	if _, err := npm.Launch(nil); err == nil || err.Error() != "no value for the required input WEATHER_API_KEY" {
		t.Errorf("without the key: %v", err)
	}
	l, err := npm.Launch(map[string]string{"WEATHER_API_KEY": "k", "units": "imperial"})
	if err != nil {
		t.Fatal(err)
	}
	want := &Launch{Command: "npx", Args: []string{"-y", "@example/weather-mcp@1.2.0", "serve", "--units", "imperial", "--verbose"},
		Env: map[string]string{"WEATHER_API_KEY": "k", "WEATHER_REGION": "eu"}}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("npm: got %+v, want %+v", l, want)
	}
	l, err = oci.Launch(map[string]string{"WEATHER_API_KEY": "k", "source": "/home/me/data"})
	if err != nil {
		t.Fatal(err)
	}
	want = &Launch{Command: "docker", Args: []string{"run", "-i", "--rm", "--mount", "type=bind,src=/home/me/data,dst=/data", "-e", "WEATHER_API_KEY", "ghcr.io/example/weather:1.2.0"},
		Env: map[string]string{"WEATHER_API_KEY": "k"}}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("oci: got %+v, want %+v", l, want)
	}
	if _, err := s.Packages[0].Launch(nil); err == nil {
		t.Error("Launch of an mcpb package: no error")
	}
}

func TestRemote(t *testing.T) {
	s := weather(t)
	r := s.Remote()
	if r == nil || r.URL != "https://weather.example.com/mcp" {
		t.Fatalf("Remote: %+v", r)
	}
	tr := Transport{Type: "streamable-http", URL: "https://{region}.example.com/mcp",
		Variables: map[string]Input{"region": {IsRequired: true, Choices: []string{"eu", "us"}}},
		Headers:   []Variable{{Name: "Authorization", Input: Input{IsRequired: true, IsSecret: true}}, {Name: "X-Units", Input: Input{Default: "metric"}}}}
	var keys []string
	for _, n := range tr.Needs() {
		keys = append(keys, n.Kind+" "+n.Key)
	}
	if want := []string{"URL variable region", "header Authorization", "header X-Units"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("needs %q, want %q", keys, want)
	}
	if _, _, err := tr.Endpoint(map[string]string{"region": "eu"}); err == nil || err.Error() != "no value for the required input Authorization" {
		t.Errorf("without the header: %v", err)
	}
	u, h, err := tr.Endpoint(map[string]string{"region": "eu", "Authorization": "Bearer k"})
	if err != nil || u != "https://eu.example.com/mcp" || !reflect.DeepEqual(h, map[string]string{"Authorization": "Bearer k", "X-Units": "metric"}) {
		t.Errorf("Endpoint: %q %q %v", u, h, err)
	}
	tr.URL = "http://{region}.example.com/mcp"
	if _, _, err := tr.Endpoint(map[string]string{"region": "eu", "Authorization": "k"}); err == nil {
		t.Error("an http:// remote: no error")
	}
}

// TestUserValuesAreNotTemplates pins that only the author's fixed values
// and defaults have their {variables} filled: what the user typed is
// passed on as written, braces and all.
func TestUserValuesAreNotTemplates(t *testing.T) {
	vars := map[string]Input{"HOME": {Default: "/home/author"}}
	p := Package{RegistryType: "npm", Identifier: "@example/files", Version: "1.0.0",
		EnvironmentVariables: []Variable{
			{Name: "ROOT", Input: Input{Variables: vars}},
			{Name: "CACHE", Input: Input{Default: "{HOME}/.cache", Variables: vars}},
		}}
	l, err := p.Launch(map[string]string{"ROOT": "${HOME}/data"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ROOT": "${HOME}/data", "CACHE": "/home/author/.cache"}
	if !reflect.DeepEqual(l.Env, want) {
		t.Errorf("env %q, want %q", l.Env, want)
	}
	tr := Transport{Type: "streamable-http", URL: "https://example.com/mcp",
		Headers: []Variable{{Name: "X-Path", Input: Input{Variables: vars}}}}
	_, h, err := tr.Endpoint(map[string]string{"X-Path": "{HOME}"})
	if err != nil || h["X-Path"] != "{HOME}" {
		t.Errorf("header %q, %v; want {HOME} as typed", h["X-Path"], err)
	}
}
