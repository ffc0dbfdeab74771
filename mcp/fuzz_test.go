package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"unicode/utf8"
)

// FuzzServe feeds arbitrary input to a session and checks the invariants
// that hold whatever a client sends: the server does not crash, every line
// it writes is valid UTF-8 and one JSON-RPC 2.0 object (or, in a session of
// revision 2025-03-26, an array of them), and no id is answered more often
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
	f.Add("{\"jsonrpc\":\"2.0\",\"id\":\"u4\xff\",\"method\":\"ping\"}\n")
	f.Fuzz(func(t *testing.T, input string) {
		var out syncBuffer
		// In a bubble, the drain of a call left waiting takes no time.
		synctest.Test(t, func(t *testing.T) {
			srv := newTestServer(t, &ServerOptions{MaxMessageBytes: 4096})
			if err := srv.Serve(context.Background(), strings.NewReader(input), &out); err != nil {
				t.Fatalf("Serve: %v", err)
			}
		})
		sent := map[idKey]int{}
		for _, line := range strings.Split(input, "\n") {
			for _, m := range messages([]byte(strings.TrimPrefix(strings.TrimSpace(line), "\uFEFF"))) {
				if m.ID != nil {
					sent[msgID{raw: string(m.ID)}.key()]++
				}
			}
		}
		answered := map[idKey]int{}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			if !utf8.ValidString(line) || !json.Valid([]byte(line)) {
				t.Fatalf("server wrote a line that is not UTF-8 JSON: %q", line)
			}
			ms := messages([]byte(line))
			if len(ms) == 0 {
				t.Fatalf("server wrote a line that is not a JSON-RPC message: %q", line)
			}
			for _, m := range ms {
				if string(m.JSONRPC) != `"2.0"` {
					t.Fatalf("server wrote a line that is not a JSON-RPC message: %q", line)
				}
				if m.Method != nil || string(m.ID) == "null" {
					continue
				}
				k := msgID{raw: string(m.ID)}.key()
				answered[k]++
				if answered[k] > sent[k] {
					t.Fatalf("id %s answered %d times, sent %d times", m.ID, answered[k], sent[k])
				}
			}
		}
	})
}

// wireMessage is a message with every member kept as it was written.
type wireMessage struct {
	JSONRPC, ID, Method json.RawMessage
}

// messages decodes a line as a message or a batch of them; it returns
// nothing for anything else.
func messages(line []byte) []wireMessage {
	var m wireMessage
	if json.Unmarshal(line, &m) == nil {
		return []wireMessage{m}
	}
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) != nil {
		return nil
	}
	var ms []wireMessage
	for _, e := range batch {
		m := wireMessage{}
		if json.Unmarshal(e, &m) == nil {
			ms = append(ms, m)
		}
	}
	return ms
}

// FuzzDecodeArguments checks that both ways decodeArguments decodes
// arguments give the same verdicts: decodeLarge, which decodes the first
// levels in place (arguments past smallArguments), builds the same tree
// as a json.Decoder with UseNumber (smaller ones) and fails on the same
// inputs with the same error, so that a tool's schema judges a call
// alike whatever its size.
func FuzzDecodeArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[1,2.5e3,{"c":null}],"d":"x\u00e9"}`, `{"a":{"b":{"c":{"d":{"e":[-0]}}}}}`,
		`[1,[2,[3,[4,[5]]]]]`, `"s"`, `12345678901234567890`, `{"a":1} x`, `{"a":}`, ` {"a" : true , "a":false} `, ``, `{"a":1}{}`,
		"{\"a\":\"\xff\"}", `{"a":"\ud800"}`, `{"a":1e999}`, `{"a":[1,]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := decodeLarge([]byte(s))
		want, werr := decodeWithDecoder([]byte(s))
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("decodeLarge(%q) error %v, the Decoder's %v", s, err, werr)
		}
		if err != nil {
			return
		}
		if g, w := fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want); g != w {
			t.Fatalf("decodeLarge(%q) = %s, the Decoder builds %s", s, g, w)
		}
	})
}

// TestArgumentsVerdictBySize checks that the kinds tool's schema judges
// arguments the same whether they are small (decoded by the Decoder) or
// padded with whitespace past smallArguments (decoded by decodeLarge);
// null arguments, which become {}, cannot be padded.
func TestArgumentsVerdictBySize(t *testing.T) {
	rt, ok := newTestServer(t, nil).tool("kinds")
	if !ok {
		t.Fatal("no kinds tool")
	}
	pad := strings.Repeat(" ", smallArguments)
	for _, args := range []string{
		`{"s":"abc","n":5,"e":"red","a":[1],"o":{"x":true},"u":null,"c":7}`,
		`{"s":"ABCDE","n":0,"e":"blue","a":[1,2,3],"o":{},"u":1,"c":7.0,"z":1}`,
		`{"s":"ab","n":1e999}`, `{"a":[1.5,"x"],"o":{"x":"no"}}`, `{"s":"\ud800x"}`,
		`[1]`, `"x"`, `{"s":}`, `{"s":"ab"} {}`, `{"s":"ab"`, `{"s":"ab","s":3}`,
	} {
		small := &CallRequest{Name: "kinds", Arguments: json.RawMessage(args)}
		large := &CallRequest{Name: "kinds", Arguments: json.RawMessage(args[:1] + pad + args[1:])}
		if len(small.Arguments) > smallArguments || len(large.Arguments) <= smallArguments {
			t.Fatalf("sizes %d and %d do not straddle %d", len(small.Arguments), len(large.Arguments), smallArguments)
		}
		if s, l := rt.checkArguments(small), rt.checkArguments(large); s != l {
			t.Errorf("arguments %s: small ones get %q, large ones %q", args, s, l)
		}
	}
}
