package addcmd

import (
	"cmp"
	"errors"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/internal/installed"
)

// hidden stands for a secret in what add prints, as in list.
const hidden = "<hidden>"

// secrets are the values of one add that must never be printed: those
// of sensitive settings and secret inputs, and the passwords of URLs.
// Everything add prints goes through [secrets.writer], and its error
// through [secrets.error].
type secrets struct {
	mu     sync.Mutex
	values []string // longest first
}

// add records values as secrets.
func (s *secrets) add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if v != "" && !slices.Contains(s.values, v) {
			s.values = append(s.values, v)
		}
	}
	slices.SortFunc(s.values, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
}

// addURL records the password of the URL u, if it has one.
func (s *secrets) addURL(u string) {
	if pu, err := url.Parse(u); err == nil && pu.User != nil {
		if pw, ok := pu.User.Password(); ok {
			s.add(pw, url.PathEscape(pw), url.QueryEscape(pw))
		}
	}
}

// hide replaces every secret in text with <hidden>.
func (s *secrets) hide(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.values {
		text = strings.ReplaceAll(text, v, hidden)
	}
	return text
}

// record returns what may be recorded of the URL or source u: with its
// password and every secret hidden.
func (s *secrets) record(u string) string { return s.hide(installed.Redact(u)) }

// secretsKey is the key of an add's secrets in its context.
type secretsKey struct{}

// secretsOf returns the secrets of the add c runs.
func secretsOf(c *cli.Context) *secrets {
	if s, ok := c.Context.Value(secretsKey{}).(*secrets); ok {
		return s
	}
	return &secrets{} // not through run: nothing is printed through it
}

// writer returns w with every secret hidden in what is written to it.
// add writes whole lines, so that a secret is never split across writes.
func (s *secrets) writer(w io.Writer) io.Writer { return &hidingWriter{w: w, s: s} }

type hidingWriter struct {
	w io.Writer
	s *secrets
}

func (h *hidingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(h.w, h.s.hide(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// error returns err with every secret hidden, keeping its exit code.
func (s *secrets) error(err error) error {
	if err == nil {
		return nil
	}
	msg := s.hide(err.Error())
	if msg == err.Error() {
		return err
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return cli.Exit(msg, ec.ExitCode())
	}
	return errors.New(msg)
}
