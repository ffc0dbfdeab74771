package registercmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
)

// List returns the "list" command, which shows every assistant's config
// files and the servers registered in them.
func List() *cli.Command {
	return &cli.Command{
		Name:         "list",
		Usage:        "show every assistant's config files and the servers registered in them",
		ArgsUsage:    " ",
		Flags:        commonFlags(),
		OnUsageError: onUsageError,
		Action:       runList,
	}
}

// listed is one row of list.
type listed struct {
	Client  string                   `json:"client"`
	Scope   installer.Scope          `json:"scope"`
	File    string                   `json:"file"`
	Exists  bool                     `json:"exists"`
	Servers []installer.Registration `json:"servers"`
	Error   string                   `json:"error,omitempty"`
}

func runList(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	env, err := installer.OSEnv(c.String("project"))
	if err != nil {
		return err
	}
	state, err := env.StateDir()
	if err != nil {
		return err
	}
	rows := []listed{}
	bad := 0
	for _, cl := range installer.Clients() {
		for _, s := range cl.Scopes() {
			t, err := cl.Target(env, s)
			if err != nil {
				rows = append(rows, listed{Client: cl.Name, Scope: s, Error: err.Error()})
				bad++
				continue
			}
			regs, exists, err := t.Servers(state)
			r := listed{Client: cl.Name, Scope: s, File: t.File, Exists: exists, Servers: regs}
			if err != nil {
				r.Error = err.Error()
				bad++
			}
			if r.Servers == nil {
				r.Servers = []installer.Registration{}
			}
			rows = append(rows, r)
		}
	}
	w := c.App.Writer
	if c.Bool("json") {
		if err := printJSON(w, rows); err != nil {
			return err
		}
	} else {
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
				fmt.Fprintf(w, "    %s %s %s\n", mark, s.Name, commandLine(s.Server))
			}
		}
	}
	if bad > 0 {
		return errors.New(plural(bad, "config file") + " could not be read (see above)")
	}
	return nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// commandLine shows a server's command for people, quoting words with
// spaces or quotes.
func commandLine(s installer.Server) string {
	words := append([]string{s.Command}, s.Args...)
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\"'\\") {
			words[i] = strconv.Quote(w)
		}
	}
	return strings.Join(words, " ")
}
