package manifest

import "strings"

// validInputName reports whether name matches ^[A-Za-z_][A-Za-z0-9_-]{0,63}$.
func validInputName(name string) bool { return len(name) <= 64 && isName(name, "", "-") }

// validEnvName reports whether name matches ^[A-Za-z_][A-Za-z0-9_]*$.
func validEnvName(name string) bool { return isName(name, "", "") }

// isName reports whether s is an ASCII letter, '_' or one of first,
// followed by letters, digits, '_' or bytes of rest. Loops, not regexps:
// each regexp compiled at package level costs every process start-up time
// (see BENCHMARKS.md).
func isName(s, first, rest string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_':
		case i == 0 && strings.IndexByte(first, c) >= 0:
		case i > 0 && ('0' <= c && c <= '9' || strings.IndexByte(rest, c) >= 0):
		default:
			return false
		}
	}
	return true
}
