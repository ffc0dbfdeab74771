package register

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
	"github.com/mcpship/mcpship/internal/installed"
)

// List returns the "list" command, which shows every assistant's config
// files and the servers registered in them.
func List() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "show every assistant's config files and the servers registered in them",
		ArgsUsage: " ",
		Description: "Values of the servers' environment variables and of remote servers' HTTP headers may be\n" +
			"secrets: they are shown as " + Hidden + " unless --show-env is given; references to variables\n" +
			"(${VAR}, \"Bearer ${TOKEN}\") are shown as they are. A remote server is shown by its URL.",
		Flags:        append(append(CommonFlags(), FilterFlags()...), &cli.BoolFlag{Name: "show-env", Usage: "show the values of the servers' environment variables and headers"}),
		OnUsageError: onUsageError,
		Action:       runList,
	}
}

// listedServer is one server of list: its entry, and what add installed it
// from, if it did.
type listedServer struct {
	installer.Registration
	Installed *installed.Record `json:"installed,omitempty"`
}

// listed is one row of list.
type listed struct {
	Client  string          `json:"client"`
	Scope   installer.Scope `json:"scope"`
	File    string          `json:"file"`
	Exists  bool            `json:"exists"`
	Servers []listedServer  `json:"servers"`
	Error   string          `json:"error,omitempty"`
}

func runList(c *cli.Context) error {
	if err := NoArgs(c); err != nil {
		return err
	}
	clients, scope, env, err := Filters(c)
	if err != nil {
		return err
	}
	state, err := env.StateDir()
	if err != nil {
		return err
	}
	var records []*installed.Record
	if root, err := installed.Root(); err == nil {
		records, _ = installed.All(root) // a server with no record is listed without its origin
	}
	rows := []listed{}
	bad := 0
	for _, cl := range clients {
		for _, s := range cl.Scopes() {
			if scope != "" && s != scope {
				continue
			}
			r := listRow(cl, s, env, state, records, c.Bool("show-env"))
			if r.Error != "" {
				bad++
			}
			rows = append(rows, r)
		}
	}
	if c.Bool("json") {
		if err := PrintJSON(c.App.Writer, rows); err != nil {
			return err
		}
	} else {
		printList(c.App.Writer, rows)
	}
	if bad > 0 {
		return errors.New(Plural(bad, "config file") + " could not be read (see above)")
	}
	return nil
}

// listRow reads the servers of one assistant's config file at scope s,
// their settings masked unless showEnv.
func listRow(cl *installer.Assistant, s installer.Scope, env installer.Env, state string, records []*installed.Record, showEnv bool) listed {
	t, err := cl.Target(env, s)
	if err != nil {
		return listed{Client: cl.Name, Scope: s, Error: err.Error()}
	}
	regs, exists, err := t.Servers(state)
	if !showEnv {
		for i := range regs {
			regs[i].Env = Masked(regs[i].Env)
			regs[i].Headers = MaskedHeaders(regs[i].Headers)
		}
	}
	r := listed{Client: cl.Name, Scope: s, File: t.File, Exists: exists, Servers: []listedServer{}}
	for _, reg := range regs {
		rec := installedAs(records, reg.Entry)
		if rec != nil { // a URL's password is never shown
			shown := *rec
			shown.Source, shown.URL = installed.Redact(rec.Source), installed.Redact(rec.URL)
			rec = &shown
		}
		reg.URL = installed.Redact(reg.URL)
		r.Servers = append(r.Servers, listedServer{Registration: reg, Installed: rec})
	}
	if err != nil {
		r.Error = strings.TrimPrefix(explain(t, err).Error(), cl.Name+" "+string(s)+": ")
	}
	return r
}

// printList writes the rows as text: a line per config file, then one per
// server in it.
func printList(w io.Writer, rows []listed) {
	for _, r := range rows {
		state := fmt.Sprintf("%d servers", len(r.Servers))
		switch {
		case r.Error != "":
			state = "error: " + r.Error
		case !r.Exists:
			state = "no file"
		case len(r.Servers) == 1:
			state = "1 server"
		}
		fmt.Fprintf(w, "%-14s %-7s %s (%s)\n", r.Client, r.Scope, r.File, state)
		for _, s := range r.Servers {
			mark := "      "
			if s.Ours {
				mark = "[ours]"
			}
			fmt.Fprintf(w, "    %s %s %s\n", mark, s.Name, CommandLine(s.Entry))
			if s.Installed != nil {
				fmt.Fprintf(w, "             installed: %s\n", s.Installed.From())
			}
			for _, k := range sortedKeys(s.Env) {
				fmt.Fprintf(w, "             %s=%s\n", k, s.Env[k])
			}
			for _, k := range sortedKeys(s.Headers) {
				fmt.Fprintf(w, "             %s: %s\n", k, s.Headers[k])
			}
			if s.TokenEnv != "" {
				fmt.Fprintf(w, "             bearer token from $%s\n", s.TokenEnv)
			}
		}
	}
}

// Plural says n what, as "1 server" or "2 servers".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// CommandLine shows a server's command for people, quoting words with
// spaces or quotes.
func CommandLine(s installer.Entry) string {
	if s.Command == "" && s.URL != "" {
		return installed.Redact(s.URL) // a remote server
	}
	words := append([]string{s.Command}, s.Args...)
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\"'\\") {
			words[i] = strconv.Quote(w)
		}
	}
	return strings.Join(words, " ")
}

// Hidden stands for the value of an environment variable in list.
const Hidden = "<hidden>"

// Masked returns env with every value hidden but references to
// variables, which hold no secret.
func Masked(env map[string]string) map[string]string {
	if env == nil {
		return nil
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		out[k] = Hidden
		if isRef(v) {
			out[k] = v
		}
	}
	return out
}

// MaskedHeaders returns headers with every value hidden but references
// to variables, after an auth scheme such as "Bearer " that is kept.
func MaskedHeaders(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		scheme, rest, ok := strings.Cut(v, " ")
		switch {
		case isRef(v):
			out[k] = v
		case ok && isRef(rest) && !strings.ContainsAny(scheme, "${}"):
			out[k] = v
		case ok && (strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "Basic") || strings.EqualFold(scheme, "Token")):
			out[k] = scheme + " " + Hidden
		default:
			out[k] = Hidden
		}
	}
	return out
}

// FilterFlags are list's and doctor's --client and --scope: which files
// to look at, all by default.
func FilterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "client", Usage: "only these assistants, comma-separated (default: all)"},
		&cli.StringFlag{Name: "scope", Usage: "only this scope: project, user or local (default: all)"},
	}
}

// Filters returns the assistants and the scope that --client and --scope
// choose (all assistants and "", every scope, by default) and the
// environment of the --project directory.
func Filters(c *cli.Context) ([]*installer.Assistant, installer.Scope, installer.Env, error) {
	clients := installer.Assistants()
	if names := c.String("client"); names != "" {
		clients = nil
		for _, n := range strings.Split(names, ",") {
			cl, err := installer.LookupAssistant(strings.TrimSpace(n))
			if err != nil {
				return nil, "", installer.Env{}, Usagef("%v", err)
			}
			clients = append(clients, cl)
		}
	}
	scope := installer.Scope(c.String("scope"))
	switch scope {
	case "", installer.ScopeProject, installer.ScopeUser, installer.ScopeLocal:
	default:
		return nil, "", installer.Env{}, Usagef("unknown --scope %q: use project, user or local", scope)
	}
	env, err := installer.OSEnv(c.String("project"))
	return clients, scope, env, err
}
