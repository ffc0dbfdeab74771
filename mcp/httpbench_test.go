package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchHTTPSession initializes a legacy session of version on h and
// returns its id.
func benchHTTPSession(b *testing.B, h http.Handler, version string) string {
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/mcp", strings.NewReader(strings.Replace(initializeLegacy, "2025-11-25", version, 1)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	h.ServeHTTP(w, r)
	sid := w.Result().Header.Get("Mcp-Session-Id")
	if w.Code != 200 || sid == "" {
		b.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	return sid
}

// BenchmarkHTTPLegacyCall measures one tools/call of a legacy session
// through the handler, without a network: what the handler adds to
// net/http for each call of bench/http.sh's legacy era (revision
// 2025-11-25, whose streams are resumable), and of a 2025-06-18 client.
func BenchmarkHTTPLegacyCall(b *testing.B) {
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		b.Run(version, func(b *testing.B) {
			h := NewHTTPHandler(newTestServer(b, nil), nil)
			sid := benchHTTPSession(b, h, version)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, i)
				w := httptest.NewRecorder()
				r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				r.Header.Set("Mcp-Protocol-Version", version)
				r.Header.Set("Mcp-Session-Id", sid)
				h.ServeHTTP(w, r)
				if w.Code != 200 || !strings.Contains(w.Body.String(), `"text":"hi"`) {
					b.Fatalf("call: %d %s", w.Code, w.Body)
				}
			}
		})
	}
}
