package installer

import (
	"fmt"
	"maps"
)

// The remote (HTTP) entries: what an Entry with a URL and no command
// becomes in each client's file. Sources: each client's documentation or
// source (docs/register.md, "Remote servers").

// A remoteShape says how a client's file holds a remote server.
type remoteShape struct {
	// no, if set, says why mcpship writes no remote entry for the client;
	// the other fields are then unused.
	no string

	url  string // key of the streamable-HTTP URL: url, httpUrl, serverUrl, uri
	typ  string // its "type", or "" for none
	name bool   // the entry repeats its name first (Goose, Continue)

	// sseURL and sseType are the same for the older SSE transport;
	// sseURL "" means the client's file cannot hold an SSE server.
	sseURL, sseType string

	headers string // key of the headers: headers, http_headers; "" if none
	// ref writes a reference to the environment variable name that the
	// client expands in header values; nil if it expands none.
	ref func(name string) string
	// tokenKey, if set, is the key whose value names the variable that
	// holds the bearer token (Codex's bearer_token_env_var), used instead
	// of an Authorization header.
	tokenKey string

	last []field // written after the rest, such as "enabled": true
}

func dollarBrace(name string) string { return "${" + name + "}" }
func envColon(name string) string    { return "${env:" + name + "}" }

// detects, as a remoteShape's sseURL, says the client tells the two
// transports apart itself, from the same entry.
const detects = "\x00"

// The shapes, by client.
var (
	claudeRemote  = remoteShape{url: "url", typ: "http", sseURL: "url", sseType: "sse", headers: "headers", ref: dollarBrace}
	vscodeRemote  = remoteShape{url: "url", typ: "http", sseURL: "url", sseType: "sse", headers: "headers", ref: envColon}
	copilotRemote = remoteShape{url: "url", typ: "http", sseURL: "url", sseType: "sse", headers: "headers", ref: dollarBrace,
		last: []field{{"tools", []string{"*"}}}}
	cursorRemote   = remoteShape{url: "url", sseURL: detects, headers: "headers", ref: envColon}
	geminiRemote   = remoteShape{url: "httpUrl", sseURL: "url", headers: "headers", ref: dollarBrace}
	windsurfRemote = remoteShape{url: "serverUrl", sseURL: detects, headers: "headers", ref: envColon}
	// Antigravity's guide writes variables as $NAME in headers.
	antigravityRemote = remoteShape{url: "serverUrl", headers: "headers", ref: func(n string) string { return "$" + n }}
	codexRemote       = remoteShape{url: "url", headers: "http_headers", tokenKey: "bearer_token_env_var"}
	clineRemote       = remoteShape{url: "url", typ: "streamableHttp", sseURL: "url", sseType: "sse", headers: "headers",
		last: []field{{"disabled", false}}}
	rooRemote      = remoteShape{url: "url", typ: "streamable-http", sseURL: "url", sseType: "sse", headers: "headers", ref: envColon}
	zedRemote      = remoteShape{url: "url", headers: "headers"}
	opencodeRemote = remoteShape{url: "url", typ: "remote", sseURL: detects, headers: "headers",
		ref: func(n string) string { return "{env:" + n + "}" }, last: []field{{"enabled", true}}}
	gooseRemote = remoteShape{url: "uri", typ: "streamable_http", name: true, sseURL: "uri", sseType: "sse", headers: "headers",
		last: []field{{"enabled", true}, {"timeout", 300}}}
	kiroRemote     = remoteShape{url: "url", sseURL: detects, headers: "headers", ref: dollarBrace}
	lmstudioRemote = remoteShape{url: "url", headers: "headers"}
	continueRemote = remoteShape{url: "url", typ: "streamable-http", name: true, sseURL: "url", sseType: "sse"}

	claudeDesktopRemote = remoteShape{no: "Claude Desktop reads no remote servers from its config file; add one in the app " +
		"(Settings, Connectors), or give it a local command"}
	amazonqRemote = remoteShape{no: "Amazon Q Developer's mcp.json holds local commands only; Kiro, its successor, " +
		"takes remote servers (--client kiro)"}
)

// A RemoteError says that a client's file cannot hold a remote server as
// asked, and why.
type RemoteError struct {
	Client string // the client's name, such as "zed"
	Why    string
}

// Error returns the reason, e.Why.
func (e *RemoteError) Error() string { return e.Why }

// fields returns the entry c writes for s: its remote shape when s is a
// remote server, else its stdio shape.
func (c *Assistant) fields(s Entry) ([]field, error) {
	if s.Command != "" || s.URL == "" {
		return c.shape(s), nil
	}
	r := c.remote
	refuse := func(format string, args ...any) ([]field, error) {
		return nil, &RemoteError{Client: c.Name, Why: fmt.Sprintf(format, args...)}
	}
	if r.no != "" {
		return refuse("%s", r.no)
	}
	key, typ := r.url, r.typ
	if s.Type == "sse" {
		switch r.sseURL {
		case "":
			return refuse("%s reads no servers of the older SSE transport from its config file, only streamable HTTP", c.Title)
		case detects:
		default:
			key, typ = r.sseURL, r.sseType
		}
	}
	var e []field
	if r.name {
		e = append(e, field{"name", s.Name})
	}
	if typ != "" {
		e = append(e, field{"type", typ})
	}
	e = append(e, field{key, s.URL})
	headers := maps.Clone(s.Headers)
	if s.TokenEnv != "" {
		switch {
		case r.tokenKey != "":
			e = append(e, field{r.tokenKey, s.TokenEnv})
		case r.ref == nil:
			return refuse("%s expands no environment variables in its config file, so the token in $%s cannot be referenced there, "+
				"and mcpship does not write its value; use another client, or give the header yourself with --header if the token may be in the file",
				c.Title, s.TokenEnv)
		default:
			if headers == nil {
				headers = map[string]string{}
			}
			headers["Authorization"] = "Bearer " + r.ref(s.TokenEnv)
		}
	}
	if len(headers) > 0 {
		if r.headers == "" {
			return refuse("mcpship does not know where %s takes HTTP headers in its config file; add the server without headers, or in %s itself",
				c.Title, c.Title)
		}
		e = append(e, field{r.headers, envFields(headers)})
	}
	return append(e, r.last...), nil
}

// TokenRef returns how c's config file refers to the environment
// variable name in an HTTP header, such as "${TOKEN}" for Claude Code, or
// "" when c expands no variables there. Codex, which names the variable
// of a bearer token in a key of its own, returns "".
func (c *Assistant) TokenRef(name string) string {
	if c.remote.ref == nil {
		return ""
	}
	return c.remote.ref(name)
}

// Check reports what keeps c's config files from holding s, as [Target.Add]
// would: an entry that cannot be written, or a remote server that c's
// files cannot hold as given (a [*RemoteError]).
func (c *Assistant) Check(s Entry) error {
	if err := s.check(); err != nil {
		return err
	}
	_, err := c.fields(s)
	return err
}
