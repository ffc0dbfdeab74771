//go:build linux

package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestEnvFromHeader passes X-Api-Token to the child's API_TOKEN: each
// value gets a child of its own, shared by the requests with that value
// in both eras; a request without it gets the shared child, without the
// variable though the bridge's own environment has it; a header not
// declared reaches no child; and no value is logged.
func TestEnvFromHeader(t *testing.T) {
	t.Setenv("API_TOKEN", "inherited-secret")
	s := start(t, Options{EnvHeaders: []EnvHeader{{Header: "X-Api-Token", Var: "API_TOKEN"}}}, "serve")
	alpha := map[string]string{"MCP-Protocol-Version": "2026-07-28", "X-Api-Token": "alpha-secret"}
	beta := map[string]string{"MCP-Protocol-Version": "2026-07-28", "X-Api-Token": "beta-secret"}
	a, got := s.pid(t, alpha)
	if !strings.HasSuffix(got, " API_TOKEN=alpha-secret") {
		t.Errorf("whoami with X-Api-Token alpha-secret: %q", got)
	}
	if again, _ := s.pid(t, s.legacy(t, map[string]string{"X-Api-Token": "alpha-secret"})); again != a {
		t.Errorf("a legacy session with the same value got child %d, want %d", again, a)
	}
	b, got := s.pid(t, beta)
	if b == a || !strings.HasSuffix(got, " API_TOKEN=beta-secret") {
		t.Errorf("whoami with another value: %q; alpha's child is %d", got, a)
	}
	shared, got := s.pid(t, modern)
	if shared == a || shared == b || !strings.HasSuffix(got, " API_TOKEN=(unset)") {
		t.Errorf("whoami without the header: %q, want the shared child without the variable", got)
	}
	env := s.call(t, map[string]string{"MCP-Protocol-Version": "2026-07-28", "X-Api-Token": "alpha-secret", "X-Other": "undeclared-secret"}, "env", `{}`)
	if strings.Contains(env, "undeclared-secret") || strings.Contains(env, "inherited-secret") || !strings.Contains(env, "API_TOKEN=alpha-secret") {
		t.Errorf("the environment of alpha's child:\n%s", env)
	}
	for _, secret := range []string{"alpha-secret", "beta-secret", "undeclared-secret", "inherited-secret"} {
		if strings.Contains(s.log.String(), secret) || strings.Contains(s.stderr.String(), secret) {
			t.Errorf("%s is logged:\n%s\n%s", secret, s.log, s.stderr)
		}
	}
}

// TestChildPerSession gives each legacy session a child of its own and
// stops it when the session has been idle for IdleTimeout, or ends; the
// first child, which stateless requests borrow, is kept.
func TestChildPerSession(t *testing.T) {
	s := start(t, Options{PerSession: true, IdleTimeout: 2 * time.Second}, "serve")
	first, _ := s.pid(t, modern)
	a := s.legacy(t, nil)
	pa, _ := s.pid(t, a)
	b := s.legacy(t, nil)
	pb, _ := s.pid(t, b)
	if pa == first || pb == first || pa == pb || pa == 0 || pb == 0 {
		t.Fatalf("children: stateless %d, session a %d, session b %d; want three", first, pa, pb)
	}
	if again, _ := s.pid(t, a); again != pa {
		t.Errorf("session a's second call went to %d, want its child %d", again, pa)
	}
	waitFor(t, "the idle sessions' children have ended", func() bool { return !alive(pa) && !alive(pb) })
	if !strings.Contains(s.log.String(), "idle server process stopped") {
		t.Errorf("the idle stop is not logged:\n%s", s.log)
	}
	if !alive(first) {
		t.Errorf("the first child %d was stopped too", first)
	}
	if again, got := s.pid(t, a); again == pa || again == 0 {
		t.Errorf("session a after its child's idle stop: %q, want a new child", got)
	}
	c := s.legacy(t, nil)
	pc, _ := s.pid(t, c)
	req, _ := http.NewRequest("DELETE", s.url, nil)
	for k, v := range c {
		req.Header.Set(k, v)
	}
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("DELETE the session: %v %v", resp, err)
	}
	waitFor(t, "the child of a session that ended has ended", func() bool { return !alive(pc) })
}

// TestMaxChildren bounds the children: past MaxChildren the one idle
// longest is stopped (never the first), and while all are in use a
// request fails at once.
func TestMaxChildren(t *testing.T) {
	s := start(t, Options{PerSession: true, MaxChildren: 2}, "serve")
	first, _ := s.pid(t, modern)
	a := s.legacy(t, nil)
	pa, _ := s.pid(t, a)
	b := s.legacy(t, nil)
	if pb, got := s.pid(t, b); pb == 0 || pb == pa || pb == first {
		t.Fatalf("session b: %q", got)
	}
	waitFor(t, "session a's child, idle longest, has been stopped", func() bool { return !alive(pa) })
	if !alive(first) || !strings.Contains(s.log.String(), "server process limit reached; the one idle longest was stopped") {
		t.Errorf("first child alive %v; log:\n%s", alive(first), s.log)
	}
	// Session b's child and the first are both busy: a new session's
	// request fails at once.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 2)
	for _, hdr := range []map[string]string{b, stateless("slow", nil)} {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.url, strings.NewReader(callBody(9, "slow", `{}`, hdr["Mcp-Name"] != "")))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			done <- err
		}()
	}
	waitFor(t, "both children are busy", func() bool {
		s.b.mu.Lock()
		defer s.b.mu.Unlock()
		busy := 0
		for _, c := range s.b.children {
			if c.busy > 0 {
				busy++
			}
		}
		return busy == 2
	})
	want := fmt.Sprintf("error: too many server processes: all %d (mcpship serve --max-children) are in use; try again shortly", 2)
	if got := s.call(t, s.legacy(t, nil), "whoami", `{}`); got != want {
		t.Errorf("a request while every child is busy: %q", got)
	}
	// The stateless call ends with its request; the legacy one goes on
	// after its stream is closed, until it is cancelled.
	cancel()
	s.post(t, b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
	<-done
	<-done
	waitFor(t, "the cancelled calls have let go of the children", func() bool {
		s.b.mu.Lock()
		defer s.b.mu.Unlock()
		for _, c := range s.b.children {
			if c.busy > 0 {
				return false
			}
		}
		return true
	})
	if _, got := s.pid(t, s.legacy(t, nil)); !strings.HasPrefix(got, "pid=") {
		t.Errorf("a new session once the children are free: %q", got)
	}
}

