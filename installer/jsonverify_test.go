package installer

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzJSONVerify checks verifySet against a full parse and comparison of
// the models: it accepts what set writes, and whatever it accepts, after
// any one byte of set's output is inserted, deleted or replaced, parses
// and holds exactly the old data plus the entry.
func FuzzJSONVerify(f *testing.F) {
	for _, in := range jsonInputs {
		f.Add(in, "mcpship", false, uint(7), byte(','), uint8(0))
		f.Add(in, "existing", false, uint(40), byte(' '), uint8(1))
	}
	for _, in := range jsoncInputs {
		f.Add(in, "@org/pkg", true, uint(3), byte('/'), uint8(2))
		f.Add(in, "existing", true, uint(25), byte('"'), uint8(0))
	}
	f.Add("{\"mcpServers\": {\"a\": 1}}", "z", false, uint(22), byte('.'), uint8(0))
	f.Add("{\"mcpServers\": {\"a\": {}, \"b\": {}}}", "a", false, uint(0), byte('}'), uint8(1))
	f.Add("{\"mcpServers\": {\"a\": {}, /*c*/ \"b\": {\"x\": 1}, // d\n \"c\": {},}}", "z", true, uint(60), byte('\n'), uint8(2))
	f.Add("{\"mcpServers\": { // none yet\n}}", "z", true, uint(30), byte('*'), uint8(0))
	f.Add("{\"x\": {\"mcpServers\": 1}}", "z", false, uint(9), byte('{'), uint8(0))
	f.Fuzz(func(t *testing.T, in, name string, comments bool, at uint, c byte, op uint8) {
		if (Server{Name: name, Command: "c"}).check() != nil {
			return
		}
		fm := jsonFormat{jsonc: comments}
		d, err := fm.parse("f", []byte(in))
		if err != nil {
			return
		}
		container := []string{"mcpServers"}
		if _, err := d.entries(container); err != nil {
			return
		}
		before, err := d.model()
		if err != nil {
			return
		}
		out, _, err := d.set(container, name, testEntry)
		if err != nil {
			return
		}
		// The shallow tree edits (and verifies) alike.
		ds, err := jsonFormat{jsonc: comments, keep: len(container) + 1}.parse("f", []byte(in))
		if err != nil {
			t.Fatalf("shallow parse refused what the whole parse took: %v\n%q", err, in)
		}
		outs, _, err := ds.set(container, name, testEntry)
		if err != nil || string(outs) != string(out) {
			t.Fatalf("shallow set: %v\n%q\n%q", err, out, outs)
		}
		jd := ds.(*jsonDoc)
		want := plain(testEntry)
		if err := jd.verifySet(out, container, name, want); err != nil {
			t.Fatalf("verifySet refused set's output: %v\n%q\n%q", err, in, out)
		}
		// One byte changed.
		i := int(at % uint(len(out)+1))
		var mut []byte
		switch op % 3 {
		case 0:
			mut = append(append(append([]byte{}, out[:i]...), c), out[i:]...)
		case 1:
			if i == len(out) {
				return
			}
			mut = append(append([]byte{}, out[:i]...), out[i+1:]...)
		default:
			if i == len(out) || out[i] == c {
				return
			}
			mut = append([]byte{}, out...)
			mut[i] = c
		}
		if jd.verifySet(mut, container, name, want) != nil {
			return
		}
		d2, err := fm.parse("f", mut)
		if err != nil {
			t.Fatalf("verifySet accepted an unparseable file: %v\n%q\n%q", err, in, mut)
		}
		got, err := d2.model()
		if err != nil {
			t.Fatalf("verifySet accepted a file without a model: %v\n%q", err, mut)
		}
		wantModel, err := applySet(before, container, name, want, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if !sameModel(got, wantModel) {
			t.Fatalf("verifySet accepted other data:\n%q\n%q", in, mut)
		}
	})
}

// FuzzJSONEntry checks that jsonDoc.entry finds what entries finds, and
// refuses what it refuses.
func FuzzJSONEntry(f *testing.F) {
	for _, in := range jsonInputs {
		f.Add(in, "existing", false)
	}
	for _, in := range jsoncInputs {
		f.Add(in, "existing", true)
	}
	f.Add("{\"mcpServers\": {\"a\": {}, \"a\": {}}}", "b", false)
	f.Add("{\"mcpServers\": {\"a\": {}, \"b\": 1}}", "a", false)
	f.Add("{\"mcpServers\": {\"\\u0061\": {\"x\": 1}, \"a\": {}}}", "a", false)
	f.Add("{\"mcpServers\": {\"a\\\"b\": {\"x\": [1]}}}", "a\"b", true)
	f.Add("{\"mcpServers\": []}", "a", true)
	f.Add("{\"mcpServers\": {\"a\": 1e400}}", "b", true)
	f.Add("{\"mcpServers\": {\"a\": {\"x\": 1e400}}}", "b", true)
	f.Fuzz(func(t *testing.T, in, name string, comments bool) {
		d, err := jsonFormat{jsonc: comments}.parse("f", []byte(in))
		if err != nil {
			return
		}
		container := []string{"mcpServers"}
		es, err1 := d.entries(container)
		ds, err := jsonFormat{jsonc: comments, keep: len(container) + 1}.parse("f", []byte(in))
		if err != nil {
			t.Fatalf("shallow parse refused what the whole parse took: %v\n%q", err, in)
		}
		e, err2 := ds.(*jsonDoc).entry(container, name)
		var te *json.UnmarshalTypeError
		if errors.As(err1, &te) && err2 == nil {
			return // a number out of range in another entry: not decoded
		}
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("entries: %v, entry: %v\n%q", err1, err2, in)
		}
		var want *entry
		for i := range es {
			if es[i].name == name {
				want = &es[i]
			}
		}
		if (want == nil) != (e == nil) || want != nil && (want.name != e.name || !sameModel(want.value, e.value)) {
			t.Fatalf("entries found %v, entry %v\n%q", want, e, in)
		}
	})
}
