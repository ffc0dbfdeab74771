package installer

import (
	"encoding/hex"
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
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
// backup's path.
func backup(stateDir, real string, data []byte, now time.Time) (string, error) {
	dir := filepath.Join(stateDir, "backups", fileKey(real))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "PATH"), []byte(real+"\n"), 0o600); err != nil {
		return "", err
	}
	p := filepath.Join(dir, backupPrefix(real)+now.UTC().Format(backupTimeFormat))
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", err
	}
	return p, f.Close()
}

// Backups lists the backups of the target's file, newest first.
func (t *Target) Backups(stateDir string) ([]Backup, error) {
	real, err := resolveLinks(t.File)
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
