//go:build linux

package tests

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
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
	return eventData(resp)
}

// eventData returns the data of the events that come on resp's body,
// closed when the stream ends.
func eventData(resp *http.Response) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				ch <- d
			}
		}
		close(ch)
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
		case m, ok := <-ch:
			if !ok {
				t.Fatalf("the stream ended before a message with %s", want)
			}
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
		case m, ok := <-ch:
			if !ok {
				t.Fatalf("the stream ended before a message with %s", marker)
			}
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
	// Sent while the child answers no request: they belong to no request,
	// and go to the sessions whose level admits them.
	poke(t, s.url, a, `{"what":"log","level":"warning","data":"warning-1","when":"after"}`)
	poke(t, s.url, a, `{"what":"log","level":"critical","data":"critical-1","when":"after"}`)
	expectOn(t, streamB, "warning-1")
	expectOn(t, streamB, "critical-1")
	quietUntil(t, streamA, "warning-1", "critical-1")
	// Sent while the child answers a stateless request (revision
	// 2026-07-28) alone: they are that request's, sent only at or above the
	// level its _meta asks for, and no session's.
	poke(t, s.url, a, `{"what":"log","level":"notice","data":"notice-2","when":"next"}`)
	poke(t, s.url, a, `{"what":"log","level":"critical","data":"critical-2","when":"next"}`)
	st, reply, _, err := exchange(s.url, modernHeaders("state"), strings.Replace(modernCallBody("state", `{}`), `"_meta":{`, `"_meta":{"io.modelcontextprotocol/logLevel":"warning",`, 1))
	if err != nil || st != 200 || !strings.Contains(reply, "critical-2") || strings.Contains(reply, "notice-2") || !strings.Contains(reply, "level=info ") {
		t.Errorf("a stateless call that asks for warnings: %d %s %v: want critical-2 in its stream, not notice-2, then its result", st, reply, err)
	}
	poke(t, s.url, a, `{"what":"log","level":"critical","data":"critical-3","when":"next"}`)
	if st, reply, _, err := exchange(s.url, modernHeaders("state"), modernCallBody("state", `{}`)); err != nil || st != 200 || strings.Contains(reply, "critical-3") {
		t.Errorf("a stateless call that asks for no log messages: %d %s %v: want none", st, reply, err)
	}
	poke(t, s.url, a, `{"what":"log","level":"critical","data":"critical-4","when":"after"}`)
	for m := ""; !strings.Contains(m, "critical-4"); {
		select {
		case m = <-streamB:
			if m == "" {
				t.Fatal("the GET stream ended before critical-4")
			}
			for _, unwanted := range []string{"notice-2", "critical-2", "critical-3"} {
				if strings.Contains(m, unwanted) {
					t.Errorf("a session's GET stream got %s, a stateless request's log message: %s", unwanted, m)
				}
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no critical-4 on the GET stream")
		}
	}

	// A log message during a request goes on that request's stream.
	st, reply, _, err = exchange(s.url, a, legacyCallBody("6", "poke", `{"what":"log","level":"alert","data":"during-1"}`))
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
	testutil.WaitFor(t, 30*time.Second, "the child's state to be "+want+" after a session ended", func() bool {
		got = callText(t, s.url, a, legacyCallBody("8", "state", "{}"))
		return got == want
	})
}

// listenStream opens a subscriptions/listen of revision 2026-07-28 with
// the filter given and returns the messages that come on its stream and
// a function that closes it, as a client cancels a listen.
func listenStream(t *testing.T, url, id, filter string) (<-chan string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":` + filter + `}}`
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("subscriptions/listen: %v %v", resp, err)
	}
	return eventData(resp), cancel
}

// childState polls the notifier's state tool until it reports want.
func childState(t *testing.T, url, want string) {
	t.Helper()
	testutil.WaitFor(t, 30*time.Second, "the child's state to be "+want, func() bool {
		return callText(t, url, modernHeaders("state"), modernCallBody("state", `{}`)) == want
	})
}

// TestBridgeRelaysToListens serves the notifier child to clients of
// revision 2026-07-28, which listen with subscriptions/listen: each
// listen is acknowledged with what the child announces, then gets the
// child's list changes and resource updates its filter asks for, each
// with its id, and no log message; the child is subscribed once to each
// resource a listen names, and unsubscribed when no one listens any more.
func TestBridgeRelaysToListens(t *testing.T) {
	s := startBridge(t, nil, nil, notifierPath)
	one, closeOne := listenStream(t, s.url, `"one"`, `{"toolsListChanged":true,"resourceSubscriptions":["file:///m"],"taskIds":["x"]}`)
	two, closeTwo := listenStream(t, s.url, `2`, `{"promptsListChanged":true,"resourceSubscriptions":["file:///m","file:///n"]}`)
	for _, l := range []struct {
		ch  <-chan string
		ack string
	}{
		{one, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"one"},"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///m"]}}}`},
		{two, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"promptsListChanged":true,"resourceSubscriptions":["file:///m","file:///n"]}}}`},
	} {
		select {
		case m := <-l.ch:
			if m != l.ack { // "" once the stream has ended
				t.Errorf("first message on a listen: %s\nwant %s", m, l.ack)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no acknowledgement on a listen")
		}
	}
	childState(t, s.url, "level=unset subs=file:///m,file:///n")

	// The child's list changes: each listen gets the one it asked for.
	hdr := modernHeaders("poke")
	if got := callText(t, s.url, hdr, modernCallBody("poke", `{"what":"list_changed","when":"after"}`)); got != "poked" {
		t.Fatalf("poke: %q", got)
	}
	expectOn(t, one, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"one"}}}`)
	expectOn(t, two, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`)
	// Updates: of its own resources only; a log message on no listen.
	for _, args := range []string{`{"what":"log","level":"emergency","data":"log-1","when":"after"}`,
		`{"what":"updated","uri":"file:///n","when":"after"}`, `{"what":"updated","uri":"file:///m","when":"after"}`} {
		callText(t, s.url, hdr, modernCallBody("poke", args))
	}
	for _, l := range []struct {
		ch             <-chan string
		id             string
		want, unwanted []string
	}{
		{two, "2", []string{"file:///n", "file:///m"}, []string{"log-1", "tools/", "resources/list_changed"}},
		{one, `"one"`, []string{"file:///m"}, []string{"log-1", "file:///n", "prompts/", "resources/list_changed"}},
	} {
		for len(l.want) > 0 {
			select {
			case m, ok := <-l.ch:
				if !ok {
					t.Fatalf("listen %s ended before the update of %v", l.id, l.want)
				}
				for _, u := range l.unwanted {
					if strings.Contains(m, u) {
						t.Errorf("listen %s got what it did not ask for: %s", l.id, m)
					}
				}
				for i, w := range l.want {
					if m == `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":`+l.id+`},"uri":"`+w+`"}}` {
						l.want = append(l.want[:i], l.want[i+1:]...)
						break
					}
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("listen %s: no update of %v", l.id, l.want)
			}
		}
	}

	// A listen that ends lets go of what no one else holds.
	closeTwo()
	childState(t, s.url, "level=unset subs=file:///m")
	closeOne()
	childState(t, s.url, "level=unset subs=")
}
