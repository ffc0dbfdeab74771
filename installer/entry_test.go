package installer

import "testing"

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
