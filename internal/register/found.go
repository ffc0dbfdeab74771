package register

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
)

// What list shares with doctor, tools and call (package probe): the
// servers registered in the files that --client and --scope choose.

// A Found is a server registered in one of the files that --client and
// --scope choose: its client, scope and file.
type Found struct {
	installer.Registration
	Client string
	Scope  installer.Scope
	File   string
}

// Registered returns the servers registered under name ("" for every
// server) in the files of clients in scope ("" for every scope), the names
// of all the servers registered there, and how many files could not be
// read; each of those is reported on standard error.
func Registered(c *cli.Context, env installer.Env, clients []*installer.Assistant, scope installer.Scope, name string) (regs []Found, known []string, unreadable int, err error) {
	state, err := env.StateDir()
	if err != nil {
		return nil, nil, 0, err
	}
	names := map[string]bool{}
	for _, cl := range clients {
		for _, s := range cl.Scopes() {
			if scope != "" && s != scope {
				continue
			}
			t, err := cl.Target(env, s)
			if err != nil {
				continue // this scope does not exist on this OS
			}
			rs, _, err := t.Servers(state)
			if err != nil {
				fmt.Fprintf(c.App.ErrWriter, "%s: %v\n", c.App.Name, err)
				unreadable++
				continue
			}
			for _, r := range rs {
				names[r.Name] = true
				if name == "" || r.Name == name {
					regs = append(regs, Found{Registration: r, Client: cl.Name, Scope: s, File: t.File})
				}
			}
		}
	}
	return regs, slices.Sorted(maps.Keys(names)), unreadable, nil
}

// NotRegistered is the error for a --name that names no registered
// server; known are the names that are registered.
func NotRegistered(name string, known []string) error {
	if len(known) == 0 {
		return fmt.Errorf("no server named %q: no MCP servers are registered here", name)
	}
	return fmt.Errorf("no server named %q is registered here; the registered ones are: %s", name, strings.Join(known, ", "))
}
