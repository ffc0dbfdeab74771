package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpship/mcpship/internal/atomicfile"
	"github.com/mcpship/mcpship/internal/filelock"
)

// Options control how a config file is changed.
type Options struct {
	StateDir string // backups, locks and the ledger; see Env.StateDir
	DryRun   bool   // work out the change and its diff but write nothing
	// Force replaces a different server registered under the same name,
	// writes a read-only file (keeping it read-only), and lets Restore
	// write a backup that does not parse or was taken of another file.
	Force bool
	Now   func() time.Time // clock for backup names; time.Now if nil
}

// A Change reports what was done, or with DryRun would be done, to one file.
type Change struct {
	Client string `json:"client"`
	Scope  Scope  `json:"scope"`
	File   string `json:"file"`
	Name   string `json:"name,omitempty"`
	// Action is "added", "replaced", "unchanged" (already registered),
	// "removed", "absent" (nothing to remove) or "restored".
	Action       string `json:"action"`
	DryRun       bool   `json:"dry_run,omitempty"`
	Created      bool   `json:"created,omitempty"`       // the file did not exist before
	Backup       string `json:"backup,omitempty"`        // copy of the file as it was
	RestoredFrom string `json:"restored_from,omitempty"` // the backup restore wrote back
	Diff         string `json:"diff,omitempty"`          // unified diff of the change
}

var bom = []byte("\xef\xbb\xbf")

// plan is what an edit function decides.
type plan struct {
	out     []byte // new body; nil for no change
	action  string
	entry   any  // plain value of the new entry; nil when removing
	undo    undo // what an add leaves for remove; what remove was left
	command string
	sum     string // Entry.sum of the entry added
}

// edit runs one change to t's file under its lock: parse, plan, verify,
// back up, write atomically, record. It starts again if the file changes
// meanwhile (see retry).
func (t *Target) edit(o Options, name string, f func(d document, real string) (plan, error)) (*Change, error) {
	real, err := realPath(t.File)
	if err != nil {
		return nil, err
	}
	unlock, err := t.lock(o, real)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var ch *Change
	err = t.retry(func() (err error) {
		ch, err = t.editOnce(o, name, real, f)
		return err
	})
	var fe *FileError
	if errors.As(err, &fe) {
		// Advise restore only when there is something to restore.
		backups, berr := t.Backups(o.StateDir)
		fe.noBackup = berr == nil && len(backups) == 0
	}
	return ch, err
}

