package tests

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDoctorRemote registers a remote server that wants a bearer token
// with init --url --bearer-token-env in four clients, each writing the
// token's variable its own way (${VAR}, ${env:VAR}, {env:VAR}, Codex's
// bearer_token_env_var), and checks that doctor reaches it with the token
// from the environment, and fails with the reason when the variable is
// not set, the token is wrong, or the server is gone.
func TestDoctorRemote(t *testing.T) {
	srv := httptest.NewServer(remoteHandler("tok-4711-secret"))
	defer srv.Close()
	s := newSandbox(t)
	s.run(t, "init", "--url", srv.URL+"/mcp", "--name", "weather", "--bearer-token-env", "WEATHER_TOKEN",
		"--client", "claude-code,codex,cursor,opencode", "--scope", "user")

	doctor := func(env ...string) (string, int) {
		c := s.cmd("doctor", "--name", "weather")
		c.Env = append(c.Env, env...)
		out, _ := c.CombinedOutput()
		return string(out), c.ProcessState.ExitCode()
	}
	out, code := doctor("WEATHER_TOKEN=tok-4711-secret")
	if code != 0 || strings.Count(out, "  ok      weather: weather 2.0.0, protocol 2025-06-18, 2 tools") != 4 ||
		!strings.Contains(out, "4 servers checked: 4 ok, 0 failed") {
		t.Errorf("doctor with the token: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "tok-4711") {
		t.Errorf("doctor printed the token:\n%s", out)
	}

	out, code = doctor()
	if code != 1 || strings.Count(out, "FAILED  weather: not set: the entry's headers take $WEATHER_TOKEN from the environment, and it is not set here") != 4 {
		t.Errorf("doctor without the variable: exit %d\n%s", code, out)
	}
	out, code = doctor("WEATHER_TOKEN=wrong")
	if code != 1 || strings.Count(out, "FAILED  weather: unauthorized: initialize: the server answered 401 Unauthorized") != 4 ||
		!strings.Contains(out, "url: "+srv.URL+"/mcp") || strings.Contains(out, "wrong") {
		t.Errorf("doctor with a wrong token: exit %d\n%s", code, out)
	}
	srv.Close()
	out, code = doctor("WEATHER_TOKEN=tok-4711-secret")
	if code != 1 || strings.Count(out, "FAILED  weather: unreachable: initialize: nothing listens at "+srv.URL+"/mcp (connection refused); is the server running?") != 4 ||
		!strings.Contains(out, "4 servers checked: 0 ok, 4 failed") {
		t.Errorf("doctor with the server gone: exit %d\n%s", code, out)
	}
}
