package installer

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpship/mcpship/internal/atomicfile"
)

// Backups are kept in the state directory (see Env.StateDir), one folder
// per config file:
//
//	<state>/backups/<file name>-<hash of its path>/<file name>.mcpship-backup-<UTC time>
//
// where <file name> is the config file's name without leading dots, and
// with a file PATH in the folder naming the config file. The time is
// written as 20060102T150405.000000000Z, so names sort by time. Backups are
// never deleted by mcpship.
const backupTimeFormat = "20060102T150405.000000000Z"

// A Backup is a copy of a config file taken before mcpship changed it.
type Backup struct {
	Path string    `json:"path"` // the backup
	Of   string    `json:"of"`   // the config file it is a copy of
	Time time.Time `json:"time"` // when it was taken
}

// backupPrefix starts the names of real's backups; leading dots are
// dropped so that backups are not hidden files.
func backupPrefix(real string) string {
	return strings.TrimLeft(filepath.Base(real), ".") + ".mcpship-backup-"
}

// fileKey names the folder of real (a path with links resolved) under the
// state directory.
func fileKey(real string) string {
	h := fnv.New64a()
	h.Write([]byte(real))
	return strings.TrimLeft(filepath.Base(real), ".") + "-" + hex.EncodeToString(h.Sum(nil)[:6])
}

// backup saves data, the current contents of real, and returns the
// backup's path. It is written whole, through a temporary file
// (atomicfile), so a backup is whole or absent.
func backup(stateDir, real string, data []byte, now time.Time) (string, error) {
	dir := filepath.Join(stateDir, "backups", fileKey(real))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	name := backupPrefix(real) + now.UTC().Format(backupTimeFormat)
	atomicfile.RemoveTemps(dir, "")
	if b, err := os.ReadFile(filepath.Join(dir, "PATH")); err != nil || string(b) != real+"\n" {
		if err := atomicfile.Write(filepath.Join(dir, "PATH"), []byte(real+"\n"), 0o600); err != nil {
			return "", err
		}
	}
	p := filepath.Join(dir, name)
	return p, atomicfile.Write(p, data, 0o600)
}

// backupOf returns the file a backup was taken of, as recorded beside it.
func backupOf(backup string) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(backup), "PATH"))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

// Backups lists the backups of the target's file, newest first.
func (t *Target) Backups(stateDir string) ([]Backup, error) {
	real, err := realPath(t.File)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(stateDir, "backups", fileKey(real))
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	prefix := backupPrefix(real)
	var out []Backup
	for _, de := range des {
		ts, ok := strings.CutPrefix(de.Name(), prefix)
		if !ok {
			continue
		}
		tm, err := time.Parse(backupTimeFormat, ts)
		if err != nil {
			continue
		}
		out = append(out, Backup{Path: filepath.Join(dir, de.Name()), Of: t.File, Time: tm})
	}
	slices.SortFunc(out, func(a, b Backup) int { return b.Time.Compare(a.Time) })
	return out, nil
}

// readBackup reads the backup from for restoring it over real, the
// target's file. Unless force is set, it refuses a backup that was not
// taken of real, or that does not hold a config file of the client.
func (t *Target) readBackup(from, real string, force bool) ([]byte, error) {
	rfrom, err := realPath(from)
	if err != nil {
		return nil, err
	}
	snap, err := readConfig(from, rfrom)
	if err == nil && !snap.exists {
		err = fs.ErrNotExist
	}
	if err != nil {
		return nil, fmt.Errorf("reading the backup %s: %w", from, err)
	}
	if force {
		return snap.data, nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("%s: %s; nothing was written: restore one of the backups 'mcpship restore' lists with --backup, or rerun with --force to restore it anyway", from, why)
	}
	if of := backupOf(rfrom); of != real {
		// Older backups may name the file by another spelling.
		if r, err := realPath(of); of == "" || err != nil || r != real {
			return nil, refuse(fmt.Sprintf("not a backup of %s", t.File))
		}
	}
	if isSpace(snap.data) && t.neverEmpty() {
		return nil, refuse(fmt.Sprintf("empty, and %s never leaves %s empty", t.Assistant.Title, t.File))
	}
	if _, err := t.Assistant.format.parse(from, bytes.TrimPrefix(snap.data, bom)); err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			err = errors.New(fe.Msg)
			if fe.Line > 0 {
				err = fmt.Errorf("line %d: %s", fe.Line, fe.Msg)
			}
		}
		return nil, refuse(fmt.Sprintf("not a %s file that %s can read (%v)", t.Assistant.Format(), t.Assistant.Title, err))
	}
	return snap.data, nil
}