func (t *Target) editOnce(o Options, name, real string, f func(d document, real string) (plan, error)) (_ *Change, err error) {
	snap, err := readConfig(t.File, real)
	if err != nil {
		return nil, err
	}
	defer func() {
		// A file caught half written does not parse: if it changes
		// within a moment, that was a change, not a broken file.
		var fe *FileError
		if errors.As(err, &fe) {
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil && !errors.Is(err, errChanged) && errors.Is(snap.unchanged(), errChanged) {
			err = errChanged
		}
	}()
	data, existed := snap.data, snap.exists
	if existed && isSpace(data) && t.neverEmpty() {
		return nil, errEmptied
	}
	body := bytes.TrimPrefix(data, bom)
	lead := data[:len(data)-len(body)]
	doc, err := t.Assistant.format.parse(t.File, body)
	if err != nil {
		return nil, err
	}
	p, err := f(doc, real)
	if err != nil {
		return nil, err
	}
	ch := &Change{Client: t.Assistant.Name, Scope: t.Scope, File: t.File, Name: name, Action: p.action, DryRun: o.DryRun, Created: !existed}
	if p.out == nil {
		if p.action == "unchanged" && p.sum != "" && !o.DryRun {
			// Already there as init would write it: the user vouches for
			// it now, so the ledger records it (doctor trusts recorded
			// project entries), keeping what an earlier add may undo.
			last, ok := lastRecord(o.StateDir, real, t.Container, name)
			if !ok || last.Action != "add" || last.Sum != p.sum {
				r := record{Time: o.now().UTC(), File: real, Container: t.Container, Name: name, Command: p.command, Sum: p.sum, Action: "add", Wrote: fileSum(data)}
				if ok && last.Action == "add" {
					r.Created, r.Empty = last.Created, last.Empty
				}
				if err := appendRecord(o.StateDir, r); err != nil {
					return ch, fmt.Errorf("%s: recording the entry in %s failed: %w", t.File, o.StateDir, err)
				}
			}
		}
		return ch, nil
	}
	if err := t.verify(doc, p, name); err != nil {
		return nil, err
	}
	newData := p.out
	if len(lead) > 0 {
		newData = append(bytes.Clone(lead), p.out...)
	}
	ch.Diff = unifiedDiff(t.File, data, newData)
	if p.action == "conflict" {
		return nil, &ConflictError{File: t.File, Name: name, Diff: ch.Diff}
	}
	if o.DryRun {
		return ch, nil
	}
	_, derr := os.Stat(filepath.Dir(real))
	newDir := errors.Is(derr, fs.ErrNotExist) // replace creates the folder
	if ch.Backup, err = t.replace(o, snap, newData); err != nil {
		return nil, err
	}
	{
		r := record{Time: o.now().UTC(), File: real, Container: t.Container, Name: name, Command: p.command, Sum: p.sum, Created: p.undo.created, Empty: p.undo.empty, Action: "add",
			NewFile: !snap.exists, NewDir: newDir, Wrote: fileSum(newData)}
		if p.entry == nil {
			r.Action = "remove"
		}
		if err := appendRecord(o.StateDir, r); err != nil {
			return ch, fmt.Errorf("%s was changed, but recording it in %s failed: %w", t.File, o.StateDir, err)
		}
	}
	return ch, nil
}

// replace backs up the file as read, if it existed, and writes data in
// its place. A read-only file is refused unless o.Force is set.
func (t *Target) replace(o Options, snap *snapshot, data []byte) (string, error) {
	if snap.exists && snap.info.Mode().Perm()&0o222 == 0 && !o.Force {
		return "", fmt.Errorf("%s is read-only (mode %#o); nothing was written: make it writable (chmod u+w), or rerun with --force to change it and keep it read-only", t.File, snap.info.Mode().Perm())
	}
	atomicfile.RemoveTemps(filepath.Split(snap.path))
	var saved string
	if snap.exists {
		var err error
		if saved, err = backup(o.StateDir, snap.path, snap.data, o.now()); err != nil {
			return "", fmt.Errorf("backing up %s: %w; nothing was written", t.File, err)
		}
	}
	dirMode := fs.FileMode(0o755)
	if t.Scope != ScopeProject {
		dirMode = 0o700
	}
	if err := snap.replace(data, t.fileMode(), dirMode); err != nil {
		if saved != "" {
			os.Remove(saved) // a copy of what is still there
		}
		return "", err
	}
	return saved, nil
}

// tries is how many times an edit is tried while another program keeps
// changing the file.
const tries = 5

// errEmptied reports a file found empty that its client never leaves
// empty: the client is rewriting it in place (truncate, then write).
var errEmptied = fmt.Errorf("%w: it was empty", errChanged)

// retry runs an edit until it does not meet errChanged, up to tries
// times, a little later each time.
func (t *Target) retry(edit func() error) error {
	for i := 1; ; i++ {
		err := edit()
		if !errors.Is(err, errChanged) {
			return err
		}
		if i == tries && errors.Is(err, errEmptied) {
			return fmt.Errorf("%s is empty, though %s never leaves it so: it is being rewritten, or something emptied it; nothing was written (%d tries): run the command again in a moment, and if it stays empty, run 'mcpship restore' or delete it", t.File, t.Assistant.Title, tries)
		}
		if i == tries {
			return fmt.Errorf("%s kept changing while mcpship edited it: another program is rewriting it, such as %s; nothing was written (%d tries): run the command again when that program is idle or closed", t.File, t.Assistant.Title, tries)
		}
		time.Sleep(time.Duration(i) * 50 * time.Millisecond)
	}
}

// verify checks that the new body holds the old data with exactly the
// planned change: it parses the new body, finds the entry as planned (or
// gone), and compares everything else with the old document. Documents
// that are a [restComparer] compare themselves; others, and those that
// cannot tell, compare their trees, the same way for every format.
func (t *Target) verify(old document, p plan, name string) error {
	bad := func(err error) error {
		return fmt.Errorf("%s: mcpship's edit failed its own check (%v); nothing was written. Please report this with the file attached", t.File, err)
	}
	fast, _ := old.(restComparer)
	var before *node
	if fast == nil {
		// First, so that old can be freed before the new parse.
		var err error
		if before, err = restTree(old, t.Container, name); err != nil {
			return bad(err)
		}
	}
	nd, err := t.Assistant.format.parse(t.File, p.out)
	if err != nil {
		return bad(err)
	}
	x, err := lookup(nd, t.Container, name)
	var got map[string]any
	if err == nil && x != nil {
		got, err = x.decode()
	}
	switch {
	case err != nil:
		return bad(err)
	case p.entry == nil && x != nil:
		return bad(fmt.Errorf("the entry %q is still there", name))
	case p.entry != nil && (x == nil || !sameModel(got, p.entry)):
		return bad(fmt.Errorf("the entry %q holds other data than planned", name))
	}
	same, ok := false, false
	if fast != nil {
		same, ok = fast.sameRest(nd, t.Container, name)
	}
	if !ok {
		if before == nil {
			if before, err = restTree(old, t.Container, name); err != nil {
				return bad(err)
			}
		}
		after, err := restTree(nd, t.Container, name)
		if err != nil {
			return bad(err)
		}
		same = before.equal(after)
	}
	if !same {
		return bad(fmt.Errorf("data outside the entry %q changed", name))
	}
	return nil
}

// restTree returns the tree of d without the entry name under container
// (see [without]).
func restTree(d document, container []string, name string) (*node, error) {
	n, err := d.tree()
	if err != nil {
		return nil, err
	}
	without(n, container, name)
	return n, nil
}

// lock takes the lock of the config file real, under o.StateDir, so that
// one edit at a time changes it; a dry run writes nothing and takes none.
func (t *Target) lock(o Options, real string) (func(), error) {
	if o.DryRun {
		return func() {}, nil // it writes nothing
	}
	dir := filepath.Join(o.StateDir, "locks")
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	return filelock.Lock(filepath.Join(dir, fileKey(real)+".lock"))
}

// fileMode is the mode of a new config file, less the umask: user files
// may hold secrets in env, so only the user may read them.
func (t *Target) fileMode() fs.FileMode {
	if t.Scope == ScopeProject {
		return 0o644
	}
	return 0o600
}

// neverEmpty says the client itself keeps state in the file, so it is
// never empty when the client is done writing it (~/.claude.json).
func (t *Target) neverEmpty() bool {
	return t.Assistant.Name == "claude-code" && t.Scope != ScopeProject
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Add registers s in the target's file. The same server again changes
// nothing; a different one under the same name is a *ConflictError unless
// o.Force is set.
func (t *Target) Add(s Entry, o Options) (*Change, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return t.edit(o, s.Name, func(d document, real string) (plan, error) {
		x, err := lookup(d, t.Container, s.Name)
		if err != nil {
			return plan{}, err
		}
		e, err := t.Assistant.fields(s)
		if err != nil {
			return plan{}, err
		}
		// The entry as it will read back: a token's variable is then a
		// header in most clients' files, as it is in the file's own entry.
		want := serverOf(s.Name, plain(e).(map[string]any))
		p := plan{action: "added", entry: plain(e), command: s.Command, sum: want.sum()}
		if x != nil {
			v, err := x.decode()
			if err != nil {
				return plan{}, err
			}
			if serverOf(x.name, v).same(want) {
				return plan{action: "unchanged", command: s.Command, sum: want.sum()}, nil
			}
			p.action = "replaced"
			if !o.Force {
				p.action = "conflict"
			}
		}
		p.out, p.undo, err = d.set(t.Container, s.Name, e)
		return p, err
	})
}

// Remove deletes the server name from the target's file. If mcpship
// created the servers object when it added name and the object is now
// empty, it is deleted too, so the file is as it was before.
func (t *Target) Remove(name string, o Options) (*Change, error) {
	return t.edit(o, name, func(d document, real string) (plan, error) {
		x, err := lookup(d, t.Container, name)
		if err != nil {
			return plan{}, err
		}
		if x == nil {
			return plan{action: "absent"}, nil
		}
		p := plan{action: "removed"}
		if r, ok := lastRecord(o.StateDir, real, t.Container, name); ok && r.Action == "add" {
			p.undo = undo{created: r.Created, empty: r.Empty}
		}
		p.out, err = d.remove(t.Container, name, p.undo)
		return p, err
	})
}

// Restore writes a backup back over the target's file, after backing up
// the file as it is. With from empty it restores the newest backup.
func (t *Target) Restore(from string, o Options) (*Change, error) {
	if from == "" {
		bs, err := t.Backups(o.StateDir)
		if err != nil {
			return nil, err
		}
		if len(bs) == 0 {
			return nil, fmt.Errorf("%s: no backups in %s; mcpship makes one each time it changes the file", t.File, filepath.Join(o.StateDir, "backups"))
		}
		from = bs[0].Path
	}
	real, err := realPath(t.File)
	if err != nil {
		return nil, err
	}
	saved, err := t.readBackup(from, real, o.Force)
	if err != nil {
		return nil, err
	}
	unlock, err := t.lock(o, real)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var ch *Change
	err = t.retry(func() error {
		snap, err := readConfig(t.File, real)
		if err != nil {
			return err
		}
		ch = &Change{Client: t.Assistant.Name, Scope: t.Scope, File: t.File, Action: "unchanged", DryRun: o.DryRun, RestoredFrom: from}
		if bytes.Equal(snap.data, saved) {
			return nil
		}
		ch.Action, ch.Created = "restored", !snap.exists
		ch.Diff = unifiedDiff(t.File, snap.data, saved)
		if o.DryRun {
			return nil
		}
		ch.Backup, err = t.replace(o, snap, saved)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// A Registration is a server found in a config file.
type Registration struct {
	Entry
	// Ours says mcpship registered it: its command is an mcpship binary,
	// or mcpship's ledger says mcpship wrote it with this command.
	Ours bool `json:"ours"`
	// Recorded says mcpship's ledger holds this entry as mcpship wrote it
	// here: the same command, arguments, environment and directory. A
	// project-scope entry that is not recorded came with the project.
	Recorded bool `json:"-"`
}

// Servers reads the servers registered in the target's file. exists says
// whether the file exists; a missing file has no servers.
func (t *Target) Servers(stateDir string) (regs []Registration, exists bool, err error) {
	real, err := realPath(t.File)
	if err != nil {
		return nil, false, err
	}
	snap, err := readConfig(t.File, real)
	if errors.Is(err, errChanged) {
		snap, err = readConfig(t.File, real) // once more
	}
	if err != nil || !snap.exists {
		return nil, false, err
	}
	data := snap.data
	d, err := t.Assistant.format.parse(t.File, bytes.TrimPrefix(data, bom))
	if err != nil {
		return nil, true, err
	}
	es, err := d.entries(t.Container)
	if err != nil {
		return nil, true, err
	}
	for _, e := range es {
		v, err := e.decode()
		if err != nil {
			return nil, true, err
		}
		s := serverOf(e.name, v)
		reg := Registration{Entry: s, Ours: s.IsMcpship()}
		if r, ok := lastRecord(stateDir, real, t.Container, e.name); ok {
			reg.Ours = reg.Ours || r.Action == "add" && r.Command == s.Command
			reg.Recorded = r.recorded(s)
		}
		regs = append(regs, reg)
	}
	return regs, true, nil
}
