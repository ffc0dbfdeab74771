package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/mcpproxy"
)

// An HTTP transcript is a golden exchange over the Streamable HTTP
// transport, one file in testdata/http/*.txt: requests the client sends
// ("> " lines: the method, headers, an empty line, the body) each followed
// by the response the handler must give ("< " lines: the status, the
// headers of interest (transcriptHeaders), an empty line, the body as it
// is, event streams included):
//
//	# comment
//	option token s3cret
//	> POST
//	> Content-Type: application/json
//	>
//	> {"jsonrpc":"2.0","id":1,"method":"ping"}
//	< 400
//	< Content-Type: application/json
//	<
//	< {"jsonrpc":"2.0","id":1,...}
//
// {SESSION} stands for the Mcp-Session-Id the handler minted last, in
// requests and responses, and {SESSION-1} in requests for the one before; {BIG:n} in a body for n bytes of 'x'. Options:
// token, allow-origin, max-body-bytes, max-sessions, max-concurrent-calls,
// session-key, session-lifetime, replicas N (that many handlers of one
// server each, sharing the options; a request line ending in @N goes to
// the Nth, else to the first), sql-tool (see addSQLTool), resources
// (testResources), forward (a notifyingProxy) and forward-stdio (the
// server forwards to another one, which has what the other options give
// it, over an in-process stdio connection, as the bridge forwards to a
// child). A request line
// ending in " &" leaves its response running once its headers have come
// (a subscriptions/listen stream): the next exchanges run meanwhile, and
// it is read to its end after the pseudo-request SHUTDOWN, which shuts
// every handler down and whose response is the line "done".
type httpTranscript struct {
	opts      HTTPOptions
	replicas  int
	sqlTool   bool     // add the tool "sql", whose region is mirrored in Mcp-Param-Region
	resources bool     // serve testResources
	forward   bool     // serve a notifyingProxy
	stdio     bool     // forward to another test server, as the bridge does (forward-stdio)
	header    []string // the lines before the first exchange
	exchanges []httpExchange
}

type httpExchange struct {
	before  []string // comment and blank lines before it
	request []string
	want    []string
}

// transcriptHeaders are the response headers a transcript records.
var transcriptHeaders = []string{"Access-Control-Allow-Headers", "Access-Control-Allow-Methods", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers",
	"Allow", "Cache-Control", "Content-Type", "Mcp-Session-Id", "Retry-After", "Www-Authenticate", "X-Accel-Buffering"}

func TestHTTPTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/http/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in testdata/http: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			tr := readHTTPTranscript(t, file)
			opts := &ServerOptions{}
			if tr.resources {
				opts.Resources = testResources{}
			}
			var fwd *notifyingProxy
			if tr.forward {
				fwd = &notifyingProxy{}
				opts.proxy = fwd
			}
			s := newTestServer(t, opts)
			if fwd != nil {
				fwd.srv = s
			}
			if tr.sqlTool {
				addSQLTool(t, s)
			}
			if tr.stdio {
				s = NewServer(Implementation{Name: "front", Version: "1"}, &ServerOptions{proxy: newClientProxy(t, s)})
			}
			var urls []string
			var handlers []*HTTPHandler
			for range max(tr.replicas, 1) {
				h := NewHTTPHandler(s, &tr.opts)
				srv := httptest.NewServer(h)
				defer srv.Close()
				urls = append(urls, srv.URL)
				handlers = append(handlers, h)
			}
			var sessions []string
			got := make([][]string, len(tr.exchanges))
			var streams []func() // the exchanges "&" left running: each records its response
			for i, ex := range tr.exchanges {
				if ex.request[0] == "SHUTDOWN" {
					// Every handler shuts down; the streams left running end.
					for _, h := range handlers {
						if err := h.Shutdown(context.Background()); err != nil {
							t.Fatal(err)
						}
					}
					for _, finish := range streams {
						finish()
					}
					streams = nil
					got[i] = []string{"done"}
					if !*update && strings.Join(ex.want, "\n") != "done" {
						t.Errorf("exchange %d: SHUTDOWN wants the response line \"done\"", i+1)
					}
					continue
				}
				url := urls[0]
				if f := strings.Fields(ex.request[0]); len(f) > 1 && strings.HasPrefix(f[len(f)-1], "@") {
					n, err := strconv.Atoi(f[len(f)-1][1:])
					if err != nil || n < 1 || n > len(urls) {
						t.Fatalf("exchange %d: no replica %s", i+1, f[len(f)-1])
					}
					url = urls[n-1]
				}
				resp := doTranscriptRequest(t, url, ex.request, sessions)
				check := func(lines []string) {
					got[i] = lines
					if !*update && strings.Join(lines, "\n") != strings.Join(ex.want, "\n") {
						t.Errorf("exchange %d (%s):\ngot:\n%s\nwant:\n%s", i+1, ex.request[0], prefixed("< ", lines), prefixed("< ", ex.want))
					}
				}
				if strings.HasSuffix(ex.request[0], " &") {
					// Its headers have come: it runs on while the next
					// exchanges do, until SHUTDOWN.
					done := make(chan []string, 1)
					go func() { done <- responseLines(t, resp, &sessions) }()
					streams = append(streams, func() { check(<-done) })
					continue
				}
				check(responseLines(t, resp, &sessions))
			}
			if len(streams) > 0 {
				t.Fatal("an exchange left running (&) needs a SHUTDOWN after it")
			}
			if *update {
				writeHTTPTranscript(t, file, tr, got)
			}
		})
	}
}

