package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// postLegacyMessage sends one legacy message to url in session sid (""
// for none) and returns the status, the body and the session id of the
// response.
func postLegacyMessage(t *testing.T, url, sid, body string) (int, string, string) {
	t.Helper()
	hdr := map[string]string{}
	if sid != "" {
		hdr["Mcp-Session-Id"] = sid
	}
	status, h, b := postHTTP(t, url, hdr, body)
	return status, b, h.Get("Mcp-Session-Id")
}

const initializeWithSampling = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{ "sampling": {} },"clientInfo":{"name":"t","version":"0"}}}`

// TestSessionKeyReplicas checks that a signed session id carries the
// client's capabilities to another replica, and that one changed in any
// part, or minted under another key, is refused.
func TestSessionKeyReplicas(t *testing.T) {
	s := NewServer(Implementation{Name: "t", Version: "0"}, nil)
	s.AddTool(Tool{Name: "caps"}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		return TextResult(string(req.ClientCapabilities)), nil
	})
	key := []byte(strings.Repeat("k", 32))
	one := httptest.NewServer(NewHTTPHandler(s, &HTTPOptions{SessionKey: key}))
	defer one.Close()
	two := httptest.NewServer(NewHTTPHandler(s, &HTTPOptions{SessionKey: key}))
	defer two.Close()
	other := httptest.NewServer(NewHTTPHandler(s, &HTTPOptions{SessionKey: []byte(strings.Repeat("o", 32))}))
	defer other.Close()

	_, _, sid := postLegacyMessage(t, one.URL, "", initializeWithSampling)
	if !strings.HasPrefix(sid, sessionIDPrefix) {
		t.Fatalf("session id %q is not a signed one", sid)
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"caps"}}`
	if status, body, _ := postLegacyMessage(t, two.URL, sid, call); status != 200 || !strings.Contains(body, `{\"sampling\":{}}`) {
		t.Errorf("on the second replica: %d %s", status, body)
	}

	// Change the revision the payload carries and keep the MAC.
	parts := strings.Split(sid, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var st map[string]any
	json.Unmarshal(payload, &st)
	st["v"] = "2025-03-26"
	st["x"] = float64(4102444800000)
	changed, _ := json.Marshal(st)
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString(changed) + "." + parts[2]
	last := "A"
	if sid[len(sid)-1] == 'A' {
		last = "B"
	}
	flipped := sid[:len(sid)-1] + last
	for name, id := range map[string]string{"payload changed": tampered, "MAC changed": flipped, "MAC missing": parts[0] + "." + parts[1]} {
		if status, body, _ := postLegacyMessage(t, two.URL, id, call); status != 404 {
			t.Errorf("%s: %d %s, want 404", name, status, body)
		}
	}
	if status, body, _ := postLegacyMessage(t, other.URL, sid, call); status != 404 {
		t.Errorf("under another key: %d %s, want 404", status, body)
	}
	// A handler without a key keeps its sessions to itself.
	plain := httptest.NewServer(NewHTTPHandler(s, nil))
	defer plain.Close()
	if status, body, _ := postLegacyMessage(t, plain.URL, sid, call); status != 404 {
		t.Errorf("without a key: %d %s, want 404", status, body)
	}
	_, _, psid := postLegacyMessage(t, plain.URL, "", initializeWithSampling)
	if strings.Contains(psid, ".") {
		t.Errorf("without a key the id %q carries state", psid)
	}
}

// TestSessionKeyTooLarge checks that capabilities too large to travel in
// a header get an error, not an id a proxy would refuse.
func TestSessionKeyTooLarge(t *testing.T) {
	s := NewServer(Implementation{Name: "t", Version: "0"}, nil)
	srv := httptest.NewServer(NewHTTPHandler(s, &HTTPOptions{SessionKey: []byte(strings.Repeat("k", 32))}))
	defer srv.Close()
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":{"x":"` + strings.Repeat("x", 5000) + `"}},"clientInfo":{"name":"t","version":"0"}}}`
	status, body, sid := postLegacyMessage(t, srv.URL, "", init)
	if status != 200 || sid != "" || !strings.Contains(body, `"code":-32602`) || !strings.Contains(body, "too large to carry in a session id") {
		t.Errorf("got %d %q %s", status, sid, body)
	}
}

func TestSessionKeyTooShort(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "at least 32") {
			t.Errorf("recovered %v", r)
		}
	}()
	NewHTTPHandler(NewServer(Implementation{Name: "t", Version: "0"}, nil), &HTTPOptions{SessionKey: []byte("short")})
}

// TestModernAcrossReplicas pages through tools/list at revision
// 2026-07-28 on two replicas (two servers with the same tools, as two
// processes are), each page from the other: the cursor carries all it
// needs, and no reply names a session.
func TestModernAcrossReplicas(t *testing.T) {
	var urls []string
	for range 2 {
		s := NewServer(Implementation{Name: "t", Version: "0"}, &ServerOptions{PageSize: 1})
		for _, name := range []string{"a", "b", "c"} {
			s.AddTool(Tool{Name: name}, func(context.Context, *CallRequest) (*CallToolResult, error) { return TextResult(name), nil })
		}
		srv := httptest.NewServer(NewHTTPHandler(s, nil))
		defer srv.Close()
		urls = append(urls, srv.URL)
	}
	var names []string
	cursor := ""
	for page := 0; page < 5; page++ {
		params := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		if cursor != "" {
			params = `"cursor":"` + cursor + `",` + params
		}
		req, _ := http.NewRequest("POST", urls[page%2], strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+params+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/list")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Result struct {
				Tools      []struct{ Name string }
				NextCursor string
			}
		}
		json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("page %d on replica %d: %d, session %q", page, page%2+1, resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
		}
		for _, tool := range r.Result.Tools {
			names = append(names, tool.Name)
		}
		if cursor = r.Result.NextCursor; cursor == "" {
			break
		}
	}
	if strings.Join(names, ",") != "a,b,c" {
		t.Errorf("listed %q across the replicas, want a, b, c", names)
	}
}
