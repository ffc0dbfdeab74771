package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzServe feeds arbitrary input to a session and checks the invariants
// that hold whatever a client sends: the server does not crash, every line
// it writes is one JSON-RPC 2.0 object, and no id is answered more often
// than requests with it were sent.
// The seed corpus is every client line of the golden transcripts.
func FuzzServe(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var session []string
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "> ") && !strings.Contains(line, "{BIG:") {
				f.Add(line[2:] + "\n")
				session = append(session, line[2:])
			}
		}
		f.Add(strings.Join(session, "\n"))
	}
	f.Fuzz(func(t *testing.T, input string) {
		// A short drain keeps inputs that leave a call waiting fast.
		srv := newTestServer(t, &ServerOptions{MaxMessageBytes: 4096, DrainTimeout: 20 * time.Millisecond})
		var out syncBuffer
		if err := srv.Serve(context.Background(), strings.NewReader(input), &out); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		sent := map[string]int{}
		for _, line := range strings.Split(input, "\n") {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(line), "\uFEFF")), &m) == nil && m.ID != nil {
				sent[string(m.ID)]++
			}
		}
		answered := map[string]int{}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("server wrote a line that is not a JSON-RPC message: %q (%v)", line, err)
			}
			if m.Method != "" || string(m.ID) == "null" {
				continue
			}
			answered[string(m.ID)]++
			if answered[string(m.ID)] > sent[string(m.ID)] {
				t.Fatalf("id %s answered %d times, sent %d times", m.ID, answered[string(m.ID)], sent[string(m.ID)])
			}
		}
	})
}
