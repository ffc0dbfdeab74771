package installer

// A format parses one kind of config file. The body it is given has no
// byte order mark; callers strip and restore it.
type format interface {
	parse(file string, body []byte) (document, error)
	// name is "JSON", "JSONC", "TOML" or "YAML".
	name() string
}

// A document is a parsed config file that can be edited by splicing its
// text, so that every byte outside the edited entry is kept.
type document interface {
	// entries returns the entries under the container path, in file order.
	// A missing container has no entries.
	entries(container []string) ([]entry, error)
	// set adds the entry name, or replaces it if present, and says what
	// remove needs to take the entry out again.
	set(container []string, name string, e []field) ([]byte, undo, error)
	// remove deletes the entry name, which must exist, undoing what set
	// reported when it added it (or nothing: the zero undo).
	remove(container []string, name string, u undo) ([]byte, error)
	// tree returns the data the document holds, for verify to compare.
	tree() (*node, error)
}

// A restComparer is a document that compares itself with its edit
// without building the trees of both (see [Target.verify]).
type restComparer interface {
	// sameRest reports whether newer, an edit of the document, holds the
	// same data but for the entry name under the container path, as
	// comparing their trees after [without] tells. ok is false where it
	// cannot tell; verify then compares the trees.
	sameRest(newer document, container []string, name string) (same, ok bool)
}

// lookup returns the entry name under the container path in d, or nil if
// there is none, with the same refusals as d.entries.
func lookup(d document, container []string, name string) (*entry, error) {
	es, err := d.entries(container)
	if err != nil {
		return nil, err
	}
	for i := range es {
		if es[i].name == name {
			return &es[i], nil
		}
	}
	return nil, nil
}

// An undo is what adding an entry leaves in the ledger so that removing
// it gives back the file byte for byte: how many keys at the end of the
// container path it created (remove deletes them again if left empty),
// and, when it wrote into an empty container, the text it replaced there
// (remove writes it back if it leaves the container empty): between the
// braces of an empty JSON object, or a YAML key line with an empty flow
// container (extensions: {}).
type undo struct {
	created int
	empty   string
}

// An entry is one server entry as found in a file. Its value is decoded
// only when asked for: an edit needs one entry of what may be thousands.
type entry struct {
	name   string
	decode func() (map[string]any, error)
}

// eolOf returns the line ending used in b.
func eolOf(b []byte) string {
	for i, c := range b {
		if c == '\n' {
			if i > 0 && b[i-1] == '\r' {
				return "\r\n"
			}
			return "\n"
		}
	}
	return "\n"
}

// lineStart returns the offset of the start of the line holding off.
func lineStart(b []byte, off int) int {
	for off > 0 && b[off-1] != '\n' {
		off--
	}
	return off
}

// indentAt returns the whitespace that starts the line holding off, and
// whether only whitespace precedes off on that line.
func indentAt(b []byte, off int) (indent string, first bool) {
	s := lineStart(b, off)
	e := s
	for e < len(b) && (b[e] == ' ' || b[e] == '\t') {
		e++
	}
	return string(b[s:e]), e == off
}

func isSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

func splice(b []byte, start, end int, s string) []byte {
	out := make([]byte, 0, len(b)-(end-start)+len(s))
	out = append(out, b[:start]...)
	out = append(out, s...)
	return append(out, b[end:]...)
}

// splice2 is splice at two places, i <= j, at once.
func splice2(b []byte, i int, s string, j int, t string) []byte {
	out := make([]byte, 0, len(b)+len(s)+len(t))
	out = append(out, b[:i]...)
	out = append(out, s...)
	out = append(out, b[i:j]...)
	out = append(out, t...)
	return append(out, b[j:]...)
}
