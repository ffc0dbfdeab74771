package register

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpship/mcpship/installer"
)

// secretWarnings warns of each value of s that looks like a secret, for
// a file that is shared with everyone who has the project (project
// scope), and says how to reference a variable instead in the client's
// own syntax.
func secretWarnings(t *installer.Target, s installer.Entry) []string {
	var out []string
	where := fmt.Sprintf("%s %s (%s), a file shared with everyone who has the project", t.Assistant.Name, t.Scope, t.File)
	for _, k := range sortedKeys(s.Env) {
		if !looksSecret(k, s.Env[k]) {
			continue
		}
		w := fmt.Sprintf("--env %s looks like a secret and is written in plain text to %s; ", k, where)
		if ref := t.Assistant.EnvRef(k); ref != "" {
			w += fmt.Sprintf("reference the variable instead, which %s reads from its own environment: --env '%s=%s'", t.Assistant.Title, k, ref)
		} else if t.Assistant.Name == "codex" {
			w += fmt.Sprintf("%s has no variable syntax but passes variables through: leave --env %s out and add env_vars = [%q] to the entry", t.Assistant.Title, k, k)
		} else {
			w += fmt.Sprintf("%s has no variable syntax: register with --scope user, a file of yours alone, instead", t.Assistant.Title)
		}
		out = append(out, w)
	}
	for _, k := range sortedKeys(s.Headers) {
		v := s.Headers[k]
		credential := strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "Proxy-Authorization") || strings.EqualFold(k, "Cookie")
		if !looksSecret(k, v) && !(credential && v != "" && !isRef(strings.TrimPrefix(v, "Bearer "))) {
			continue
		}
		w := fmt.Sprintf("--header %s looks like a secret and is written in plain text to %s; ", k, where)
		if t.Assistant.TokenRef("X") != "" || t.Assistant.Name == "codex" {
			w += "if it is a bearer token, put it in an environment variable and give its name with --bearer-token-env instead"
		} else {
			w += fmt.Sprintf("%s expands no variables there: register with --scope user, a file of yours alone, instead", t.Assistant.Title)
		}
		out = append(out, w)
	}
	for i := range s.Args {
		name, value := argFlag(s.Args, i)
		if looksSecret(name, value) {
			out = append(out, fmt.Sprintf("argument %d of the command looks like a secret and is written in plain text to %s; "+
				"let the server read it from an environment variable, or register with --scope user, a file of yours alone, instead", i+1, where))
		}
	}
	return out
}

// pathWarnings warns of absolute paths in the command of an entry for a
// project file, which is shared with everyone who has the project: such a
// path is where the file is on this machine, and rarely on theirs.
func pathWarnings(t *installer.Target, s installer.Entry) []string {
	var out []string
	where := fmt.Sprintf("%s %s (%s), a file meant to be committed and shared with everyone who has the project", t.Assistant.Name, t.Scope, t.File)
	if filepath.IsAbs(s.Command) {
		out = append(out, fmt.Sprintf("the command %s is an absolute path on this machine, written to %s; "+
			"register a command found on PATH (--command %s), or register with --scope local or user, files of yours alone, instead",
			s.Command, where, filepath.Base(s.Command)))
	}
	for i, a := range s.Args {
		_, value, ok := strings.Cut(a, "=")
		if !ok || !strings.HasPrefix(a, "-") {
			value = a
		}
		if filepath.IsAbs(value) {
			out = append(out, fmt.Sprintf("argument %d of the command, %s, is an absolute path on this machine, written to %s; "+
				"give a path relative to the project, or register with --scope local or user instead", i+1, value, where))
		}
	}
	return out
}

// secretWords are parts of the names of variables and flags that hold secrets.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE", "AUTH"}

// looksSecret reports whether value, of the variable or flag name, looks
// like a secret: a name with a word like KEY, TOKEN or PASSWORD, or a long
// value of high entropy such as a generated key. A reference to a
// variable (${X}, {env:X}, $X) is not a secret.
func looksSecret(name, value string) bool {
	if value == "" || isRef(value) {
		return false
	}
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) && !strings.Contains(up, "AUTHOR") {
			return true
		}
	}
	return highEntropy(value)
}

