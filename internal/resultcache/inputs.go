package resultcache

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// RacyWindow is how close to the moment inputs are recorded a file's
// mtime or ctime may be (or how far past it, for a clock that is ahead)
// before its stat no longer proves it unchanged: a file written in the
// same timestamp tick as the recording, or on a file system with coarse
// times (FAT keeps 2 s), can change again without its stat changing. Such
// a "racy" file (git's word) is hashed when recorded and checked by its
// content until its times are older than the window.
const RacyWindow = 2 * time.Second

// MaxInputs bounds the paths, listings and links one call may record.
// A call whose inputs expand to more is run but not cached: checking them
// would cost more than most runs.
const MaxInputs = 20000

// ErrTooManyInputs is why a call with more than MaxInputs inputs is not
// cached.
var ErrTooManyInputs = fmt.Errorf("more than %d inputs", MaxInputs)

// stat is what a file's state is compared by.
type stat struct {
	Mode  uint32 `json:"m"`
	Size  int64  `json:"s"`
	Mtime int64  `json:"t"`
	Ctime int64  `json:"c,omitempty"`
	Dev   uint64 `json:"d,omitempty"`
	Ino   uint64 `json:"i,omitempty"`
}

// statOf returns what fi is compared by. A folder is compared by its
// mode alone: its entries are compared by name and type (opList), and its
// times change when a file is made and removed again, as editors do.
func statOf(fi fs.FileInfo) stat {
	if fi.IsDir() {
		return stat{Mode: uint32(fi.Mode())}
	}
	s := stat{Mode: uint32(fi.Mode()), Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	sysStat(fi, &s)
	return s
}

// racy reports whether s is too close to now (or after it) to prove the
// file unchanged by its stat alone.
func (s stat) racy(now time.Time) bool {
	edge := now.Add(-RacyWindow).UnixNano()
	return !exactStat || s.Mtime >= edge || s.Ctime >= edge
}

// What a record checks.
const (
	opPath = "p" // a path's lstat (stat when Follow), or that it is absent
	opLink = "l" // a symlink's target
	opList = "d" // a folder's entries: names and types
	opGlob = "g" // a folder's entries that match Pattern
)

// record is one recorded input.
type record struct {
	Op      string `json:"o"`
	Path    string `json:"p"` // absolute, in the OS's form
	Follow  bool   `json:"f,omitempty"`
	Pattern string `json:"g,omitempty"` // opGlob: a name pattern, or "**" for subfolders
	Absent  bool   `json:"a,omitempty"`
	Stat    stat   `json:"s"`
	Text    string `json:"x,omitempty"` // opLink: the target
	Sum     []byte `json:"h,omitempty"` // a file's content hash; a listing's digest
	Racy    bool   `json:"r,omitempty"`
}

// Inputs are the recorded state of the files, folders and globs a result
// depends on. Check compares them with the file system now.
type Inputs struct {
	mu      sync.Mutex
	records []record
	at      time.Time
}

// Len returns how many inputs were recorded.
func (in *Inputs) Len() int { return len(in.records) }

// Record expands patterns relative to dir and records the state of what
// they name: for a file, its stat (and its content hash when it is racy,
// see RacyWindow); for a folder, its entries and all it holds; for a
// symlink, its target and what it points to; for a path that does not
// exist, that it does not. A pattern is slash-separated; one ending in
// "/" names a folder; "*", "?" and "[...]" match within a name as in
// [path.Match], "**" any number of folders; "\" quotes the next character
// (see Escape). Hidden files count like any other.
func Record(dir string, patterns []string) (*Inputs, error) {
	r := &recorder{in: &Inputs{at: time.Now()}, seen: map[seenKey]bool{}}
	for _, p := range patterns {
		if err := r.pattern(dir, p); err != nil {
			return nil, err
		}
	}
	return r.in, nil
}

// Escape quotes the characters of s that a pattern would read as a
// glob, so that a value given by a call names one path. Backslashes
// separate folders on Windows and become "/" there first.
func Escape(s string) string {
	s = filepath.ToSlash(s)
	if !strings.ContainsAny(s, `*?[\`) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// CheckPattern reports what is wrong with pattern, or nil. The error
// reads after the pattern, as in `"sig/[a" is not a valid glob`.
func CheckPattern(pattern string) error {
	if pattern == "" {
		return errors.New("is empty: name a file, a folder or a glob")
	}
	for _, seg := range strings.Split(pattern, "/") {
		if _, err := path.Match(seg, ""); err != nil {
			return errors.New("is not a valid glob: check its [ ] and \\")
		}
	}
	return nil
}

type recorder struct {
	in   *Inputs
	seen map[seenKey]bool
}

// seenKey is an op on a path, with its pattern.
type seenKey struct{ op, path, pattern string }

func (r *recorder) add(rec record) error {
	if len(r.in.records) >= MaxInputs {
		return ErrTooManyInputs
	}
	r.in.records = append(r.in.records, rec)
	return nil
}

// once reports whether op on p is seen for the first time.
func (r *recorder) once(op, p, pattern string) bool {
	k := seenKey{op, p, pattern}
	if r.seen[k] {
		return false
	}
	r.seen[k] = true
	return true
}

func (r *recorder) pattern(dir, p string) error {
	if err := CheckPattern(p); err != nil {
		return err
	}
	segs := strings.Split(p, "/")
	base := dir
	switch {
	case p[0] == '/':
		base, segs = string(filepath.Separator), segs[1:]
	case filepath.VolumeName(filepath.FromSlash(segs[0])) != "": // C: on Windows
		base, segs = segs[0]+string(filepath.Separator), segs[1:]
	}
	return r.glob(base, segs)
}

// glob records what segs match below base.
func (r *recorder) glob(base string, segs []string) error {
	for len(segs) > 0 && !hasMeta(segs[0]) {
		if s := unescape(segs[0]); s != "" {
			base = filepath.Join(base, s)
		}
		segs = segs[1:]
	}
	if len(segs) == 0 {
		return r.path(base, true)
	}
	seg, rest := segs[0], segs[1:]
	if seg == "**" && len(rest) == 0 {
		return r.path(base, true) // all of the folder
	}
	if !r.once(opGlob, base, strings.Join(segs, "/")) {
		return nil
	}
	names, sum := listing(base, seg)
	if err := r.add(record{Op: opGlob, Path: base, Pattern: seg, Sum: sum}); err != nil {
		return err
	}
	if seg == "**" {
		if err := r.glob(base, rest); err != nil {
			return err
		}
		rest = segs // one folder down, still under "**"
	}
	for _, name := range names {
		if err := r.glob(filepath.Join(base, name), rest); err != nil {
			return err
		}
	}
	return nil
}

// path records p: a file, a folder and all it holds, a symlink, or its
// absence. A symlink is followed when follow; inside folders it is not,
// so that a link to a parent is no loop.
func (r *recorder) path(p string, follow bool) error {
	if !r.once(opPath, p, "") {
		return nil
	}
	fi, err := os.Lstat(p)
	if err != nil {
		if !absent(err) {
			return err
		}
		return r.add(record{Op: opPath, Path: p, Absent: true})
	}
	if err := r.file(p, fi, false); err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		if err := r.add(record{Op: opLink, Path: p, Text: target}); err != nil {
			return err
		}
		if !follow {
			return nil
		}
		fi, err = os.Stat(p)
		if err != nil {
			if !absent(err) {
				return err
			}
			return r.add(record{Op: opPath, Path: p, Follow: true, Absent: true})
		}
		if err := r.file(p, fi, true); err != nil {
			return err
		}
	}
	if !fi.IsDir() {
		return nil
	}
	names, sum := listing(p, "")
	if err := r.add(record{Op: opList, Path: p, Sum: sum}); err != nil {
		return err
	}
	for _, name := range names {
		if err := r.path(filepath.Join(p, name), false); err != nil {
			return err
		}
	}
	return nil
}

// file records the stat of p, fi, hashing a racy regular file.
func (r *recorder) file(p string, fi fs.FileInfo, follow bool) error {
	rec := record{Op: opPath, Path: p, Follow: follow, Stat: statOf(fi)}
	if fi.Mode().IsRegular() && rec.Stat.racy(r.in.at) {
		sum, err := hashFile(p)
		if err != nil {
			return err
		}
		rec.Sum, rec.Racy = sum, true
	}
	return r.add(rec)
}

// Check compares the inputs with the file system now. It returns "" when
// nothing changed, else what did, such as "sig/a.rbs: content changed".
// A file whose stat changed but whose content hash is the one recorded
// (a touch) is unchanged; its stat is then recorded anew.
func (in *Inputs) Check() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	now := time.Now()
	for i := range in.records {
		if why := in.records[i].check(now); why != "" {
			return in.records[i].Path + ": " + why
		}
	}
	return ""
}

func (rec *record) check(now time.Time) string {
	switch rec.Op {
	case opLink:
		target, err := os.Readlink(rec.Path)
		if err != nil || target != rec.Text {
			return "symlink retargeted"
		}
		return ""
	case opList, opGlob:
		if _, sum := listing(rec.Path, rec.Pattern); string(sum) != string(rec.Sum) {
			return "folder entries changed"
		}
		return ""
	}
	stat := os.Lstat
	if rec.Follow {
		stat = os.Stat
	}
	fi, err := stat(rec.Path)
	switch {
	case err != nil && absent(err) && rec.Absent:
		return ""
	case err != nil && rec.Absent:
		return "unreadable"
	case err != nil:
		return "deleted"
	case rec.Absent:
		return "created"
	}
	s := statOf(fi)
	if s == rec.Stat && !rec.Racy {
		return ""
	}
	if rec.Sum == nil || s.Size != rec.Stat.Size || fs.FileMode(s.Mode).Type() != fs.FileMode(rec.Stat.Mode).Type() {
		return "changed"
	}
	sum, err := hashFile(rec.Path)
	if err != nil || string(sum) != string(rec.Sum) {
		return "content changed"
	}
	rec.Stat, rec.Racy = s, s.racy(now)
	return ""
}

// listing returns the names in folder dir that match pattern ("" for
// all, "**" for the subfolders), in name order, and a digest of them and their
// types. A folder that cannot be read has no names and its own digest.
func listing(dir, pattern string) ([]string, []byte) {
	h := sha256.New()
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintf(h, "unreadable: %v", errors.Is(err, fs.ErrNotExist))
		return nil, h.Sum(nil)
	}
	names := make([]string, 0, len(entries))
	var line []byte
	for _, e := range entries {
		name := e.Name()
		switch {
		case pattern == "**":
			if !e.IsDir() {
				continue
			}
		case pattern != "":
			if ok, _ := path.Match(pattern, name); !ok {
				continue
			}
		}
		names = append(names, name)
		// name NUL type NL, the type's mode bits in decimal
		line = append(append(line[:0], name...), 0)
		line = append(strconv.AppendUint(line, uint64(e.Type()), 10), '\n')
		h.Write(line)
	}
	return names, h.Sum(nil)
}

func hashFile(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// absent reports whether err says a path does not exist, including that
// a folder on its way is a file.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// hasMeta reports whether seg has a glob character that is not quoted.
func hasMeta(seg string) bool {
	for i := 0; i < len(seg); i++ {
		switch seg[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unescape removes the quoting of Escape from a segment without globs.
func unescape(seg string) string {
	if !strings.Contains(seg, `\`) {
		return seg
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if seg[i] == '\\' && i+1 < len(seg) {
			i++
		}
		b.WriteByte(seg[i])
	}
	return b.String()
}
