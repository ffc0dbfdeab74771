//go:build linux

package tests

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// getStream opens a legacy session's GET stream and returns the
// messages that come on it.
func getStream(t *testing.T, url string, hdr map[string]string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", resp, err)
	}
	ch := make(chan string, 64)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				ch <- d
			}
		}
	}()
	return ch
}

// expectOn waits for a message on ch containing want, failing after a
// long wait; messages before it are skipped.
func expectOn(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-ch:
			if strings.Contains(m, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no message with %s on the GET stream", want)
		}
	}
}

// quietUntil fails when a message containing unwanted is waiting on ch,
// once a later marker has been seen (so that ordering proves absence).
func quietUntil(t *testing.T, ch <-chan string, unwanted, marker string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-ch:
			if strings.Contains(m, unwanted) {
				t.Fatalf("the GET stream got %s, which is not this session's: %s", unwanted, m)
			}
			if strings.Contains(m, marker) {
				return
			}
		case <-deadline:
			t.Fatalf("no message with %s on the GET stream", marker)
		}
	}
}

func poke(t *testing.T, url string, hdr map[string]string, args string) {
	t.Helper()
	if st, body, _, err := exchange(url, hdr, legacyCallBody("7", "poke", args)); err != nil || st != 200 || !strings.Contains(body, "poked") {
		t.Fatalf("poke %s: %d %s %v", args, st, body, err)
	}
}

// TestBridgeRelaysNotifications serves a child that sends list changes,
// resource updates and log messages: list changes reach every session's
// GET stream, an update only the sessions subscribed to its resource,
// log messages the request they come during or the sessions whose level
// admits them; a session that ends has its subscriptions cancelled at
// the child, and the bridge announces the child's capabilities.
func TestBridgeRelaysNotifications(t *testing.T) {
	s := startBridge(t, nil, nil, notifierPath)
	status, body, _, err := exchange(s.url, nil, initializeBody)
	if err != nil || status != 200 {
		t.Fatalf("initialize: %d %s %v", status, body, err)
	}
	for _, want := range []string{`"logging":{}`, `"subscribe":true`, `"listChanged":true`, `"name":"notifier"`} {
		if !strings.Contains(body, want) {
			t.Errorf("initialize result %s: want %s, as the child announces", body, want)
		}
	}
	a := legacySession(t, s.url, nil)
	b := legacySession(t, s.url, nil)
	streamA, streamB := getStream(t, s.url, a), getStream(t, s.url, b)
	for _, h := range []map[string]string{a, b} {
		if st, body, _, err := exchange(s.url, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); err != nil || st != 200 || !strings.Contains(body, "poke") {
			t.Fatalf("tools/list: %d %s %v", st, body, err)
		}
	}

	// A list change, sent after a reply: every session.
	poke(t, s.url, a, `{"what":"list_changed","when":"after"}`)
	for _, ch := range []<-chan string{streamA, streamB} {
		expectOn(t, ch, "notifications/tools/list_changed")
		expectOn(t, ch, "notifications/prompts/list_changed")
		expectOn(t, ch, "notifications/resources/list_changed")
	}

	// Subscriptions: each session gets the updates of its own.
	for _, sub := range []struct {
		h   map[string]string
		uri string
	}{{a, "file:///a"}, {b, "file:///b"}, {b, "file:///both"}, {a, "file:///both"}} {
		if st, body, _, err := exchange(s.url, sub.h, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+sub.uri+`"}}`); err != nil || st != 200 || strings.Contains(body, "error") {
			t.Fatalf("resources/subscribe: %d %s %v", st, body, err)
		}
	}
	if got := callText(t, s.url, a, legacyCallBody("3", "state", "{}")); got != "level=unset subs=file:///a,file:///b,file:///both" {
		t.Errorf("the child's state %q: want each URI subscribed once", got)
	}
	poke(t, s.url, a, `{"what":"updated","uri":"file:///a","when":"after"}`)
	poke(t, s.url, a, `{"what":"updated","uri":"file:///b","when":"after"}`)
	poke(t, s.url, a, `{"what":"updated","uri":"file:///both","when":"after"}`)
	quietUntil(t, streamA, `"file:///b"`, `"file:///both"`)
	quietUntil(t, streamB, `"file:///a"`, `"file:///both"`)

	// Log levels: the child logs at the lowest level a session asked for;
	// each session gets what its own level admits.
	for _, lv := range []struct {
		h     map[string]string
		level string
	}{{a, "error"}, {b, "info"}} {
		if st, body, _, err := exchange(s.url, lv.h, `{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"`+lv.level+`"}}`); err != nil || st != 200 || strings.Contains(body, "error\"") {
			t.Fatalf("logging/setLevel: %d %s %v", st, body, err)
		}
	}
	if got := callText(t, s.url, a, legacyCallBody("5", "state", "{}")); !strings.HasPrefix(got, "level=info ") {
		t.Errorf("the child's state %q: want level=info, the lowest asked for", got)
	}
	// Sent while the child answers a stateless request, which takes no
	// log messages: they belong to no request of a session.
	poke(t, s.url, a, `{"what":"log","level":"warning","data":"warning-1","when":"next"}`)
	poke(t, s.url, a, `{"what":"log","level":"critical","data":"critical-1","when":"next"}`)
	if got := callText(t, s.url, modernHeaders("state"), modernCallBody("state", `{}`)); !strings.HasPrefix(got, "level=info ") {
		t.Errorf("a stateless call of state: %q", got)
	}
	expectOn(t, streamB, "warning-1")
	expectOn(t, streamB, "critical-1")
	quietUntil(t, streamA, "warning-1", "critical-1")

	// A log message during a request goes on that request's stream.
	st, reply, _, err := exchange(s.url, a, legacyCallBody("6", "poke", `{"what":"log","level":"alert","data":"during-1"}`))
	if err != nil || st != 200 || !strings.Contains(reply, "during-1") || !strings.Contains(reply, "poked") {
		t.Errorf("a call that logs: %d %s %v: want the log message in its stream, then its result", st, reply, err)
	}

	// A session that ends: its subscriptions go, those another session
	// holds stay.
	req, _ := http.NewRequest("DELETE", s.url, nil)
	for k, v := range b {
		req.Header.Set(k, v)
	}
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 204 {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	want := "level=error subs=file:///a,file:///both" // and the level, the lowest left
	var got string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = callText(t, s.url, a, legacyCallBody("8", "state", "{}")); got == want {
			break
		}
	}
	if got != want {
		t.Errorf("the child's state after a session ended: %q, want %q", got, want)
	}
}
