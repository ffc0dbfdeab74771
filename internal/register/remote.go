package register

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/internal/loopback"
)

// remoteServer builds the remote server of init --url: its address, the
// headers of --header and the token variable of --bearer-token-env.
func (p Program) remoteServer(c *cli.Context, s installer.Entry) (installer.Entry, error) {
	var flags []string
	if c.NArg() > 0 {
		return s, Usagef("--url registers a remote server; it cannot be used with a command after --")
	}
	for _, f := range append([]cli.Flag{&cli.StringFlag{Name: "env"}, &cli.StringFlag{Name: "command"}}, p.Flags...) {
		if n := f.Names()[0]; c.IsSet(n) {
			flags = append(flags, "--"+n)
		}
	}
	if len(flags) > 0 {
		return s, Usagef("%s %s for a command the client starts; a remote server (--url) takes only --header and --bearer-token-env",
			strings.Join(flags, ", "), plural2(len(flags), "is", "are"))
	}
	u, err := checkURL(c.String("url"))
	if err != nil {
		return s, err
	}
	s.URL = u
	for _, h := range *c.Generic("header").(*listValue) {
		k, v, ok := strings.Cut(h, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case strings.ContainsAny(h, "\r\n"):
			return s, Usagef("--header %q holds a line break; give one header per --header, as \"NAME: VALUE\"", h)
		case !ok || k == "":
			return s, Usagef("--header %q: want \"NAME: VALUE\", such as \"X-Api-Version: 2\"", h)
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		if _, dup := s.Headers[k]; dup {
			return s, Usagef("--header %s is given twice; give each header once", k)
		}
		s.Headers[k] = v
	}
	if c.IsSet("bearer-token-env") {
		s.TokenEnv = strings.TrimPrefix(c.String("bearer-token-env"), "$")
		for k := range s.Headers {
			if strings.EqualFold(k, "Authorization") {
				return s, Usagef("--header %s and --bearer-token-env both set the Authorization header; give one of them", k)
			}
		}
	}
	// The rest of the entry's checks (header names, the variable's name)
	// are the installer's, as for every client.
	if err := s.Check(); err != nil {
		return s, Usagef("%v", err)
	}
	return s, nil
}

func isRemote(err error) bool {
	_, ok := err.(*installer.RemoteError)
	return ok
}

// checkURL checks the address of init --url: an absolute http or https
// URL with a host, without credentials in it; plain http only to this
// machine (loopback), since anything else sends the headers and the
// token in the clear.
func checkURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return "", Usagef("--url is empty: give the server's address, such as https://example.com/mcp")
	case err != nil:
		return "", Usagef("--url %q is not a URL: %v", raw, strings.TrimPrefix(err.Error(), "parse \""+raw+"\": "))
	case u.Scheme != "http" && u.Scheme != "https":
		return "", Usagef("--url %q: want an http:// or https:// address, such as https://example.com/mcp", raw)
	case u.Host == "" || u.Hostname() == "":
		return "", Usagef("--url %q has no host: want an address such as https://example.com/mcp", raw)
	case u.User != nil:
		return "", Usagef("--url %q holds credentials, which would be written in plain text; "+
			"leave them out and give the token with --bearer-token-env (or a header with --header)", u.Redacted())
	case u.Scheme == "http" && !loopback.Host(u.Hostname()):
		return "", Usagef("--url %q is plain http to another machine, which sends requests and tokens unencrypted; "+
			"use https://, or http:// to this machine only (localhost, 127.0.0.1, [::1])", raw)
	}
	return u.String(), nil
}

// initRemote registers the remote server s in targets. Every target is
// checked first: a client whose file cannot hold s changes nothing
// anywhere (with --all, it is passed over with a note).
func initRemote(tt Targets, o installer.Options, targets []*installer.Target, s installer.Entry) error {
	var ok []*installer.Target
	var refused []string
	for _, t := range targets {
		if err := t.Assistant.Check(s); err != nil {
			if tt.All && isRemote(err) {
				fmt.Fprintf(tt.Stderr, "%s: %s %s passed over: %v\n", tt.Program, t.Assistant.Name, t.Scope, err)
				continue
			}
			refused = append(refused, fmt.Sprintf("%s: %v", t.Assistant.Name, err))
			continue
		}
		ok = append(ok, t)
	}
	switch {
	case len(refused) > 0:
		msg := strings.Join(refused, "\n")
		if len(targets) > 1 {
			msg += "\nnothing was written; leave those clients out of --client"
		}
		return cli.Exit(msg, 1)
	case len(ok) == 0:
		return fmt.Errorf("none of the clients found takes this remote server (see above); name one with --client")
	}
	warnings := map[*installer.Target][]string{}
	for _, t := range ok {
		if t.Scope == installer.ScopeProject {
			warnings[t] = secretWarnings(t, s)
		}
	}
	return each(tt, ok, s.Name, warnings, func(t *installer.Target) (*installer.Change, error) {
		return t.Add(s, o)
	})
}

func plural2(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
