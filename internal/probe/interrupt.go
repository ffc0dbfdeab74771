package probe

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

// exitInterrupted is the exit status of a command stopped by SIGINT or
// SIGTERM, as a shell gives one stopped by Ctrl-C.
const exitInterrupted = 130

// interruptible runs action with c.Context ending at the first SIGINT or
// SIGTERM: the servers it started are stopped (their process groups
// killed), and it returns an "interrupted" error with status 130. A
// second signal stops the program at once.
func interruptible(action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
		defer stop()
		go func() { <-ctx.Done(); stop() }()
		parent := c.Context
		c.Context = ctx
		defer func() { c.Context = parent }()
		err := action(c)
		if ctx.Err() != nil && parent.Err() == nil {
			return cli.Exit(fmt.Sprintf("%s: interrupted; the servers it started are stopped", c.Command.Name), exitInterrupted)
		}
		return err
	}
}
