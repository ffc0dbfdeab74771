package manifest

import (
	"cmp"
	"slices"
	"strings"
)

// secretWords are parts of the names of variables that hold secrets: the
// words by which mcpship pack marks a setting sensitive and init warns of
// a value in a shared file.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE", "AUTH"}

// secretName reports whether a variable of this name holds a secret.
func secretName(name string) bool {
	up := strings.ToUpper(name)
	return !strings.Contains(up, "AUTHOR") && slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(up, w) })
}

// hidden stands for a secret in progress messages, as in what list prints.
const hidden = "<hidden>"

// hider returns a function that replaces, in a progress message, every
// value of a variable of env ("NAME=VALUE") whose name looks secret: a
// program that echoes its token to stderr must not send it to the client
// as progress. Values under 4 bytes are left alone (they would hide
// ordinary text).
func hider(env []string) func(string) string {
	var values []string
	for _, kv := range env {
		name, v, _ := strings.Cut(kv, "=")
		if len(v) >= 4 && secretName(name) && !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	if len(values) == 0 {
		return func(s string) string { return s }
	}
	slices.SortFunc(values, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return func(s string) string {
		for _, v := range values {
			s = strings.ReplaceAll(s, v, hidden)
		}
		// A line is cut at 200 bytes, possibly inside a secret: hide
		// the start of one that ends the message.
		for _, v := range values {
			for k := len(v) - 1; k >= 4; k-- {
				if strings.HasSuffix(s, v[:k]) {
					return s[:len(s)-k] + hidden
				}
			}
		}
		return s
	}
}