// highEntropy reports whether s looks generated: 20 or more characters
// without spaces or path separators, letters and digits mixed, and at
// least 3.5 bits of Shannon entropy per character (hex keys reach ~3.7,
// base64 ~4.5+, English words and paths stay below).
func highEntropy(s string) bool {
	if len(s) < 20 || strings.ContainsAny(s, " /\\") {
		return false
	}
	letters := strings.IndexFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
	digits := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0
	if !letters || !digits {
		return false
	}
	counts := map[rune]int{}
	n := 0
	for _, r := range s {
		counts[r]++
		n++
	}
	h := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h >= 3.5
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isRef reports whether value refers to a variable in one of the
// clients' syntaxes (${X}, ${env:X}, {env:X}, $X) rather than holding a
// value.
func isRef(value string) bool {
	return strings.Contains(value, "${") || strings.Contains(value, "{env:") || strings.HasPrefix(value, "$")
}

// Secrets returns the values of e that look like secrets (see
// [looksSecret]): of its environment variables, its arguments (a flag's
// value, --key=VALUE or --key VALUE) and its headers. What doctor, tools
// and call print of a server (its command line, its stderr, which often
// echoes them) has them hidden.
func Secrets(e installer.Entry) []string {
	var out []string
	for k, v := range e.Env {
		if looksSecret(k, v) {
			out = append(out, v)
		}
	}
	for k, v := range e.Headers {
		if looksSecret(k, v) || strings.EqualFold(k, "Authorization") && v != "" && !isRef(v) {
			out = append(out, v)
		}
	}
	for i := range e.Args {
		name, value := argFlag(e.Args, i)
		if looksSecret(name, value) {
			out = append(out, value)
			continue
		}
		out = append(out, credentials(value)...)
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) }) // the longest first
	return out
}

// credentials returns the secrets an argument holds in the shapes that
// name them: an HTTP header ("Authorization: Bearer TOKEN", "X-Api-Key:
// KEY"), an auth scheme ("Bearer TOKEN") or a URL (its password, and a
// query parameter named like a secret, as in ?token=TOKEN). What is
// Hidden is the secret alone, so "Bearer <hidden>" still says what it was.
func credentials(arg string) []string {
	var out []string
	if k, v, ok := strings.Cut(arg, ":"); ok && k != "" && !strings.ContainsAny(k, " /") && !strings.HasPrefix(v, "//") {
		v = strings.TrimSpace(v)
		switch {
		case scheme(v) != "":
			out = append(out, scheme(v))
		case looksSecret(k, v) || isCredentialHeader(k) && v != "" && !isRef(v):
			out = append(out, v)
		}
	} else if tok := scheme(arg); tok != "" {
		out = append(out, tok)
	}
	if u, err := url.Parse(arg); err == nil && u.Scheme != "" && u.Host != "" {
		if p, ok := u.User.Password(); ok && p != "" {
			out = append(out, p)
		}
		for k, vs := range u.Query() {
			for _, v := range vs {
				if looksSecret(k, v) {
					out = append(out, v, url.QueryEscape(v))
				}
			}
		}
	}
	return out
}

// scheme returns the credential of "Bearer X", "Basic X" or "Token X",
// or "".
func scheme(v string) string {
	s, rest, ok := strings.Cut(strings.TrimSpace(v), " ")
	rest = strings.TrimSpace(rest)
	if !ok || rest == "" || isRef(rest) {
		return ""
	}
	for _, name := range []string{"Bearer", "Basic", "Token"} {
		if strings.EqualFold(s, name) {
			return rest
		}
	}
	return ""
}

// isCredentialHeader reports whether the HTTP header k carries
// credentials whatever its value looks like.
func isCredentialHeader(k string) bool {
	return strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "Proxy-Authorization") || strings.EqualFold(k, "Cookie")
}

// Hide replaces each of secrets in text with <hidden>.
func Hide(text string, secrets []string) string {
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s, Hidden)
	}
	return text
}

// argFlag returns the flag name and the value that argument i of args
// gives: "--name=value", a value after "--name", or a value of no name.
func argFlag(args []string, i int) (name, value string) {
	a := args[i]
	name, value, ok := strings.Cut(strings.TrimLeft(a, "-"), "=")
	if !ok || !strings.HasPrefix(a, "-") {
		name, value = "", a
		if i > 0 && strings.HasPrefix(args[i-1], "-") {
			name = strings.TrimLeft(args[i-1], "-")
		}
	}
	return name, value
}
