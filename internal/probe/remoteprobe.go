package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/internal/registry"

	"github.com/mcpship/mcpship/internal/register"
)

// remoteRevision is the MCP revision the HTTP handshake asks for.
const remoteRevision = "2025-06-18"

// CheckRemote performs the MCP handshake with the streamable-HTTP server
// at u, sending headers, within timeout: initialize, the initialized
// notification, then tools/list, as doctor does for a remote entry. It
// returns a summary like [Check]'s, or an error that says which step
// failed.
func CheckRemote(ctx context.Context, u string, headers map[string]string, timeout time.Duration) (string, error) {
	h := handshakeHTTP(ctx, u, headers, timeout)
	if !h.OK {
		return "", fmt.Errorf("the remote server did not pass the handshake check: %s", h.Detail)
	}
	return fmt.Sprintf("%s %s, protocol %s, %s", h.ServerName, h.ServerVersion, h.ProtocolVersion, register.Plural(h.Tools, "tool")), nil
}

// handshakeHTTP is the handshake of [CheckRemote], as doctor reports it.
func handshakeHTTP(ctx context.Context, u string, headers map[string]string, timeout time.Duration) health {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := &httpSession{url: u, headers: headers, client: &http.Client{CheckRedirect: registry.SameHost}}
	fail := func(step string, err error) health {
		var he *httpError
		switch {
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
			return health{Problem: "timed out", Detail: fmt.Sprintf("no answer to %s from %s within %v", step, u, timeout)}
		case errors.As(err, &he):
			return health{Problem: he.problem, Detail: step + ": " + he.msg}
		case errors.Is(err, syscall.ECONNREFUSED):
			return health{Problem: "unreachable", Detail: fmt.Sprintf("%s: nothing listens at %s (connection refused); is the server running?", step, u)}
		}
		var ne net.Error
		var de *net.DNSError
		if errors.As(err, &de) || errors.As(err, &ne) {
			return health{Problem: "unreachable", Detail: fmt.Sprintf("%s: cannot reach %s: %v", step, u, unwrapURLError(err))}
		}
		return health{Problem: "protocol error", Detail: fmt.Sprintf("%s: %v", step, unwrapURLError(err))}
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct{ Name, Version string }
	}
	err := s.call(ctx, 1, "initialize", map[string]any{
		"protocolVersion": remoteRevision, "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "mcpship", "version": "1"},
	}, &init)
	if err != nil {
		return fail("initialize", err)
	}
	if init.ProtocolVersion == "" {
		return health{Problem: "protocol error", Detail: "its answer to initialize has no protocolVersion"}
	}
	s.version = init.ProtocolVersion
	if err := s.call(ctx, 0, "notifications/initialized", nil, nil); err != nil {
		return fail("notifications/initialized", err)
	}
	var tools struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := s.call(ctx, 2, "tools/list", map[string]any{}, &tools); err != nil {
		return fail("tools/list", err)
	}
	s.end()
	return health{OK: true, ProtocolVersion: init.ProtocolVersion, ServerName: init.ServerInfo.Name,
		ServerVersion: init.ServerInfo.Version, Tools: len(tools.Tools)}
}

// An httpError is an answer of the server that ends the check.
type httpError struct{ problem, msg string }

func (e *httpError) Error() string { return e.msg }

// unwrapURLError drops the "Post \"URL\": " that net/http puts before
// the cause.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// httpSession is one MCP session over streamable HTTP.
type httpSession struct {
	url, session, version string
	headers               map[string]string
	client                *http.Client
}

