package resultcache

import (
	"fmt"
	"strings"
)

// A Template is a cache input pattern with {name} placeholders that a
// call's values fill: "{file}", "src/{module}/*.rb", "Gemfile.lock".
// "{{" and "}}" are literal braces. Manifest tools and the adapters'
// tools both read their cache inputs with it, so that a pattern means
// the same in both.
type Template struct {
	parts []templatePart
}

// templatePart is literal text, or a placeholder when name is set.
type templatePart struct{ text, name string }

// ParseTemplate reads s. It checks the syntax of the braces and that the
// pattern, each placeholder standing for one name, is a valid glob;
// whether a placeholder names a value the caller has is the caller's to
// check, with [Template.Names].
func ParseTemplate(s string) (Template, error) {
	var t Template
	var lit, glob strings.Builder // glob: the pattern with "x" for each placeholder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, templatePart{text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case (c == '{' || c == '}') && i+1 < len(s) && s[i+1] == c:
			lit.WriteByte(c)
			glob.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return Template{}, fmt.Errorf("%q has a '{' with no closing '}'; write {{ for a literal brace", s)
			}
			if end == 1 || strings.IndexByte(s[i+1:i+end], '{') >= 0 {
				return Template{}, fmt.Errorf("%q: %s is not a placeholder: name a value, as in {file}; write {{ and }} for literal braces", s, s[i:i+end+1])
			}
			flush()
			t.parts = append(t.parts, templatePart{name: s[i+1 : i+end]})
			glob.WriteByte('x')
			i += end
		case c == '}':
			return Template{}, fmt.Errorf("%q has a '}' with no opening '{'; write }} for a literal brace", s)
		default:
			lit.WriteByte(c)
			glob.WriteByte(c)
		}
	}
	flush()
	if err := CheckPattern(glob.String()); err != nil {
		return Template{}, fmt.Errorf("%q %v", s, err)
	}
	return t, nil
}

// Names returns the names of the template's placeholders, in order.
func (t Template) Names() []string {
	var names []string
	for _, p := range t.parts {
		if p.name != "" {
			names = append(names, p.name)
		}
	}
	return names
}

// Expand fills the template with a call's values, each quoted with
// [Escape] so that it names one path, never a glob: values returns a
// placeholder's values, one for a single value and one per item for a
// list. The template gives one pattern per value, and per combination
// of values where it has several placeholders ("{dir}/{file}" with two
// dirs and three files gives six). An empty value gives none, so a
// placeholder the call left out leaves its template out. Expansion stops
// past [MaxInputs] patterns, more than a call may record.
func (t Template) Expand(values func(name string) []string) []string {
	out := []string{""}
	for _, p := range t.parts {
		if p.name == "" {
			for i := range out {
				out[i] += p.text
			}
			continue
		}
		var next []string
		for _, prefix := range out {
			for _, v := range values(p.name) {
				if v != "" && len(next) <= MaxInputs {
					next = append(next, prefix+Escape(v))
				}
			}
		}
		out = next
	}
	return out
}
