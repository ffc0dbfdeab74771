package installer

import "fmt"

// The remote (HTTP) entries of the clients that document one, written
// when an Entry has a URL and no command. Sources: each client's
// documentation (docs/register.md, "Remote servers").

// httpType is the "type" of a remote entry: "sse" for the older SSE
// transport, else "http" (streamable HTTP).
func httpType(s Entry) string {
	if s.Type == "sse" {
		return "sse"
	}
	return "http"
}

func withHeaders(e []field, key string, s Entry) []field {
	if len(s.Headers) > 0 {
		e = append(e, field{key, envFields(s.Headers)})
	}
	return e
}

// typedRemote is {"type": "http" or "sse", "url", "headers"} (Claude
// Code, VS Code).
func typedRemote(s Entry) []field {
	return withHeaders([]field{{"type", httpType(s)}, {"url", s.URL}}, "headers", s)
}

// urlRemote is {"url", "headers"} (Cursor, which tells the transports
// apart itself).
func urlRemote(s Entry) []field {
	return withHeaders([]field{{"url", s.URL}}, "headers", s)
}

// geminiRemote is {"httpUrl"} for streamable HTTP, {"url"} for SSE.
func geminiRemote(s Entry) []field {
	key := "httpUrl"
	if s.Type == "sse" {
		key = "url"
	}
	return withHeaders([]field{{key, s.URL}}, "headers", s)
}

// windsurfRemote is {"serverUrl", "headers"}.
func windsurfRemote(s Entry) []field {
	return withHeaders([]field{{"serverUrl", s.URL}}, "headers", s)
}

// codexRemote is url and http_headers; Codex speaks streamable HTTP only.
func codexRemote(s Entry) []field {
	if s.Type == "sse" {
		return nil
	}
	return withHeaders([]field{{"url", s.URL}}, "http_headers", s)
}

// fields returns the entry c writes for s: its remote shape when s is a
// remote server, else its stdio shape.
func (c *Assistant) fields(s Entry) ([]field, error) {
	if s.Command != "" || s.URL == "" {
		return c.shape(s), nil
	}
	var e []field
	if c.remote != nil {
		e = c.remote(s)
	}
	if e == nil {
		kind := "remote servers"
		if s.Type == "sse" {
			kind = "remote SSE servers"
		}
		return nil, fmt.Errorf("mcpship does not know how %s reads %s from its config file; add %s with %s's own settings", c.Title, kind, s.URL, c.Title)
	}
	return e, nil
}