func prefixed(p string, lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(p+l, " ") + "\n")
	}
	return b.String()
}

func readHTTPTranscript(t *testing.T, file string) *httpTranscript {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tr := &httpTranscript{}
	var cur *httpExchange
	var pending []string
	for n, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		switch {
		case line == ">" || strings.HasPrefix(line, "> "):
			if cur == nil || len(cur.want) > 0 {
				tr.exchanges = append(tr.exchanges, httpExchange{before: pending})
				cur = &tr.exchanges[len(tr.exchanges)-1]
				pending = nil
			}
			cur.request = append(cur.request, strings.TrimPrefix(strings.TrimPrefix(line, ">"), " "))
		case line == "<" || strings.HasPrefix(line, "< "):
			if cur == nil {
				t.Fatalf("%s:%d: a response before any request", file, n+1)
			}
			cur.want = append(cur.want, strings.TrimPrefix(strings.TrimPrefix(line, "<"), " "))
		case cur == nil:
			tr.header = append(tr.header, line)
			if f := strings.Fields(line); len(f) == 3 && f[0] == "option" && f[1] == "replicas" {
				tr.replicas, _ = strconv.Atoi(f[2])
			} else if len(f) == 3 && f[0] == "option" {
				setHTTPOption(t, &tr.opts, f[1], f[2])
			} else if line == "option sql-tool" {
				tr.sqlTool = true
			} else if line == "option resources" {
				tr.resources = true
			} else if line == "option forward" {
				tr.forward = true
			} else if line == "option forward-stdio" {
				tr.stdio = true
			}
		case line == "" || strings.HasPrefix(line, "#"):
			pending = append(pending, line)
		default:
			t.Fatalf("%s:%d: unexpected line %q", file, n+1, line)
		}
	}
	return tr
}

func setHTTPOption(t *testing.T, o *HTTPOptions, name, value string) {
	n, _ := strconv.Atoi(value)
	switch name {
	case "token":
		o.AuthToken = value
	case "allow-origin":
		o.AllowedOrigins = append(o.AllowedOrigins, value)
	case "max-body-bytes":
		o.MaxBodyBytes = int64(n)
	case "max-sessions":
		o.MaxSessions = n
	case "max-concurrent-calls":
		o.MaxConcurrentCalls = n
	case "session-key":
		o.SessionKey = []byte(value)
	case "session-lifetime":
		d, err := time.ParseDuration(value)
		if err != nil {
			t.Fatal(err)
		}
		o.SessionLifetime = d
	default:
		t.Fatalf("unknown option %q", name)
	}
}

