package wrap

import (
	"strings"
)

// usageGroups splits a usage line into words, keeping bracketed groups
// whole and joining a separate "..." to the word before it.
func usageGroups(s string) []string {
	var out []string
	depth, start := 0, -1
	for i := 0; i <= len(s); i++ {
		c := byte(' ')
		if i < len(s) {
			c = s[i]
		}
		switch {
		case c == '[' || c == '<' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '>' || c == '}' || c == ')':
			depth--
		case c == ' ' && depth <= 0:
			if start >= 0 {
				w := s[start:i]
				if w == "..." && len(out) > 0 {
					out[len(out)-1] += "..."
				} else {
					out = append(out, w)
				}
				start = -1
			}
			depth = 0
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// notArgs are usage words that stand for options or for a subcommand,
// not for positional arguments.
var notArgs = words(`options option flags flag --flags args -`)

// usageArgs reads the positional arguments from a usage line. The first
// word is the program, then depth subcommand names. It also returns the
// words that stand for positional arguments in a form it cannot read:
// alternatives, as kubectl's "(TYPE [NAME | -l label] | TYPE/NAME ...)".
func usageArgs(usage string, l *layout, depth int) (out []arg, unread []string) {
	groups := usageGroups(usage)
	if len(groups) <= depth+1 {
		return nil, nil
	}
	for _, g := range groups[depth+1:] {
		if rest, ok := strings.CutPrefix(g, "[[--] "); ok { // git's [[--] <path>...]
			g = "[" + rest
		}
		inner := strings.Trim(strings.TrimSuffix(g, "..."), "[]<>")
		inner = strings.TrimSpace(strings.TrimSuffix(inner, "..."))
		lower := strings.ToLower(inner)
		switch {
		case strings.HasPrefix(g, "-") || strings.HasPrefix(inner, "-") || strings.HasPrefix(g, "{"):
			continue // an option, or argparse's {a,b} of subcommands
		case notArgs[lower] || lower == "" || strings.HasSuffix(lower, " options") || strings.HasSuffix(lower, " flags") ||
			strings.HasPrefix(lower, "command ["):
			continue
		case strings.ContainsAny(inner, "|{}"):
			if !strings.HasPrefix(g, "[") { // a required choice: left to the author
				unread = append(unread, g)
			}
			continue
		}
		if n := len(out); n > 0 && strings.HasPrefix(g, "[") && strings.HasSuffix(lower, " ...") &&
			inputName(strings.TrimSuffix(inner, " ...")) == out[n-1].name { // argparse: FILE [FILE ...]
			out[n-1].array = true
			continue
		}
		if lower == "arguments" || lower == "arguments..." { // urfave/cli: [arguments...]
			out = append(out, arg{name: "args", array: true})
			continue
		}
		a, ok := parseArgToken(g)
		if !ok && strings.HasPrefix(g, "[") && !strings.ContainsAny(inner, "|{}[]<>") && inputName(inner) != "" {
			// Words in brackets in a usage line name one argument
			// (goreleaser's "[configuration files]"), as prose in an
			// arguments section does not.
			a, ok = arg{name: inputName(inner)}, true
		}
		if !ok {
			continue
		}
		if strings.HasSuffix(lower, " ...") {
			a.array = true
			a.name = inputName(strings.TrimSuffix(inner, " ..."))
		}
		if a.name != "" {
			out = append(out, a)
		}
	}
	return out, unread
}
