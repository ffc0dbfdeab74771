package resultcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpship/mcpship/internal/atomicfile"
	"github.com/mcpship/mcpship/mcp"
)

// The disk tier keeps one file per entry, named by its key: a header
// line with the format and the SHA-256 of the body, then the body, JSON.
// A file that does not match its header, or does not decode, is removed
// and the call runs: a corrupt entry is never served.
const header = "mcpship result cache 1 "

type diskEntry struct {
	Key     string              `json:"key"`
	At      int64               `json:"at"` // when the inputs were recorded, Unix ns
	Records []record            `json:"inputs"`
	Result  *mcp.CallToolResult `json:"result"`
}

func encode(e *entry) ([]byte, error) {
	body, err := json.Marshal(diskEntry{Key: e.key.String(), At: e.inputs.at.UnixNano(), Records: e.inputs.records, Result: e.result})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	return slices.Concat([]byte(header), []byte(hex.EncodeToString(sum[:])), []byte("\n"), body), nil
}

func decode(data []byte, key Key) (*entry, error) {
	head, body, ok := bytes.Cut(data, []byte("\n"))
	want, found := strings.CutPrefix(string(head), header)
	if !ok || !found {
		return nil, errors.New("no header")
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != want {
		return nil, errors.New("checksum mismatch")
	}
	var d diskEntry
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // numbers keep their text
	if err := dec.Decode(&d); err != nil {
		return nil, err
	}
	if d.Key != key.String() || d.Result == nil {
		return nil, errors.New("not this entry")
	}
	return &entry{key: key, result: d.Result, inputs: &Inputs{records: d.Records, at: time.Unix(0, d.At)},
		size: int64(len(data)) + entryOverhead}, nil
}

// disk is the disk tier.
type disk struct {
	dir string // "" when no folder could be made
	mu  sync.Mutex
}

// diskTier returns the disk tier, making its folder on first use.
func (c *Cache) diskTier() *disk {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.disk != nil {
		return c.disk
	}
	dir := c.opts.Dir
	if dir == "" {
		base, err := os.UserCacheDir()
		if err == nil {
			dir = filepath.Join(base, "mcpship", "results")
		}
	}
	c.disk = &disk{}
	if dir == "" {
		c.log.Warn("result cache: no user cache folder, so results are kept in memory only")
		return c.disk
	}
	// Results can hold anything a tool printed: only the user reads them.
	if err := os.MkdirAll(dir, 0o700); err == nil {
		_ = os.Chmod(dir, 0o700) // one made before, by a looser umask
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		c.log.Warn("result cache: cannot use the folder, so results are kept in memory only", "folder", dir, "err", err)
		return c.disk
	}
	c.disk.dir = dir
	return c.disk
}

func (d *disk) file(key Key) string { return filepath.Join(d.dir, key.String()+".json") }

// load returns the entry stored for key, or nil.
func (d *disk) load(key Key, c *Cache) *entry {
	if d.dir == "" {
		return nil
	}
	data, err := os.ReadFile(d.file(key))
	if err != nil {
		return nil
	}
	e, err := decode(data, key)
	if err != nil {
		c.log.Debug("result cache: ignoring a corrupt disk entry", "file", d.file(key), "err", err)
		c.mu.Lock()
		c.stats.Corrupt++
		c.mu.Unlock()
		d.remove(key)
		return nil
	}
	return e
}

func (d *disk) remove(key Key) {
	if d.dir != "" {
		os.Remove(d.file(key))
	}
}

// save writes an entry, then removes the oldest entries past the bounds.
func (d *disk) save(key Key, data []byte, c *Cache) {
	if d.dir == "" {
		return
	}
	if err := atomicfile.Write(d.file(key), data, 0o600); err != nil {
		c.log.Debug("result cache: cannot write a disk entry", "file", d.file(key), "err", err)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.trim(c.opts.MaxEntries, c.opts.MaxBytes)
}

// trim removes the least recently written entries until at most n are
// left, of at most size bytes in all.
func (d *disk) trim(n int, size int64) {
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
		size int64
	}
	var files []file
	var total int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		files = append(files, file{e.Name(), fi.ModTime(), fi.Size()})
		total += fi.Size()
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	for len(files) > n || total > size {
		if err := os.Remove(filepath.Join(d.dir, files[0].name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return
		}
		total -= files[0].size
		files = files[1:]
	}
}