// doTranscriptRequest sends the request that lines describe.
func doTranscriptRequest(t *testing.T, url string, lines []string, sessions []string) *http.Response {
	f := strings.Fields(lines[0])
	if len(f) > 1 && f[len(f)-1] == "&" {
		f = f[:len(f)-1]
	}
	if len(f) > 1 && strings.HasPrefix(f[len(f)-1], "@") {
		f = f[:len(f)-1]
	}
	method, path := f[0], ""
	if len(f) > 1 {
		path = f[1]
	}
	i := 1
	hdr := http.Header{}
	for ; i < len(lines) && lines[i] != ""; i++ {
		name, value, ok := strings.Cut(lines[i], ":")
		if !ok {
			t.Fatalf("request header %q has no colon", lines[i])
		}
		value = strings.TrimSpace(value)
		for i, placeholder := range []string{"{SESSION}", "{SESSION-1}"} {
			if n := len(sessions) - 1 - i; n >= 0 {
				value = strings.ReplaceAll(value, placeholder, sessions[n])
			}
		}
		hdr.Add(name, value)
	}
	body := ""
	if i < len(lines) {
		body = expandBig(strings.Join(lines[i+1:], "\n"))
	}
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if h := hdr.Get("Host"); h != "" {
		req.Host = h
		hdr.Del("Host")
	}
	req.Header = hdr
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// responseLines renders a response as a transcript records it, keeping a
// new session id in sessions.
func responseLines(t *testing.T, resp *http.Response, sessions *[]string) []string {
	defer resp.Body.Close()
	lines := []string{strconv.Itoa(resp.StatusCode)}
	if sid := resp.Header.Get(headerSessionID); sid != "" {
		*sessions = append(*sessions, sid)
	}
	for _, name := range transcriptHeaders {
		for _, v := range resp.Header.Values(name) {
			if name == headerSessionID {
				v = "{SESSION}"
			}
			lines = append(lines, fmt.Sprintf("%s: %s", name, v))
		}
	}
	lines = append(lines, "")
	body, err := io.ReadAll(bufio.NewReader(resp.Body))
	if err != nil {
		t.Fatal(err)
	}
	if len(body) > 0 {
		lines = append(lines, strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")...)
	}
	return lines
}

func writeHTTPTranscript(t *testing.T, file string, tr *httpTranscript, got [][]string) {
	var b strings.Builder
	for _, l := range tr.header {
		b.WriteString(l + "\n")
	}
	for i, ex := range tr.exchanges {
		for _, l := range ex.before {
			b.WriteString(l + "\n")
		}
		b.WriteString(prefixed("> ", ex.request))
		b.WriteString(prefixed("< ", got[i]))
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addSQLTool adds "sql": its region and its limit are mirrored into the
// Mcp-Param-Region and Mcp-Param-Limit headers (x-mcp-header).
func addSQLTool(t *testing.T, s *Server) {
	err := s.AddTool(Tool{Name: "sql", InputSchema: json.RawMessage(`{"type":"object","required":["query"],"properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"limit":{"type":"integer","x-mcp-header":"Limit"},
		"query":{"type":"string"}}}`)}, func(_ context.Context, req *CallRequest) (*CallToolResult, error) {
		return TextResult(string(req.Arguments)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// clientProxy is a proxy that passes requests to another server,
// in the legacy form, over an in-process stdio connection, as the bridge
// passes them to a child.
type clientProxy struct {
	proxyBase
	c    *Client
	caps json.RawMessage
}

func newClientProxy(t *testing.T, s *Server) *clientProxy {
	c := s.Connect(context.Background(), nil)
	t.Cleanup(func() { c.Close() })
	var res struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := c.Call(context.Background(), "initialize", map[string]any{"protocolVersion": LatestLegacyVersion, "capabilities": map[string]any{},
		"clientInfo": Implementation{Name: "forwarder", Version: "1"}}, &res); err != nil {
		t.Fatal(err)
	}
	return &clientProxy{c: c, caps: res.Capabilities}
}

func (f *clientProxy) Capabilities() json.RawMessage { return f.caps }

func (f *clientProxy) Serve(ctx context.Context, r *mcpproxy.Request) (json.RawMessage, error) {
	var res json.RawMessage
	var params any
	if r.Params != nil {
		params = r.Params
	}
	err := f.c.Call(ctx, r.Method, params, &res)
	return res, err
}
