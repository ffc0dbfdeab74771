package mcp

import (
	"encoding/json"
	"testing"
)

// TestContentWireFormat pins each kind of content block to the shape the
// specification gives it (schema of revision 2025-11-25).
func TestContentWireFormat(t *testing.T) {
	for _, tc := range []struct {
		c    Content
		want string
	}{
		{Content{Type: "text", Text: "hi"}, `{"type":"text","text":"hi"}`},
		{Content{Type: "image", Data: "iVBO", MimeType: "image/png"}, `{"type":"image","data":"iVBO","mimeType":"image/png"}`},
		{Content{Type: "audio", Data: "UklG", MimeType: "audio/wav"}, `{"type":"audio","data":"UklG","mimeType":"audio/wav"}`},
		{Content{Type: "resource_link", URI: "file:///tmp/report.txt", Name: "report.txt", Title: "Report", Description: "the run's report", MimeType: "text/plain"},
			`{"type":"resource_link","mimeType":"text/plain","uri":"file:///tmp/report.txt","name":"report.txt","title":"Report","description":"the run's report"}`},
		{Content{Type: "resource", Resource: &ResourceContents{URI: "test://embedded", MimeType: "text/plain", Text: "body"}},
			`{"type":"resource","resource":{"uri":"test://embedded","mimeType":"text/plain","text":"body"}}`},
		{Content{Type: "resource", Resource: &ResourceContents{URI: "test://bin", Blob: "AAE="}},
			`{"type":"resource","resource":{"uri":"test://bin","blob":"AAE="}}`},
	} {
		b, err := json.Marshal(tc.c)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("got  %s\nwant %s", b, tc.want)
		}
		var back Content
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if b2, _ := json.Marshal(back); string(b2) != tc.want {
			t.Errorf("round trip: got %s, want %s", b2, tc.want)
		}
	}
}