// TestClientThatSamples gives a legacy session whose client declares
// sampling a child of its own, without PerSession; one that declares
// only roots shares the child.
func TestClientThatSamples(t *testing.T) {
	s := start(t, Options{}, "serve")
	shared, _ := s.pid(t, modern)
	if p, _ := s.pid(t, s.legacyCaps(t, nil, `{"roots":{"listChanged":true}}`)); p != shared {
		t.Errorf("a session with roots only got child %d, want the shared %d", p, shared)
	}
	p, _ := s.pid(t, s.legacyCaps(t, nil, `{"sampling":{},"roots":{}}`))
	if p == shared || p == 0 {
		t.Errorf("a session that samples got child %d; the shared one is %d", p, shared)
	}
}

// TestSampling passes the requests of a child of one session's own to
// its client, on the stream of the call they come during, and the
// client's answer back; a shared child's requests are refused.
func TestSampling(t *testing.T) {
	s := start(t, Options{}, "sampler")
	h := s.legacyCaps(t, nil, `{"sampling":{}}`)
	req, _ := http.NewRequest("POST", s.url, strings.NewReader(callBody(4, "ask", `{}`, false)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var got []string
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok || strings.TrimSpace(data) == "" {
			continue
		}
		var m message
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if m.Method == "sampling/createMessage" {
			got = append(got, m.Method)
			s.post(t, h, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"role":"assistant","model":"m","content":{"type":"text","text":"forty-two"}}}`)
			continue
		}
		if string(m.ID) == "4" {
			if len(m.Result.Content) == 0 || m.Result.Content[0].Text != "the client said: forty-two" {
				t.Errorf("the call's result: %s", data)
			}
			got = append(got, "result")
			break
		}
	}
	if strings.Join(got, ",") != "sampling/createMessage,result" {
		t.Errorf("the call's stream: %v", got)
	}
	// A stateless request shares the child started without sampling.
	if got := s.call(t, modern, "ask", `{}`); !strings.HasPrefix(got, "the client refused: sampling/createMessage: no request of a client is open to carry it") {
		t.Errorf("a shared child's request: %q", got)
	}
}

// TestProgress passes the child's progress to the request it is about,
// with the client's own token, a string or a number, in both eras.
func TestProgress(t *testing.T) {
	s := start(t, Options{}, "serve")
	for _, hdr := range []map[string]string{s.legacy(t, nil), stateless("progress", nil)} {
		modern := hdr["MCP-Protocol-Version"] == "2026-07-28"
		for _, token := range []string{`"client-token"`, `42`} {
			body := callBody(3, "progress", `{}`, modern)
			if modern {
				body = strings.Replace(body, `"_meta":{`, `"_meta":{"progressToken":`+token+`,`, 1)
			} else {
				body = strings.Replace(body, `"arguments":{}`, `"arguments":{},"_meta":{"progressToken":`+token+`}`, 1)
			}
			msgs, _ := s.post(t, hdr, body)
			var progress []string
			for _, m := range msgs {
				if m.Method == "notifications/progress" {
					progress = append(progress, string(m.Params))
				}
			}
			if len(progress) != 1 || !strings.Contains(progress[0], `"progressToken":`+token) || !strings.Contains(progress[0], `"message":"half"`) {
				t.Errorf("progress of a call with token %s (modern %v): %q", token, modern, progress)
			}
		}
	}
}

func TestParseEnvHeader(t *testing.T) {
	if eh, err := ParseEnvHeader("x-api-key=API_KEY"); err != nil || eh != (EnvHeader{Header: "X-Api-Key", Var: "API_KEY"}) {
		t.Errorf("ParseEnvHeader(x-api-key=API_KEY) = %+v, %v", eh, err)
	}
	for spec, want := range map[string]string{
		"X-Token":         "use HEADER=VAR",
		"=VAR":            `"" is not a header name`,
		"X Token=VAR":     `"X Token" is not a header name`,
		"X-Token=":        `"" is not an environment variable name`,
		"X-Token=1VAR":    `"1VAR" is not an environment variable name`,
		"X-Token=MY-VAR":  `"MY-VAR" is not an environment variable name`,
		"X-Tökén=API_KEY": "is not a header name",
	} {
		if _, err := ParseEnvHeader(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseEnvHeader(%q) = %v, want %q", spec, err, want)
		}
	}
}
