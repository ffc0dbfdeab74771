//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package addcmd

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// askSecret asks for a secret with the terminal's echo turned off before
// the prompt is shown, so that nothing typed once it is seen is echoed,
// however soon.
func (p *prompt) askSecret(label string) (string, error) {
	fd := int(p.in.Fd())
	old, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return "", fmt.Errorf("reading the terminal's settings: %w", err)
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	quiet.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, setTermios, &quiet); err != nil {
		return "", fmt.Errorf("turning the terminal's echo off: %w", err)
	}
	defer unix.IoctlSetTermios(fd, setTermios, old)
	fmt.Fprintf(p.out, "%s: ", label)
	line, err := p.line()
	fmt.Fprintln(p.out)
	return line, err
}
