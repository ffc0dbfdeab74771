//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package addcmd

import (
	"fmt"

	"golang.org/x/term"
)

// askSecret asks for a secret without echo.
func (p *prompt) askSecret(label string) (string, error) {
	fmt.Fprintf(p.out, "%s: ", label)
	b, err := term.ReadPassword(int(p.in.Fd()))
	fmt.Fprintln(p.out)
	return string(b), err
}
