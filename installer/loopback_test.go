package installer

import "testing"

func TestLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "127.0.0.1": true, "127.1.2.3": true, "127.255.255.254": true,
		"::1": true, "0:0:0:0:0:0:0:1": true, "::ffff:127.0.0.1": true, "::1%lo": true,
		"127.0.0.1.evil.example": false, "127.evil.example": false, "127.": false, "127.0.0.1.": false,
		"localhost.evil.example": false, "evil-localhost": false, "localhost.": false, "": false,
		"128.0.0.1": false, "10.0.0.1": false, "::2": false, "::ffff:10.0.0.1": false, "0.0.0.0": false, "::": false,
		"[::1]": false, "127.1": false, "0x7f.0.0.1": false, "2130706433": false,
	} {
		if got := Loopback(host); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestEntryCheckRefusesBadNamesAndHeaders(t *testing.T) {
	for _, e := range []Entry{
		{Name: "x", Command: "c", Env: map[string]string{"": "v"}},
		{Name: "x", Command: "c", Env: map[string]string{"A\nB": "v"}},
		{Name: "x", Command: "c", Env: map[string]string{"LD_PRELOAD=/x": "v"}},
		{Name: "x", Command: "c", Env: map[string]string{"A B": "v"}},
		{Name: "x", URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer k\r\nX-Evil: 1"}},
		{Name: "x", URL: "https://h/mcp", Headers: map[string]string{"Authorization": "k\n"}},
		{Name: "x", URL: "https://h/mcp", Headers: map[string]string{"X Evil": "1"}},
		{Name: "x", URL: "https://h/mcp", Headers: map[string]string{"X:Evil": "1"}},
		{Name: "x", URL: "https://h/mcp", Headers: map[string]string{"": "1"}},
	} {
		if err := e.check(); err == nil {
			t.Errorf("%+v: no error", e)
		}
	}
	for _, e := range []Entry{
		{Name: "x", Command: "c", Env: map[string]string{"API_KEY": "v", "npm_config_registry": "v", "ProgramFiles(x86)": "v"}},
		{Name: "x", URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer k\tk", "X-Api-Key": "${KEY}"}},
	} {
		if err := e.check(); err != nil {
			t.Errorf("%+v: %v", e, err)
		}
	}
}
