package addcmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/mcpship/mcpship/internal/registry"
)

// remoteRevision is the MCP revision checkRemote asks for.
const remoteRevision = "2025-06-18"

// checkRemote performs the MCP handshake with the streamable-HTTP server
// at u, sending headers, within timeout: initialize, the initialized
// notification, then tools/list. It returns a summary like
// register.Check's, or an error that says which step failed.
func checkRemote(ctx context.Context, u string, headers map[string]string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := &httpSession{url: u, headers: headers, client: &http.Client{CheckRedirect: registry.SameHost}}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct{ Name, Version string }
	}
	err := s.call(ctx, 1, "initialize", map[string]any{
		"protocolVersion": remoteRevision, "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "mcpship-add", "version": "1"},
	}, &init)
	if err != nil {
		return "", fmt.Errorf("the remote server did not pass the handshake check: initialize: %w", err)
	}
	if init.ProtocolVersion == "" {
		return "", errors.New("the remote server did not pass the handshake check: its answer to initialize has no protocolVersion")
	}
	s.version = init.ProtocolVersion
	if err := s.call(ctx, 0, "notifications/initialized", nil, nil); err != nil {
		return "", fmt.Errorf("the remote server did not pass the handshake check: notifications/initialized: %w", err)
	}
	var tools struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := s.call(ctx, 2, "tools/list", map[string]any{}, &tools); err != nil {
		return "", fmt.Errorf("the remote server did not pass the handshake check: tools/list: %w", err)
	}
	return fmt.Sprintf("%s %s, protocol %s, %d tools", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion, len(tools.Tools)), nil
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
		return fmt.Errorf("the server answered %s: it needs credentials mcpship did not give (headers go with --config NAME=VALUE; OAuth is the assistant's to do)", resp.Status)
	case id == 0 && resp.StatusCode/100 == 2:
		return nil
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the server answered %s", resp.Status)
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
