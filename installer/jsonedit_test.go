package installer

import (
	"errors"
	"testing"
)

var testEntry = []field{
	{"type", "stdio"},
	{"command", "/usr/bin/mcpship"},
	{"args", []string{"serve", "--manifest", "/p/mcpship.json"}},
	{"env", []field{{"TOKEN", "a\"b\\c<&>"}}},
}

// TestJSONRefusesBinary is the one refusal whose file testdata/edits
// cannot hold as text.
func TestJSONRefusesBinary(t *testing.T) {
	_, err := jsonFormat{jsonc: true}.parse("f.json", []byte("\x00\x01\xff\xfe"))
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 1 || fe.File != "f.json" || fe.Msg != "not UTF-8 text (is it a binary file?)" {
		t.Errorf("err = %v, want a FileError at line 1 saying it is not UTF-8", err)
	}
}