// call sends a request (or, with id 0, a notification) and decodes the
// result into out.
func (s *httpSession) call(ctx context.Context, id int, method string, params, out any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	if id != 0 {
		msg["id"] = id
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range s.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	if s.version != "" {
		req.Header.Set("MCP-Protocol-Version", s.version)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if v := resp.Header.Get("Mcp-Session-Id"); v != "" {
		s.session = v
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return &httpError{"unauthorized", fmt.Sprintf("the server answered %s: it needs credentials that were not given, or refuses the ones given (a header, a bearer token; OAuth is the assistant's to do)", resp.Status)}
	case id == 0 && resp.StatusCode/100 == 2:
		return nil
	case resp.StatusCode != http.StatusOK:
		return &httpError{"protocol error", fmt.Sprintf("the server answered %s", resp.Status)}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/event-stream" {
		data = eventWithID(data, id)
	}
	var reply struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &reply); err != nil || reply.ID != id {
		return fmt.Errorf("the answer is not the JSON-RPC reply to request %d", id)
	}
	if reply.Error != nil {
		return fmt.Errorf("error %d: %s", reply.Error.Code, reply.Error.Message)
	}
	return json.Unmarshal(reply.Result, out)
}

// end ends the session, if the server gave one (DELETE); its answer
// does not matter.
func (s *httpSession) end() {
	if s.session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return
	}
	for k, v := range s.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Mcp-Session-Id", s.session)
	if resp, err := s.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// eventWithID returns the data of the server-sent event that holds the
// reply with id, or nil.
func eventWithID(stream []byte, id int) []byte {
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		var m struct {
			ID *int `json:"id"`
		}
		if json.Unmarshal([]byte(data), &m) == nil && m.ID != nil && *m.ID == id {
			return []byte(data)
		}
	}
	return nil
}

// probeRemote checks the remote entry s of client as the client would
// reach it: its headers, with the client's references to variables
// filled in from this environment (Codex's bearer_token_env_var too).
func probeRemote(ctx context.Context, client string, s installer.Entry, timeout time.Duration) health {
	start := time.Now()
	h := func() health {
		headers, missing := resolveHeaders(client, s)
		if len(missing) > 0 {
			return health{Problem: "not set", Detail: fmt.Sprintf("the entry's headers take %s from the environment, and %s not set here; "+
				"set %s as the client gets %s, and run doctor again", strings.Join(dollar(missing), ", "), isAre(len(missing)), them(len(missing)), them(len(missing)))}
		}
		return handshakeHTTP(ctx, s.URL, headers, timeout)
	}()
	h.Millis = time.Since(start).Milliseconds()
	return h
}

// resolveHeaders returns the headers s sends, with client's references
// to variables replaced by their values, and the variables not set.
func resolveHeaders(client string, s installer.Entry) (map[string]string, []string) {
	var missing []string
	get := func(name string) string {
		v, ok := os.LookupEnv(name)
		if !ok || v == "" {
			missing = append(missing, name)
		}
		return v
	}
	out := map[string]string{}
	a, _ := installer.LookupAssistant(client)
	var prefix, suffix string
	if a != nil {
		prefix, suffix, _ = strings.Cut(a.TokenRef("\x00"), "\x00")
	}
	for k, v := range s.Headers {
		if prefix != "" {
			v = expandRefs(v, prefix, suffix, get)
		}
		out[k] = v
	}
	if s.TokenEnv != "" {
		out["Authorization"] = "Bearer " + get(s.TokenEnv)
	}
	return out, slices.Compact(slices.Sorted(slices.Values(missing)))
}

// expandRefs replaces each prefix+NAME+suffix in v by get(NAME); with no
// suffix ($NAME), the name is the longest run of letters, digits and _.
func expandRefs(v, prefix, suffix string, get func(string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(v, prefix)
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i])
		rest := v[i+len(prefix):]
		n := 0
		if suffix != "" {
			n = strings.Index(rest, suffix)
		} else {
			for n < len(rest) && (rest[n] == '_' || rest[n] >= 'a' && rest[n] <= 'z' || rest[n] >= 'A' && rest[n] <= 'Z' || n > 0 && rest[n] >= '0' && rest[n] <= '9') {
				n++
			}
		}
		if n <= 0 {
			b.WriteString(prefix)
			v = rest
			continue
		}
		b.WriteString(get(rest[:n]))
		v = rest[n+len(suffix):]
	}
}

func dollar(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "$" + n
	}
	return out
}

func isAre(n int) string {
	if n == 1 {
		return "it is"
	}
	return "they are"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
