package probe

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"

	"github.com/mcpship/mcpship/internal/clihelp"
	"github.com/mcpship/mcpship/internal/register"
)

// Doctor returns the "doctor" command, which starts registered stdio
// servers and checks that they answer. With p nil it checks every server
// by default; with p, only the one registered under p's name (the app's
// name when p.Name is empty), as init registers it.
func Doctor(p *register.Program) *cli.Command {
	usage := "start the registered MCP servers (and reach the remote ones) and check that they answer"
	nameFlag := &cli.StringFlag{Name: "name", Usage: "only the server with this name"}
	if p != nil {
		usage = "start this program as the assistants would and check that it answers"
		nameFlag.Value = p.Name
		nameFlag.Usage = `only the server with this name, "" for every server`
		if p.Name == "" {
			nameFlag.Usage += " (default: this program's name)"
		}
	}
	return register.Styled(&cli.Command{
		Name:  "doctor",
		Usage: usage,
		Description: "For each stdio server in the assistants' config files, starts it with its environment,\n" +
			"performs the MCP handshake and tools/list within --timeout, in parallel, and reports\n" +
			"ok or why not: not found, exited, timed out, protocol error (with the end of its stderr).\n" +
			"A server that answers is ok; what it logged at level WARN is shown under it (mcpship serve:\n" +
			"a program its tools run that is not on PATH).\n" +
			"A remote server is checked the same way over streamable HTTP, with its headers; a reference to\n" +
			"a variable in them (such as Bearer ${TOKEN}) is filled in from this environment, so set the\n" +
			"variables the client gets. Entries a client does not start or reach (disabled, built into the\n" +
			"client, a Zed extension's, SSE servers) are listed as skipped, with the reason.\n" +
			"Project-scope entries that mcpship did not write, such as those of a repository you cloned,\n" +
			"are not started either unless --name names them or --project-servers is given: starting\n" +
			"them runs the project's commands with your environment.\n" +
			"Exits 1 when a server that was started fails, or when --name names no registered server.",
		ArgsUsage: " ",
		Flags: append(append(register.FilterFlags(),
			nameFlag,
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "time each server has to answer"},
			&cli.IntFlag{Name: "parallel", Value: 4, Usage: "servers checked at once"},
			&cli.BoolFlag{Name: "project-servers", Usage: "also start project-scope servers that mcpship did not write (commands that came with the project)"},
		), register.CommonFlags()...),
		OnUsageError: clihelp.OnUsageError,
		Action: interruptible(func(c *cli.Context) error {
			name := c.String("name")
			if p != nil {
				name = p.ServerName(c)
			}
			return runDoctor(c, name)
		}),
	})
}

// checked is one server doctor found, and what became of it.
type checked struct {
	Client string          `json:"client"`
	Scope  installer.Scope `json:"scope"`
	File   string          `json:"file"`
	Server installer.Entry `json:"server"`
	Status string          `json:"status"`           // "ok", "failed" or "skipped"
	Reason string          `json:"reason,omitempty"` // why it was skipped
	health
	untrusted bool // a project entry mcpship did not write
}

const untrusted = "mcpship did not write this project entry, so it was not started; " +
	"if you trust its command, start it with --name or --project-servers"

const untrustedRemote = "mcpship did not write this project entry, so it was not contacted with the variables its headers name; " +
	"if you trust its URL, check it with --name or --project-servers"

func runDoctor(c *cli.Context, name string) error {
	if err := register.NoArgs(c); err != nil {
		return err
	}
	timeout := c.Duration("timeout")
	if timeout <= 0 || c.Int("parallel") < 1 {
		return register.Usagef("--timeout and --parallel must be positive")
	}
	clients, scope, env, err := register.Filters(c)
	if err != nil {
		return err
	}
	named := name != "" && c.IsSet("name") // by the user, not as the program's default
	regs, known, unreadable, err := register.Registered(c, env, clients, scope, name)
	if err != nil {
		return err
	}
	gemini := sync.OnceValue(func() string { return geminiUntrusted(env.ProjectDir) })
	var rows []*checked
	for _, r := range regs {
		row := &checked{Client: r.Client, Scope: r.Scope, File: r.File, Server: r.Entry}
		switch why := r.NotStdio(); {
		case row.remote() && r.Type == "sse":
			row.Status, row.Reason = "skipped", "a remote server at "+r.URL+" that speaks the older SSE transport, which doctor does not check"
		case why != "" && !row.remote():
			row.Status, row.Reason = "skipped", why
		case r.Client == "gemini" && gemini() != "":
			// Gemini CLI starts no server, not even a user one, in a folder
			// it does not trust.
			row.Status, row.Reason = "skipped", gemini()
		case r.Scope == installer.ScopeProject && !r.Recorded && !named && !c.Bool("project-servers"):
			// A file that came with the project, such as a clone.
			row.Status, row.Reason, row.untrusted = "skipped", untrusted, true
			if row.remote() {
				row.Reason = untrustedRemote
			}
		}
		rows = append(rows, row)
	}

	probeAll(c.Context, rows, env.ProjectDir, timeout, c.Int("parallel"))
	failed, skipped := 0, 0
	for _, r := range rows {
		// What looks secret is hidden wherever it shows: in the arguments,
		// and in the server's stderr, which often echoes them.
		sec := register.Secrets(r.Server)
		r.Stderr, r.Detail = register.Hide(r.Stderr, sec), register.Hide(r.Detail, sec)
		for i := range r.Warnings {
			r.Warnings[i] = register.Hide(r.Warnings[i], sec)
		}
		r.Server.Args = slices.Clone(r.Server.Args)
		for i := range r.Server.Args {
			r.Server.Args[i] = register.Hide(r.Server.Args[i], sec)
		}
		r.Server.Env = register.Masked(r.Server.Env) // as list shows them
		r.Server.Headers = register.MaskedHeaders(r.Server.Headers)
		switch r.Status {
		case "failed":
			failed++
		case "skipped":
			skipped++
		}
	}
	w := c.App.Writer
	if c.Bool("json") {
		if rows == nil {
			rows = []*checked{}
		}
		if err := register.PrintJSON(w, rows); err != nil {
			return err
		}
	} else {
		printDoctor(c, rows, name)
	}
	switch {
	case len(rows) == 0 && named:
		return register.NotRegistered(name, known)
	case failed > 0:
		return fmt.Errorf("%d of %s failed the check", failed, register.Plural(len(rows)-skipped, "server"))
	case unreadable > 0:
		return fmt.Errorf("%s could not be read", register.Plural(unreadable, "config file"))
	}
	return nil
}

