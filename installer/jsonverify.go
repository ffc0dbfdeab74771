package installer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// verifySet checks that out is d's body with the entry name under the
// container path set to want (a plain value, as plain returns), and
// nothing else changed, without parsing out as a whole. It works from
// d's parse tree alone, not from how set made out:
//
//  1. Where the entry goes follows from the tree: the value of the
//     container's member name if there is one (the only one); else just
//     after the value of the last member of the deepest object on the
//     path that exists, or just inside its braces if it has no members.
//  2. out must be the body with only that span replaced: every byte
//     before and after it is the same. The span starts and ends between
//     tokens (after a value or an opening brace), never inside a string
//     or comment.
//  3. The new text must parse, on its own or between stand-in braces
//     that give it the same context, as exactly one value or one member
//     that ends the text (no dangling comma or comment, so the old bytes
//     after it read as before), with the planned key and data; and, for
//     strict JSON, as strict JSON.
//
// JSON's grammar decides each value by its own text alone, so a document
// with one value or member replaced or added this way holds the old data
// with exactly that change.
func (d *jsonDoc) verifySet(out []byte, container []string, name string, want any) error {
	b := d.body
	path := append(append([]string(nil), container...), name)
	cur := &d.root
	depth := 0
	for depth < len(path) {
		obj, ok := cur.Value.(*hujson.Object)
		if !ok {
			return fmt.Errorf("%s is not an object", keyName(path, depth))
		}
		i, n := -1, 0
		for k := range obj.Members {
			if lit, ok := obj.Members[k].Name.Value.(hujson.Literal); ok && litString(lit) == path[depth] {
				i, n = k, n+1
			}
		}
		if n > 1 {
			return fmt.Errorf("key %q appears %d times", path[depth], n)
		}
		if i < 0 {
			break
		}
		cur = &obj.Members[i].Value
		depth++
	}
	if depth == len(path) { // replace the value of name
		start, end := cur.StartOffset, cur.EndOffset
		text, err := spliced(b, out, start, end)
		if err != nil {
			return err
		}
		if !utf8.Valid(text) {
			return errors.New("the new text is not UTF-8")
		}
		v, err := hujson.Parse(text)
		switch {
		case err != nil:
			return fmt.Errorf("the new value does not parse: %v", err)
		case v.StartOffset != 0 || v.EndOffset != len(text):
			return errors.New("the new value has text around it")
		case v.Value.Kind() != '{':
			return errors.New("the new value is not an object")
		}
		return d.sameValue(v, text, want)
	}
	// Add the member path[depth] to the object cur, nesting the rest.
	val := want
	for i := len(path) - 1; i > depth; i-- {
		val = map[string]any{path[i]: val}
	}
	obj, ok := cur.Value.(*hujson.Object)
	if !ok {
		return fmt.Errorf("%s is not an object", keyName(path, depth))
	}
	// The text is parsed between stand-in braces, after a stand-in
	// member `"":0` when it follows a value, as it does in out.
	var text, wrap []byte
	var err error
	stand := 0
	if k := len(obj.Members); k > 0 {
		// After the last value: the text must be ", member".
		at := obj.Members[k-1].Value.EndOffset
		if text, err = spliced(b, out, at, at); err != nil {
			return err
		}
		wrap, stand = append(append([]byte(`{"":0`), text...), '}'), 1
	} else {
		// Inside empty braces: the text is the member, replacing what
		// is between the braces if that is only whitespace.
		open, closing := cur.StartOffset, cur.EndOffset-1
		text, err = spliced(b, out, open+1, open+1)
		if err != nil && isSpace(b[open+1:closing]) {
			text, err = spliced(b, out, open+1, closing)
		}
		if err != nil {
			return err
		}
		wrap = append(append([]byte(`{`), text...), '}')
	}
	if !utf8.Valid(text) {
		return errors.New("the new text is not UTF-8")
	}
	w, err := hujson.Parse(wrap)
	if err != nil {
		return fmt.Errorf("the new member does not parse: %v", err)
	}
	wobj, ok := w.Value.(*hujson.Object)
	if !ok || w.StartOffset != 0 || w.EndOffset != len(wrap) {
		return errors.New("the new member is not a member")
	}
	if len(wobj.Members) != stand+1 {
		return fmt.Errorf("the new text holds %d members, not 1", len(wobj.Members)-stand)
	}
	// The stand-in value must end where it does: text that went on
	// with a number or word would read differently after the real value.
	if stand == 1 && wobj.Members[0].Value.EndOffset != len(`{"":0`) {
		return errors.New("the new text does not start with a comma")
	}
	m := wobj.Members[len(wobj.Members)-1]
	if lit, ok := m.Name.Value.(hujson.Literal); !ok || litString(lit) != path[depth] {
		return fmt.Errorf("the new member is not named %q", path[depth])
	}
	// Only whitespace may follow the new value in the text: a comma or
	// comment there would change how the old bytes after it read.
	if m.Value.AfterExtra != nil || !isSpace(wobj.AfterExtra) {
		return errors.New("the new member is followed by more than whitespace")
	}
	if m.Value.Value.Kind() != '{' {
		return errors.New("the new value is not an object")
	}
	if d.strict && !w.IsStandard() {
		return errors.New("the new member is not strict JSON")
	}
	return d.sameValue(m.Value, wrap, val)
}

// keyName names the value path[:depth] leads to.
func keyName(path []string, depth int) string {
	if depth == 0 {
		return "the top level"
	}
	return fmt.Sprintf("%q", path[depth-1])
}

// spliced returns the text that replaces b[start:end] in out, if out is
// b with only that span replaced.
func spliced(b, out []byte, start, end int) ([]byte, error) {
	tail := len(b) - end
	if len(out) < start+tail || !bytes.Equal(out[:start], b[:start]) || !bytes.Equal(out[len(out)-tail:], b[end:]) {
		return nil, fmt.Errorf("bytes outside the entry changed (expected a change at %d..%d only)", start, end)
	}
	return out[start : len(out)-tail], nil
}

// sameValue checks that the value v, parsed from src, holds want; and,
// for strict JSON, that it is strict JSON.
func (d *jsonDoc) sameValue(v hujson.Value, src []byte, want any) error {
	if d.strict && !v.IsStandard() {
		return errors.New("the new value is not strict JSON")
	}
	raw, err := hujson.Standardize(bytes.Clone(src[v.StartOffset:v.EndOffset]))
	if err != nil {
		return err
	}
	var got any
	if err := json.Unmarshal(raw, &got); err != nil {
		return err
	}
	if !sameModel(got, want) {
		return errors.New("the new entry holds other data than planned")
	}
	return nil
}
