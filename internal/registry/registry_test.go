package registry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// fakeRegistry answers GET /v0.1/servers/NAME/versions/VERSION with
// answer for the server served, and 404 for any other.
func fakeRegistry(t *testing.T, served string, answer []byte) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := "/v0.1/servers/" + strings.ReplaceAll(served, "/", "%2F") + "/versions/"
		if !strings.HasPrefix(r.URL.EscapedPath(), want) {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":"Server not found"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestServer(t *testing.T) {
	answer, err := os.ReadFile("testdata/server.json")
	if err != nil {
		t.Fatal(err)
	}
	const name = "io.github.example/weather"
	ctx := context.Background()
	tests := []struct {
		served, asked, version string
		wantErr                string
	}{
		{name, name, "", ""},
		{name, name, "latest", ""},
		{name, name, "1.2.0", ""},
		{name, name, "1.1.0", `answered with version "1.2.0"; refusing`},
		{"io.github.example/weather2", "io.github.example/weather2", "", `asked the registry ` + "%s" + ` for io.github.example/weather2, it answered with "io.github.example/weather"; refusing`},
		{name, "io.github.example/other", "", "has no server io.github.example/other version latest (404 Not Found: Server not found)"},
	}
	for _, tt := range tests {
		s := fakeRegistry(t, tt.served, answer)
		c := &Client{BaseURL: s.URL}
		r, err := c.Server(ctx, tt.asked, tt.version)
		want := strings.ReplaceAll(tt.wantErr, "%s", s.URL)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s@%s: %v", tt.asked, tt.version, err)
		case want == "" && (r.Server.Name != name || len(r.Server.Packages) != 4 || r.Meta.Official == nil || !r.Meta.Official.IsLatest):
			t.Errorf("%s@%s: got %+v", tt.asked, tt.version, r)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s@%s: error %v, want one containing %q", tt.asked, tt.version, err, want)
		}
	}
}

func TestServerRefuses(t *testing.T) {
	for _, tt := range []struct{ answer, want string }{
		{`{"server":{"name":"a.b/c","version":"1"},"_meta":{"io.modelcontextprotocol.registry/official":{"status":"deleted","statusMessage":"malware"}}}`, "marks a.b/c version 1 deleted: malware"},
		{`{"server":{"name":"a.b/c"}}`, "has no version"},
		{`<html>`, "is not a server description"},
		{`{"server":{"name":"a.b/c","version":"1","description":"` + strings.Repeat("x", maxAnswer) + `"}}`, "is over 4 MiB"},
	} {
		s := fakeRegistry(t, "a.b/c", []byte(tt.answer))
		_, err := (&Client{BaseURL: s.URL}).Server(context.Background(), "a.b/c", "")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("answer %.40s: error %v, want %q", tt.answer, err, tt.want)
		}
	}
	for _, base := range []string{"http://registry.example.com", "ftp://x", "registry.example.com"} {
		_, err := (&Client{BaseURL: base}).Server(context.Background(), "a.b/c", "")
		if err == nil || !strings.Contains(err.Error(), "registry address") {
			t.Errorf("base %s: error %v", base, err)
		}
	}
}

func TestSameHost(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("elsewhere")) }))
	defer target.Close()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/here":
			http.Redirect(w, r, "/there", http.StatusFound)
		case "/there":
			w.Write([]byte("ok"))
		default:
			http.Redirect(w, r, strings.Replace(target.URL, "127.0.0.1", "localhost", 1)+"/x", http.StatusFound)
		}
	}))
	defer s.Close()
	c := &http.Client{CheckRedirect: SameHost}
	if resp, err := c.Get(s.URL + "/here"); err != nil {
		t.Errorf("a redirect on the same host: %v", err)
	} else {
		resp.Body.Close()
	}
	_, err := c.Get(s.URL + "/away")
	if err == nil || !strings.Contains(err.Error(), "to another host, localhost:") {
		t.Errorf("a redirect to another host: %v", err)
	}
}
