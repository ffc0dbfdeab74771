package installer

import (
	"bytes"
	"fmt"
)

// A FileError reports a config file that cannot be edited safely: it does
// not parse, or a key holds the wrong kind of value. The file is left as it
// was.
type FileError struct {
	File string // path of the config file
	Line int    // 1-based line of the problem, 0 if unknown
	Col  int    // 1-based column of the problem, 0 if unknown
	Msg  string // what is wrong

	noBackup bool // mcpship holds no backup of the file to restore
}

// Error says where the problem is, what it is, and what to do.
func (e *FileError) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos = fmt.Sprintf("%s:%d", pos, e.Line)
		if e.Col > 0 {
			pos = fmt.Sprintf("%s:%d", pos, e.Col)
		}
	}
	if e.noBackup {
		return fmt.Sprintf("%s: %s; the file was not changed: fix it by hand (mcpship has no backup of it to restore)", pos, e.Msg)
	}
	return fmt.Sprintf("%s: %s; the file was not changed: fix it by hand, or run 'mcpship restore' to go back to a backup", pos, e.Msg)
}

// A ConflictError reports that a different server is already registered
// under the name. Diff shows the change --force would make.
type ConflictError struct {
	File string
	Name string
	Diff string
}

// Error says what to do and shows the diff.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s: a different server named %q is already registered; rerun with --force to replace it, or choose another --name:\n%s", e.File, e.Name, e.Diff)
}

// lineCol returns the 1-based line and column of byte offset off in b.
func lineCol(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	line = 1 + bytes.Count(b[:off], []byte("\n"))
	col = 1 + off - (bytes.LastIndexByte(b[:off], '\n') + 1)
	return line, col
}
