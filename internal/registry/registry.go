// Package registry reads server descriptions (server.json) from an MCP
// registry through its public read API, version v0.1: the official one at
// [DefaultURL] or any registry that implements the same API.
//
// [Client.Server] fetches one version of a server and checks that the
// answer is the server asked for. [Server.Choose] picks the package that
// can run here, and [Package.Launch] turns it into the command that starts
// it, with the values of its inputs filled in.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpship/mcpship/internal/loopback"
)

// DefaultURL is the official MCP registry.
const DefaultURL = "https://registry.modelcontextprotocol.io"

// maxAnswer caps the size of an answer the client reads. A server.json
// is a few kilobytes; the official registry refuses descriptions over
// 100 characters and caps what it stores.
const maxAnswer = 4 << 20

// A Client reads from one registry.
type Client struct {
	// BaseURL is the registry's address, such as DefaultURL; it must be
	// https, or http on a loopback address.
	BaseURL string
	// HTTP sends the requests; nil means a client with a 30 s timeout
	// that follows no redirect to another host.
	HTTP *http.Client
}

// A Response is the registry's answer for one version of a server: the
// author's server.json and what the registry says about it.
type Response struct {
	Server Server `json:"server"`
	Meta   struct {
		Official *Official `json:"io.modelcontextprotocol.registry/official,omitempty"`
	} `json:"_meta"`
}

// Official is the official registry's metadata about a server version.
type Official struct {
	Status        string    `json:"status"` // "active", "deprecated" or "deleted"
	StatusMessage string    `json:"statusMessage,omitempty"`
	PublishedAt   time.Time `json:"publishedAt,omitzero"`
	UpdatedAt     time.Time `json:"updatedAt,omitzero"`
	IsLatest      bool      `json:"isLatest"`
}

// A Server is a server.json: one version of a server and the ways to run it.
type Server struct {
	Name        string      `json:"name"` // reverse-DNS, such as io.github.owner/server
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Transport `json:"remotes,omitempty"`
}

// A Package is one way to get and run a server locally.
type Package struct {
	// RegistryType is where the package lives: "mcpb" (a bundle at the
	// URL Identifier), "npm", "pypi", "oci", "nuget", "cargo", "go".
	RegistryType         string     `json:"registryType"`
	RegistryBaseURL      string     `json:"registryBaseUrl,omitempty"`
	Identifier           string     `json:"identifier"`
	Version              string     `json:"version,omitempty"`
	FileSHA256           string     `json:"fileSha256,omitempty"` // required for mcpb
	RuntimeHint          string     `json:"runtimeHint,omitempty"`
	Transport            Transport  `json:"transport"`
	RuntimeArguments     []Argument `json:"runtimeArguments,omitempty"`
	PackageArguments     []Argument `json:"packageArguments,omitempty"`
	EnvironmentVariables []Variable `json:"environmentVariables,omitempty"`
}

// A Transport is how a client talks to the server: "stdio", or
// "streamable-http" or "sse" at URL.
type Transport struct {
	Type      string           `json:"type"`
	URL       string           `json:"url,omitempty"`
	Headers   []Variable       `json:"headers,omitempty"`
	Variables map[string]Input `json:"variables,omitempty"`
}

// An Input is a value the user may have to give: its description, and
// either a fixed Value or a Default.
type Input struct {
	Description string           `json:"description,omitempty"`
	IsRequired  bool             `json:"isRequired,omitempty"`
	Format      string           `json:"format,omitempty"` // string, number, boolean, filepath
	Value       string           `json:"value,omitempty"`  // fixed; {name} refers to Variables
	IsSecret    bool             `json:"isSecret,omitempty"`
	Default     string           `json:"default,omitempty"`
	Placeholder string           `json:"placeholder,omitempty"`
	Choices     []string         `json:"choices,omitempty"`
	Variables   map[string]Input `json:"variables,omitempty"`
}

// A Variable is an environment variable or a header.
type Variable struct {
	Input
	Name string `json:"name"`
}

// An Argument is one command-line argument: "positional", or "named"
// (Name, then the value).
type Argument struct {
	Input
	Type       string `json:"type"`
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
}

// Server returns version of the server called name; version "" or
// "latest" is the newest. It refuses an answer about another server or
// version, and a version the registry marks deleted.
func (c *Client) Server(ctx context.Context, name, version string) (*Response, error) {
	if version == "" {
		version = "latest"
	}
	base, err := c.base()
	if err != nil {
		return nil, err
	}
	u := base + "/v0.1/servers/" + url.PathEscape(name) + "/versions/" + url.PathEscape(version)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking the registry %s for %s: %w", base, name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("reading the registry's answer from %s: %w", u, err)
	}
	if len(body) > maxAnswer {
		return nil, fmt.Errorf("the registry's answer from %s is over %d MiB; refusing it", u, maxAnswer>>20)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		msg := resp.Status
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			msg += ": " + e.Error
		}
		if resp.StatusCode == http.StatusNotFound {
			return nil, fmt.Errorf("the registry %s has no server %s version %s (%s); check the name (reverse-DNS, such as io.github.owner/server) and the version", base, name, version, msg)
		}
		return nil, fmt.Errorf("the registry %s answered %s for %s", base, msg, u)
	}
	var r Response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the registry's answer from %s is not a server description: %v", u, err)
	}
	switch {
	case r.Server.Name != name:
		return nil, fmt.Errorf("asked the registry %s for %s, it answered with %q; refusing the answer", base, name, r.Server.Name)
	case version != "latest" && r.Server.Version != version:
		return nil, fmt.Errorf("asked the registry %s for %s version %s, it answered with version %q; refusing the answer", base, name, version, r.Server.Version)
	case r.Server.Version == "":
		return nil, fmt.Errorf("the registry's answer for %s has no version", name)
	case !versionText.match(r.Server.Version):
		return nil, fmt.Errorf("the registry's answer for %s gives the version %q, which is not a version; refusing the answer", name, cut(r.Server.Version, 100))
	case r.Meta.Official != nil && r.Meta.Official.Status == "deleted":
		return nil, fmt.Errorf("the registry %s marks %s version %s deleted%s", base, name, r.Server.Version, because(r.Meta.Official.StatusMessage))
	}
	return &r, nil
}

func because(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// base returns the registry's address without a trailing slash, after
// checking that it is https (or http on loopback).
func (c *Client) base() (string, error) {
	b := c.BaseURL
	if b == "" {
		b = DefaultURL
	}
	u, err := url.Parse(b)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("registry address %q is not a URL such as %s", b, DefaultURL)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback.Host(u.Hostname())) {
		return "", fmt.Errorf("registry address %q must start with https:// (http:// is allowed only on this machine's loopback address)", b)
	}
	return strings.TrimRight(b, "/"), nil
}

func (c *Client) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 30 * time.Second, CheckRedirect: SameHost}
}

// SameHost is an [http.Client] CheckRedirect that follows up to 5
// redirects on the host of the first request, and no redirect from https
// to http; GitHub's release downloads may also go on to its own download
// hosts (*.githubusercontent.com).
func SameHost(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	switch {
	case len(via) > 5:
		return errors.New("more than 5 redirects")
	case first.Scheme == "https" && req.URL.Scheme != "https":
		return fmt.Errorf("refusing the redirect from %s to %s: it leaves https", first, req.URL)
	case req.URL.Host == first.Host:
		return nil
	case first.Hostname() == "github.com" && strings.HasSuffix(req.URL.Hostname(), ".githubusercontent.com"):
		return nil
	}
	return fmt.Errorf("refusing the redirect from %s to another host, %s", first.Host, req.URL.Host)
}