// remote reports whether the row is a remote server, which doctor checks
// over HTTP: one with a URL that the client does not start (no command,
// or a type such as "http"), not disabled.
func (r *checked) remote() bool {
	return r.Server.URL != "" && r.Server.NotStdio() == "a remote server at "+r.Server.URL
}

// probeAll probes the rows not skipped, parallel at a time.
func probeAll(ctx context.Context, rows []*checked, dir string, timeout time.Duration, parallel int) {
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, r := range rows {
		if r.Status != "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if r.remote() {
				r.health = probeRemote(ctx, r.Client, r.Server, timeout)
			} else {
				r.health = probe(ctx, r.Server, dir, timeout, nil)
			}
			r.Status = "failed"
			if r.OK {
				r.Status = "ok"
			}
		}()
	}
	wg.Wait()
}

func printDoctor(c *cli.Context, rows []*checked, name string) {
	w := c.App.Writer
	switch {
	case len(rows) == 0 && name != "" && c.IsSet("name"):
		return // the error says which names there are
	case len(rows) == 0 && name != "":
		fmt.Fprintf(w, "No MCP server named %q is registered here. Register it with '%s init'.\n", name, c.App.Name)
		return
	case len(rows) == 0:
		fmt.Fprintf(w, "No MCP servers are registered here. Register one with '%s init'.\n", c.App.Name)
		return
	}
	head := ""
	count := map[string]int{}
	for _, r := range rows {
		count[r.Status]++
		if h := fmt.Sprintf("%s %s: %s", r.Client, r.Scope, r.File); h != head {
			head = h
			fmt.Fprintln(w, h)
		}
		switch r.Status {
		case "ok":
			fmt.Fprintf(w, "  ok      %s: %s %s, protocol %s, %s, %d ms\n", r.Server.Name, r.ServerName, r.ServerVersion,
				r.ProtocolVersion, register.Plural(r.Tools, "tool"), r.Millis)
			for _, warning := range r.Warnings {
				fmt.Fprintf(w, "          warning: %s\n", warning)
			}
			continue
		case "skipped":
			fmt.Fprintf(w, "  skipped %s: %s\n", r.Server.Name, r.Reason)
			if r.untrusted && r.remote() {
				fmt.Fprintf(w, "          url: %s\n", r.Server.URL)
			} else if r.untrusted {
				fmt.Fprintf(w, "          command: %s\n", register.CommandLine(r.Server))
			}
			continue
		}
		fmt.Fprintf(w, "  FAILED  %s: %s: %s\n", r.Server.Name, r.Problem, r.Detail)
		if r.remote() {
			fmt.Fprintf(w, "          url: %s\n", r.Server.URL)
			continue
		}
		fmt.Fprintf(w, "          command: %s\n", register.CommandLine(r.Server))
		if r.Stderr != "" {
			for _, line := range lastLines(r.Stderr, 5) {
				fmt.Fprintf(w, "          stderr: %s\n", line)
			}
		}
	}
	fmt.Fprintf(w, "%s checked: %d ok, %d failed", register.Plural(count["ok"]+count["failed"], "server"), count["ok"], count["failed"])
	if count["skipped"] > 0 {
		fmt.Fprintf(w, "; %d skipped", count["skipped"])
	}
	fmt.Fprintln(w)
}

func lastLines(s string, n int) []string {
	lines := strings.Split(s, "\n")
	return lines[max(0, len(lines)-n):]
}
