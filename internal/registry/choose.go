package registry

import (
	"cmp"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcpship/mcpship/internal/loopback"
)

// Launchers are the programs that run each kind of package that
// [Package.Launch] can start, by RegistryType.
var Launchers = map[string]string{"npm": "npx", "pypi": "uvx", "oci": "docker"}

// Choose returns the package to install on goos/goarch (values of
// runtime.GOOS and runtime.GOARCH): an mcpb bundle for this platform
// first, then an npm, PyPI or OCI package whose launcher (see Launchers)
// have reports installed. Only packages spoken to over stdio qualify.
// The error says why each package was passed over. A server may also
// (or only) be reachable as a remote server: see [Server.Remote].
//
// server.json has no platform field, so a bundle's platform is read from
// the words of its file name: linux, darwin (or macos, mac, osx),
// windows (or win32, win64) and amd64 (x64, x86_64), arm64 (aarch64),
// 386 (x86, i386). A bundle whose name has no such word runs anywhere; its
// manifest's compatibility is checked once it is downloaded.
func (s *Server) Choose(goos, goarch string, have func(launcher string) bool) (*Package, error) {
	var why []string
	best, bestScore := -1, 0
	for i, p := range s.Packages {
		if p.Transport.Type != "" && p.Transport.Type != "stdio" {
			why = append(why, fmt.Sprintf("%s %s: its transport is %s; mcpship installs stdio servers", p.RegistryType, p.Identifier, p.Transport.Type))
			continue
		}
		score := 0
		switch p.RegistryType {
		case "mcpb":
			os, arch := platformOf(p.Identifier)
			if (os != "" && os != goos) || (arch != "" && arch != goarch) {
				why = append(why, fmt.Sprintf("mcpb %s: built for %s, this is %s/%s", p.Identifier, strings.Trim(os+"/"+arch, "/"), goos, goarch))
				continue
			}
			score = 100
			if os != "" {
				score += 2
			}
			if arch != "" {
				score++
			}
		case "npm", "pypi", "oci":
			if err := p.check(); err != nil {
				why = append(why, err.Error())
				continue
			}
			l := Launchers[p.RegistryType]
			if !have(l) {
				why = append(why, fmt.Sprintf("%s %s: it runs with %s, which is not installed", p.RegistryType, p.Identifier, l))
				continue
			}
			score = 10 - slices.Index([]string{"npm", "pypi", "oci"}, p.RegistryType)
		default:
			why = append(why, fmt.Sprintf("%s %s: mcpship does not install %s packages", p.RegistryType, p.Identifier, p.RegistryType))
			continue
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best >= 0 {
		return &s.Packages[best], nil
	}
	if len(why) == 0 {
		why = append(why, "its description lists no package")
	}
	return nil, fmt.Errorf("no package of %s %s can be installed here:\n  %s", s.Name, s.Version, strings.Join(Some(why, maxReasons), "\n  "))
}

// maxReasons is how many packages passed over an error names.
const maxReasons = 10

// Some returns at most max of items, each cut to 200 bytes and with its
// control characters escaped, then how many more there are: an error
// that lists what a registry's answer holds stays short however long the
// answer.
func Some(items []string, max int) []string {
	out := make([]string, 0, min(len(items), max+1))
	for i, it := range items {
		if i == max {
			out = append(out, fmt.Sprintf("... and %d more", len(items)-max))
			break
		}
		out = append(out, Printable(it, 200))
	}
	return out
}

// cut returns s cut to max bytes, for a message that quotes it with %q.
func cut(s string, max int) string {
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

// Printable returns s, from a registry, fit to print: its control
// characters escaped (a registry cannot move the cursor or start a line
// of its own), and cut to max bytes with "...".
func Printable(s string, max int) string {
	if len(s) > max {
		s = s[:max] + "..."
	}
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

var (
	osWords = map[string]string{
		"linux": "linux", "darwin": "darwin", "macos": "darwin", "mac": "darwin", "osx": "darwin", "apple": "darwin",
		"windows": "windows", "win32": "windows", "win64": "windows", "win": "windows",
	}
	archWords = map[string]string{
		"amd64": "amd64", "x64": "amd64", "x86_64": "amd64", "arm64": "arm64", "aarch64": "arm64",
		"386": "386", "x86": "386", "i386": "386", "i686": "386",
	}
	wordSep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9_]+|_`) })
)

// platformOf reads a bundle's OS and architecture from the words of the
// file name of its URL; "" where the name does not say.
func platformOf(identifier string) (goos, goarch string) {
	name := strings.ToLower(path.Base(identifier))
	name = strings.NewReplacer("x86_64", "amd64", "x86-64", "amd64").Replace(name)
	for _, w := range wordSep().Split(name, -1) {
		if o, ok := osWords[w]; ok {
			goos = o
		}
		if a, ok := archWords[w]; ok {
			goarch = a
		}
	}
	return goos, goarch
}

// A Need is an input of a package that the user may give a value for:
// an environment variable (Key is its name) or an argument (Key is its
// valueHint, or its name without dashes).
type Need struct {
	Key  string
	Kind string // "environment variable" or "argument"
	Input
}

// Needs returns the inputs of p that take a value from the user, in
// order: its environment variables, then its arguments. Inputs with a
// fixed value are not among them.
func (p *Package) Needs() []Need {
	var ns []Need
	for _, v := range p.EnvironmentVariables {
		if v.Value == "" {
			ns = append(ns, Need{Key: v.Name, Kind: "environment variable", Input: v.Input})
		}
	}
	for _, a := range slices.Concat(p.RuntimeArguments, p.PackageArguments) {
		if a.Value == "" && a.key() != "" && (a.Type == "positional" || a.ValueHint != "" || a.IsRequired || a.Default != "") {
			ns = append(ns, Need{Key: a.key(), Kind: "argument", Input: a.Input})
		}
	}
	return ns
}

func (a Argument) key() string {
	if a.ValueHint != "" {
		return a.ValueHint
	}
	return strings.TrimLeft(a.Name, "-")
}

// A Launch is how to start a package: a command, its arguments and the
// environment variables it needs.
type Launch struct {
	Command string
	Args    []string
	Env     map[string]string
}

// Launch returns how to start p (an npm, PyPI or OCI package) with
// values, by the keys of [Package.Needs]; an input without a value takes
// its default. A required input with neither is an error naming it.
func (p *Package) Launch(values map[string]string) (*Launch, error) {
	launcher := Launchers[p.RegistryType]
	if launcher == "" {
		return nil, fmt.Errorf("mcpship does not start %s packages", p.RegistryType)
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	if p.RuntimeHint != "" && p.RuntimeHint != launcher {
		return nil, fmt.Errorf("the %s package %s asks for the runtime %q; mcpship starts %s packages with %s only", p.RegistryType, p.Identifier, p.RuntimeHint, p.RegistryType, launcher)
	}
	in := &inputs{values: values}
	env := map[string]string{}
	for _, v := range p.EnvironmentVariables {
		if x := in.value(v.Name, v.Input); x != "" {
			env[v.Name] = x
		}
	}
	args := func(as []Argument) []string {
		var out []string
		for _, a := range as {
			x := in.value(a.key(), a.Input)
			switch {
			case a.Type == "named" && x != "":
				out = append(out, a.Name, x)
			case a.Type == "named" && a.ValueHint == "" && !a.IsRequired:
				out = append(out, a.Name) // a flag that takes no value
			case x != "":
				out = append(out, x)
			}
		}
		return out
	}
	runtimeArgs, packageArgs := args(p.RuntimeArguments), args(p.PackageArguments)
	if err := in.err(); err != nil {
		return nil, err
	}
	l := &Launch{Command: launcher, Env: env}
	switch p.RegistryType {
	case "npm":
		ref := p.Identifier
		if p.Version != "" {
			ref += "@" + p.Version
		}
		l.Args = slices.Concat([]string{"-y"}, runtimeArgs, []string{ref}, packageArgs)
	case "pypi":
		ref := p.Identifier
		if p.Version != "" {
			ref += "==" + p.Version
		}
		l.Args = slices.Concat(runtimeArgs, []string{ref}, packageArgs)
	case "oci":
		ref := p.Identifier
		if p.Version != "" && !strings.ContainsAny(path.Base(ref), ":@") {
			ref += ":" + p.Version
		}
		l.Args = append([]string{"run", "-i", "--rm"}, runtimeArgs...)
		for _, k := range sortedKeys(env) {
			l.Args = append(l.Args, "-e", k) // docker passes the value on from its own environment
		}
		l.Args = append(append(l.Args, ref), packageArgs...)
	}
	return l, nil
}

// A token is a name whose characters a regexp gives and whose length is
// bounded apart: a counted repetition such as {0,499} compiles to a
// program hundreds of times as long (milliseconds and a megabyte). Its
// regexp is compiled on first use, so that a command that checks no
// package does not pay for it.
type token struct {
	re  func() *regexp.Regexp
	max int // bytes, of the part after the last "/" when last is set
	// last bounds only the name after a scope, as npm's "@scope/name".
	last bool
}

func newToken(expr string, max int, last bool) token {
	return token{re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) }), max: max, last: last}
}

func (t token) match(s string) bool {
	n := s
	if t.last {
		n = s[strings.LastIndexByte(s, '/')+1:]
	}
	return len(n) <= t.max && t.re().MatchString(s)
}

// Each registry's package names and versions, as they may be written;
// none starts with "-", which a launcher would take for an option.
var (
	identifiers = map[string]token{
		"npm":  newToken(`^(@[A-Za-z0-9~][A-Za-z0-9._~-]*/)?[A-Za-z0-9~][A-Za-z0-9._~-]*$`, 214, true),
		"pypi": newToken(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`, 200, false),
		"oci":  newToken(`^[A-Za-z0-9][A-Za-z0-9._/:@+-]*$`, 500, false),
	}
	versionText = newToken(`^[A-Za-z0-9^~<>=*!][A-Za-z0-9.+_~^<>=*!:-]*$`, 128, false)
	envName     = newToken(`^[A-Za-z_][A-Za-z0-9_]*$`, 255, false)
	// headerName is an HTTP header name, a token (RFC 9110).
	headerName = newToken("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$", 256, false)
)

// check refuses a package of npm, PyPI or OCI whose identifier, version
// or environment variables are not what their registry allows: a value
// from the registry is checked as a value a user typed would be.
func (p *Package) check() error {
	what := fmt.Sprintf("%s %s", p.RegistryType, Printable(p.Identifier, 100))
	if id, ok := identifiers[p.RegistryType]; ok && !id.match(p.Identifier) {
		return fmt.Errorf("%s: the identifier is not a %s package name; refusing it", what, p.RegistryType)
	}
	if p.Version != "" && !versionText.match(p.Version) {
		return fmt.Errorf("%s: the version %q is not a version; refusing it", what, cut(p.Version, 100))
	}
	for _, v := range p.EnvironmentVariables {
		if !envName.match(v.Name) {
			return fmt.Errorf("%s: %q cannot name an environment variable (letters, digits and _, not starting with a digit); refusing it", what, cut(v.Name, 100))
		}
	}
	for _, a := range slices.Concat(p.RuntimeArguments, p.PackageArguments) {
		if a.Type == "named" && !strings.HasPrefix(a.Name, "-") {
			return fmt.Errorf("%s: the named argument %q does not start with '-'; refusing it", what, cut(a.Name, 100))
		}
	}
	return nil
}

// A MissingError lists required inputs that have no value.
type MissingError struct{ Keys []string }

func (e *MissingError) Error() string {
	return "no value for the required input " + strings.Join(Some(e.Keys, maxReasons), ", ")
}

// resolve returns the value of the input key: its fixed value, else the
// one in values, else its default; ok is false if it is required and has
// none. The author's fixed value and default have their {variables}
// filled; a value the user gave is taken as written.
// inputs fills in inputs from values (see resolve) and keeps the keys of
// the required ones it found no value for.
type inputs struct {
	values  map[string]string
	missing []string
}

func (f *inputs) value(key string, in Input) string {
	v, ok := resolve(key, in, f.values)
	if !ok {
		f.missing = append(f.missing, key)
	}
	return v
}

// err is a [*MissingError] naming the inputs without a value, or nil.
func (f *inputs) err() error {
	if len(f.missing) > 0 {
		return &MissingError{Keys: f.missing}
	}
	return nil
}

func resolve(key string, in Input, values map[string]string) (v string, ok bool) {
	if x := values[key]; in.Value == "" && x != "" {
		return x, true
	}
	v = cmp.Or(in.Value, in.Default)
	return fill(v, in.Variables, values), v != "" || !in.IsRequired
}

var braces = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([a-zA-Z_][a-zA-Z0-9_]*)\}`) })

// fill replaces {name} in v by the value of variable name (from values,
// else its default); an unknown name is left as it is.
func fill(v string, vars map[string]Input, values map[string]string) string {
	if len(vars) == 0 {
		return v
	}
	return braces().ReplaceAllStringFunc(v, func(m string) string {
		name := m[1 : len(m)-1]
		in, ok := vars[name]
		if !ok {
			return m
		}
		if x := values[name]; x != "" {
			return x
		}
		if in.Value != "" {
			return in.Value
		}
		return in.Default
	})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Remote returns the remote server of s that a client can be pointed at:
// its first streamable-http remote, else its first SSE one; nil if it has
// none.
func (s *Server) Remote() *Transport {
	for _, want := range []string{"streamable-http", "sse"} {
		for i, r := range s.Remotes {
			if r.Type == want {
				return &s.Remotes[i]
			}
		}
	}
	return nil
}

// Needs returns the inputs of the remote t that take a value from the
// user: the variables of its URL, then its headers.
func (t *Transport) Needs() []Need {
	var ns []Need
	for _, k := range sortedKeys(t.Variables) {
		if v := t.Variables[k]; v.Value == "" {
			ns = append(ns, Need{Key: k, Kind: "URL variable", Input: v})
		}
	}
	for _, h := range t.Headers {
		if h.Value == "" {
			ns = append(ns, Need{Key: h.Name, Kind: "header", Input: h.Input})
		}
	}
	return ns
}

// Endpoint returns the URL of the remote t with its {variables} replaced
// and its headers, from values by the keys of [Transport.Needs]; an input
// without a value takes its default. A required input with neither is a
// [*MissingError]. The URL must be https (or http on a loopback address).
func (t *Transport) Endpoint(values map[string]string) (string, map[string]string, error) {
	for _, h := range t.Headers {
		if !headerName.match(h.Name) {
			return "", nil, fmt.Errorf("the remote server's header %q is not an HTTP header name; refusing it", cut(h.Name, 100))
		}
	}
	in := &inputs{values: values}
	u := braces().ReplaceAllStringFunc(t.URL, func(m string) string {
		name := m[1 : len(m)-1]
		if v, ok := t.Variables[name]; ok {
			return in.value(name, v)
		}
		return m
	})
	headers := map[string]string{}
	for _, h := range t.Headers {
		if x := in.value(h.Name, h.Input); x != "" {
			headers[h.Name] = x
		}
	}
	if err := in.err(); err != nil {
		return "", nil, err
	}
	for k, v := range headers {
		if strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			return "", nil, fmt.Errorf("the value of the remote server's header %s has a control character (such as a line break), which HTTP does not allow; refusing it", k)
		}
	}
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" || (pu.Scheme != "https" && !(pu.Scheme == "http" && loopback.Host(pu.Hostname()))) {
		return "", nil, fmt.Errorf("the remote server's address %q is not an https:// URL (plain http is allowed only to this machine's loopback address); refusing it", u)
	}
	return u, headers, nil
}
