package installer

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The ledger is mcpship's record of the entries it wrote, one JSON object
// per line in <state>/registrations.jsonl. It tells list which servers are
// ours even when their command is not mcpship, and tells remove whether
// init created the servers object, so that it can delete it again.
const ledgerName = "registrations.jsonl"

type record struct {
	Time      time.Time `json:"time"`
	File      string    `json:"file"` // the config file, links resolved
	Container []string  `json:"container"`
	Name      string    `json:"name"`
	Action    string    `json:"action"` // "add" or "remove"
	Command   string    `json:"command,omitempty"`
	Sum       string    `json:"sum,omitempty"`      // Entry.sum of the entry added
	Created   int       `json:"created,omitempty"`  // container keys init created
	Empty     string    `json:"empty,omitempty"`    // how init found the servers object empty (see undo)
	NewFile   bool      `json:"new_file,omitempty"` // the edit created the file
	NewDir    bool      `json:"new_dir,omitempty"`  // and the folder that holds it
	Wrote     string    `json:"wrote,omitempty"`    // SHA-256 of the whole file as the edit wrote it
}

// fileSum is the Wrote of a record: the SHA-256 of a file's bytes.
func fileSum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// Installed reports whether the assistant seems installed for this
// target, as Present does, except that a file mcpship itself created (an
// add for every assistant, say), in a folder it created or in the home or
// project folder, and that still holds exactly what mcpship last wrote,
// does not count: it says nothing of the assistant.
func (t *Target) Installed(env Env, stateDir string) bool {
	if !t.Present(env) {
		return false
	}
	first, last, ok := t.firstAndLast(stateDir)
	if !ok || !first.NewFile || last.Wrote == "" {
		return true
	}
	data, err := os.ReadFile(first.File)
	if err != nil || fileSum(data) != last.Wrote {
		return true // changed since: by the assistant, or the user
	}
	if first.NewDir {
		return false
	}
	// The folder was there before: it counts, unless it is one that
	// Present does not count (home, project).
	probe := *t
	probe.File = filepath.Join(filepath.Dir(t.File), ".mcpship-probe-absent")
	return probe.Present(env)
}

// firstAndLast returns the ledger's first and last records of the
// target's file.
func (t *Target) firstAndLast(stateDir string) (first, last record, ok bool) {
	real, err := realPath(t.File)
	if err != nil {
		return first, last, false
	}
	f, err := os.Open(filepath.Join(stateDir, ledgerName))
	if err != nil {
		return first, last, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.File != real {
			continue
		}
		if !ok {
			first, ok = r, true
		}
		last = r
	}
	return first, last, ok
}

// sum identifies what starting s runs: its command, arguments,
// environment and directory; or the remote server it reaches.
func (s Entry) sum() string {
	env := s.Env
	if len(env) == 0 {
		env = nil
	}
	fields := []any{s.Command, args(s), env, s.Cwd}
	if s.URL != "" { // entries that have none keep the sums recorded before
		fields = append(fields, s.URL, s.Headers)
		if s.TokenEnv != "" {
			fields = append(fields, s.TokenEnv)
		}
	}
	b, err := json.Marshal(fields)
	if err != nil {
		panic(err) // strings always encode
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// recorded reports whether the ledger's newest record of the entry is
// mcpship adding s as it is now. A record from before the ledger kept
// sums needs only the same command.
func (r record) recorded(s Entry) bool {
	return r.Action == "add" && (r.Sum == s.sum() || r.Sum == "" && r.Command == s.Command)
}

// appendRecord adds r to the ledger. A line is written with one write to
// a file opened for appending, so concurrent writers do not interleave.
func appendRecord(stateDir string, r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(stateDir, ledgerName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// lastRecord returns the newest record for the entry, if any.
func lastRecord(stateDir, file string, container []string, name string) (record, bool) {
	f, err := os.Open(filepath.Join(stateDir, ledgerName))
	if err != nil {
		return record{}, false
	}
	defer f.Close()
	var last record
	found := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue // a damaged line costs only its own record
		}
		if r.File == file && r.Name == name && slices.Equal(r.Container, container) {
			last, found = r, true
		}
	}
	return last, found
}

// ensureDir creates the state directory.
func ensureDir(dir string) error {
	err := os.MkdirAll(dir, 0o700)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}
