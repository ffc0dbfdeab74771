package register

import (
	"runtime"
	"testing"

	"github.com/mcpship/mcpship/installer"
)

func TestLooksSecret(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"API_KEY", "abc", true},
		{"GITHUB_TOKEN", "x", true},
		{"DB_PASSWORD", "hunter2", true},
		{"client_secret", "v", true},
		{"DSN", "sk9Hq2Lx7Vb4Tz1Pw8Rm3Nc6", true},              // generated-looking
		{"", "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ", true}, // an argument
		{"", "0123456789abcdef0123456789abcdef", true},         // hex
		{"API_KEY", "${API_KEY}", false},                       // a reference
		{"API_KEY", "{env:API_KEY}", false},                    // opencode's
		{"API_KEY", "", false},
		{"DEBUG", "1", false},
		{"AUTHOR", "Ada Lovelace", false},
		{"LOG_DIR", "/var/log/my-server/2026-11-30/long/path", false}, // a path
		{"", "--max-concurrent-calls", false},
		{"", "@modelcontextprotocol/server-filesystem", false},
		{"GREETING", "hello world, this is a long sentence", false},
		{"", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", false}, // long but not random
	} {
		if got := looksSecret(c.name, c.value); got != c.want {
			t.Errorf("looksSecret(%q, %q) = %v, want %v", c.name, c.value, got, c.want)
		}
	}
}

func TestGoRunBinary(t *testing.T) {
	const hash = "e8db4573cdba8a33af208e9784f0efc6151a183258b72254a3d12e854fe8df88"
	for path, want := range map[string]bool{
		"/tmp/go-build1234/b001/exe/mcpship":                              true,
		"/var/folders/x/T/go-build99/b001/exe/goapp":                      true,
		"/home/u/.cache/go-build/e8/" + hash + "-d/mcpship":               true, // Go 1.24+: run from the build cache
		`C:\Users\u\AppData\Local\go-build\e8\` + hash + `-d\mcpship.exe`: runtime.GOOS == "windows",
		"/srv/gocache/e8/" + hash + "-d/goapp":                            true, // any GOCACHE
		"/srv/gocache/e9/" + hash + "-d/goapp":                            false,
		"/srv/gocache/e8/" + hash[:60] + "-d/goapp":                       false,
		"/usr/local/bin/mcpship":                                          false,
		"/home/u/go/bin/mcpship":                                          false,
		"/home/u/src/exe/mcpship":                                         false,
		"/tmp/go-build1234/b001/registercmd.test":                         false, // go test's binary, started by go test only
	} {
		if got := goRunBinary(path) != ""; got != want {
			t.Errorf("goRunBinary(%q) = %q, want it to say so: %v", path, goRunBinary(path), want)
		}
	}
}

func TestEntrySecretsInArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--header", "Authorization: Bearer sk-abc123"}, "--header \"Authorization: Bearer <hidden>\""},
		{[]string{"--header=Authorization: Bearer sk-abc123"}, "\"--header=Authorization: Bearer <hidden>\""},
		{[]string{"-H", "X-Api-Key: k1"}, "-H \"X-Api-Key: <hidden>\""},
		{[]string{"-H", "Cookie: session=abc"}, "-H \"Cookie: <hidden>\""},
		{[]string{"Bearer", "x"}, "Bearer x"}, // two words: no scheme and its credential in one
		{[]string{"token abc123"}, "\"token <hidden>\""},
		{[]string{"https://user:pa55@example.com/mcp"}, "https://user:<hidden>@example.com/mcp"},
		{[]string{"https://example.com/mcp?api_key=k%2F1&x=1"}, "https://example.com/mcp?api_key=<hidden>&x=1"},
		{[]string{"--url", "https://example.com/mcp", "X-Team: blue", "Authorization: ${TOKEN}"}, "--url https://example.com/mcp \"X-Team: blue\" \"Authorization: ${TOKEN}\""},
		{[]string{"C:\\tools\\x.exe", "a:b"}, "\"C:\\\\tools\\\\x.exe\" a:b"},
	} {
		e := installer.Entry{Command: "srv", Args: c.args}
		if got := Hide(CommandLine(e), Secrets(e)); got != "srv "+c.want {
			t.Errorf("%q shows as %s, want srv %s", c.args, got, c.want)
		}
	}
}
