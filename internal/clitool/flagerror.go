package clitool

import "strings"

// flagBefore are the words before a flag's name in the flag package's
// errors: "flag provided but not defined: -frob", "flag needs an
// argument: -client", "invalid value "x" for flag -timeout: …",
// "invalid boolean value "x" for -json: …".
var flagBefore = []string{"defined: -", "argument: -", "for flag -", "for -"}

// LongFlags returns msg, an error of the flag package (or of urfave/cli,
// which uses it), with each flag of two letters or more named --NAME, not
// -NAME: "flag provided but not defined: --frob".
func LongFlags(msg string) string {
	var b strings.Builder
	for {
		at, before := -1, ""
		for _, w := range flagBefore {
			if i := strings.Index(msg, w); i >= 0 && (at < 0 || i < at) {
				at, before = i, w
			}
		}
		if at < 0 {
			return b.String() + msg
		}
		end := at + len(before)
		name := end
		for name < len(msg) && (isLetter(msg[name]) || name > end && (msg[name] == '-' || msg[name] == '_' || msg[name] >= '0' && msg[name] <= '9')) {
			name++
		}
		b.WriteString(msg[:end])
		if name-end >= 2 {
			b.WriteByte('-')
		}
		b.WriteString(msg[end:name])
		msg = msg[name:]
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
