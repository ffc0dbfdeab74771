package addcmd

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/mcpship/mcpship/internal/mcpb"
	"github.com/mcpship/mcpship/internal/registry"
)

// configFlag collects repeated --config KEY=VALUE.
type configFlag struct {
	keys []string
	vals map[string][]string
}

func (f *configFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("--config %q: want KEY=VALUE", v)
	}
	if f.vals == nil {
		f.vals = map[string][]string{}
	}
	if _, seen := f.vals[k]; !seen {
		f.keys = append(f.keys, k)
	}
	f.vals[k] = append(f.vals[k], val)
	return nil
}

func (f *configFlag) String() string { return "" }

func configValues(c *cli.Context) *configFlag {
	if f, ok := c.Generic("config").(*configFlag); ok && f != nil {
		return f
	}
	return &configFlag{}
}

// unknownKeys is a usage error for --config keys that are not in known.
func (f *configFlag) unknownKeys(known []string, what string) error {
	for _, k := range f.keys {
		if !slices.Contains(known, k) {
			if len(known) == 0 {
				return usagef("--config %s: the %s takes no settings", k, what)
			}
			return usagef("--config %s: the %s has no such setting; its settings are %s", k, what, strings.Join(registry.Some(known, 20), ", "))
		}
	}
	return nil
}

// A prompt asks for a value on the terminal, if there is one.
type prompt struct {
	in  *os.File
	out io.Writer
	r   *bufio.Reader
}

func newPrompt(c *cli.Context) *prompt {
	f, ok := c.App.Reader.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &prompt{in: f, out: c.App.ErrWriter, r: bufio.NewReader(f)}
}

// ask asks for a value; a secret is read without echo.
func (p *prompt) ask(label string, secret bool) (string, error) {
	if secret {
		return p.askSecret(label)
	}
	fmt.Fprintf(p.out, "%s: ", label)
	return p.line()
}

// line reads one line that the user typed.
func (p *prompt) line() (string, error) {
	line, err := p.r.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// bundleValues returns the values of m's user_config that --config gives,
// typed as the settings say, and asks on a terminal for the required
// ones left without a value or default. Without a terminal, a missing
// required value is an error that says which --config to give.
func bundleValues(c *cli.Context, m *mcpb.Manifest) (map[string]any, error) {
	f := configValues(c)
	keys := make([]string, 0, len(m.UserConfig))
	for k := range m.UserConfig {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if err := f.unknownKeys(keys, "bundle "+m.Name); err != nil {
		return nil, err
	}
	values := map[string]any{}
	var p *prompt
	for _, k := range keys {
		u := m.UserConfig[k]
		raw, given := f.vals[k]
		if !given && u.Required && u.Default == nil {
			if p == nil {
				p = newPrompt(c)
			}
			if p == nil {
				return nil, usagef("the bundle %s needs the setting %s (%s: %s); give it with --config %s=VALUE", m.Name, k, u.Title, u.Description, k)
			}
			v, err := p.ask(fmt.Sprintf("%s (%s)", u.Title, u.Description), u.Sensitive)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", k, err)
			}
			raw, given = []string{v}, true
		}
		if u.Sensitive {
			secretsOf(c).add(raw...)
			if d, ok := u.Default.(string); ok {
				secretsOf(c).add(d)
			}
		}
		if !given {
			continue
		}
		v, err := typed(u, raw)
		if err != nil {
			return nil, usagef("--config %s: %v", k, err)
		}
		values[k] = v
	}
	return values, nil
}

// typed converts the strings given for u to the type u says.
func typed(u mcpb.UserConfig, raw []string) (any, error) {
	if u.Multiple {
		return raw, nil
	}
	if len(raw) > 1 {
		return nil, fmt.Errorf("given %d times, but the setting takes one value", len(raw))
	}
	s := raw[0]
	switch u.Type {
	case "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		if (u.Min != nil && n < *u.Min) || (u.Max != nil && n > *u.Max) {
			return nil, fmt.Errorf("%v is outside %v..%v", n, deref(u.Min), deref(u.Max))
		}
		return n, nil
	case "boolean":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", s)
		}
		return b, nil
	}
	if u.Required && s == "" {
		return nil, fmt.Errorf("the setting is required and cannot be empty")
	}
	return s, nil
}

func deref(p *float64) any {
	if p == nil {
		return "any"
	}
	return *p
}

// inputValues returns the values that --config gives for the inputs
// needs of what (a package or a remote server), and asks on a terminal
// for the required ones with no value or default.
func inputValues(c *cli.Context, needs []registry.Need, what string) (map[string]string, error) {
	f := configValues(c)
	var keys []string
	for _, n := range needs {
		keys = append(keys, n.Key)
		for v := range n.Variables {
			keys = append(keys, v)
		}
	}
	if err := f.unknownKeys(keys, what); err != nil {
		return nil, err
	}
	values := map[string]string{}
	for k, v := range f.vals {
		values[k] = v[len(v)-1]
	}
	var pr *prompt
	for _, n := range needs {
		if values[n.Key] != "" || !n.IsRequired || n.Default != "" {
			continue
		}
		if pr == nil {
			pr = newPrompt(c)
		}
		if pr == nil {
			return nil, usagef("the %s needs the %s %s (%s); give it with --config %s=VALUE", what, n.Kind, registry.Printable(n.Key, 100), registry.Printable(n.Description, 300), registry.Printable(n.Key, 100))
		}
		v, err := pr.ask(fmt.Sprintf("%s (%s)", registry.Printable(n.Key, 100), registry.Printable(n.Description, 300)), n.IsSecret)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", n.Key, err)
		}
		values[n.Key] = v
	}
	sec := secretsOf(c)
	for _, n := range needs {
		if n.IsSecret {
			sec.add(values[n.Key], n.Default)
		}
		for k, in := range n.Variables {
			if in.IsSecret {
				sec.add(values[k], in.Default)
			}
		}
	}
	return values, nil
}
