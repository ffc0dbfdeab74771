// Package resultcache keeps the results of read-only tool calls and
// serves them again while the files they were computed from are
// unchanged. Both tool sources use it: manifest commands and the
// commands of in-process Go apps; package warm uses its validator,
// [Inputs], to keep a Go value warm across calls.
//
// A call is cached under a [Key] that names everything the result depends
// on but files: the tool, its command line, working directory,
// environment and executable. The files, folders and globs it declares
// are recorded ([Record]) before it runs, and re-checked ([Inputs.Check])
// before a stored result is served: stat fields (size, mode, mtime,
// ctime, inode), folder listings, symlink targets and paths that did not
// exist; a file too recent for its stat to prove anything (see
// [RacyWindow]) is compared by content.
//
// The engine runs identical concurrent calls once, bounds its entries by
// count and bytes (the least recently used goes first), and can keep
// entries on disk too, private to the user, written atomically, and
// skipped when they do not read back whole.
package resultcache

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/mcpship/mcpship/mcp"
)

// Bounds of a cache, by default.
const (
	DefaultMaxEntries = 256
	DefaultMaxBytes   = 64 << 20
)

// MetaKey is the _meta member a result served from the cache carries:
// {"hit": true, "ageMs": N}, N the entry's age in milliseconds.
const MetaKey = "io.github.mcpship/cache"

// Options bound a cache and say where its disk tier is.
type Options struct {
	// MaxEntries and MaxBytes bound the entries kept in memory, and
	// those kept on disk, each. Default DefaultMaxEntries and
	// DefaultMaxBytes.
	MaxEntries int
	MaxBytes   int64
	// Dir is the disk tier's folder, made private to the user; "" for the
	// user cache folder's mcpship/results. Only calls with Call.Disk use it.
	Dir string
	// Logger gets a debug line per call, with the counts.
	Logger *slog.Logger
}

// Key names a call: see [MakeKey].
type Key [sha256.Size]byte

// MakeKey hashes groups of strings into a key, each group and string
// length-prefixed, so that no two different lists give the same key.
func MakeKey(groups ...[]string) Key {
	h := sha256.New()
	var n [8]byte
	for _, g := range groups {
		binary.LittleEndian.PutUint64(n[:], uint64(len(g)))
		h.Write(n[:])
		for _, s := range g {
			binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
			h.Write(n[:])
			h.Write([]byte(s))
		}
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// Call is one call to serve from the cache or run.
type Call struct {
	Tool   string   // for the log
	Key    Key      // everything the result depends on but Inputs
	Dir    string   // where relative inputs are
	Inputs []string // patterns, as Record takes them
	Disk   bool     // keep the result on disk too
}

// Outcome is what running a call gave.
type Outcome struct {
	Result *mcp.CallToolResult
	Err    error // the call failed without a result, as when cancelled
	// Keep says the result may be stored: it is whole, and not an error
	// unless the tool stores errors. Results that link to resources,
	// which live only as long as a session, are never stored.
	Keep bool
}

// Stats are a cache's counts since it was made.
type Stats struct {
	Hits     int64 `json:"hits"`
	Misses   int64 `json:"misses"`
	Joined   int64 `json:"joined"`  // calls that waited for the same call running
	Stored   int64 `json:"stored"`  // results kept
	Changed  int64 `json:"changed"` // entries dropped because an input changed
	Evicted  int64 `json:"evicted"` // entries dropped for room
	Entries  int   `json:"entries"`
	Bytes    int64 `json:"bytes"`
	DiskHits int64 `json:"diskHits"`
	Corrupt  int64 `json:"corrupt"` // disk entries that did not read back, ignored
}

// Cache is a result cache. Its methods are safe for concurrent use.
type Cache struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	entries map[Key]*list.Element // of *entry
	lru     list.List             // most recently used first
	flights map[Key]*flight
	stats   Stats
	disk    *disk
}

// entry is one stored result.
type entry struct {
	key    Key
	result *mcp.CallToolResult
	inputs *Inputs
	size   int64
}

// flight is a call running, which identical calls wait for.
type flight struct {
	done   chan struct{}
	result *mcp.CallToolResult
	err    error
}

// New returns an empty cache.
func New(o Options) *Cache {
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Cache{opts: o, log: log, entries: map[Key]*list.Element{}, flights: map[Key]*flight{}}
}

// Stats returns the counts.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries = len(c.entries)
	return s
}

// Do serves call from the cache when a stored result's inputs are
// unchanged, and otherwise records the inputs, runs it and stores what
// it gave when the outcome says so. Identical calls that arrive while one
// runs wait for it and get its result, unless it failed without one (as
// when its own client cancelled it): then they try again.
func (c *Cache) Do(ctx context.Context, call Call, run func() Outcome) (*mcp.CallToolResult, error) {
	for {
		c.mu.Lock()
		f := c.flights[call.Key]
		if f == nil {
			break // with mu held
		}
		c.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if f.err == nil {
			c.count(call, "joined", func(s *Stats) { s.Joined++ })
			return clone(f.result), nil
		}
	}
	// Until run returns, the flight has failed: if run panics, the calls
	// waiting for it try again.
	f := &flight{done: make(chan struct{}), err: errAbandoned}
	c.flights[call.Key] = f
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.flights, call.Key)
		c.mu.Unlock()
		close(f.done)
	}()

	if res, ok := c.lookup(call); ok {
		f.result, f.err = res, nil
		return clone(res), nil
	}
	inputs, err := Record(call.Dir, call.Inputs)
	if err != nil {
		c.log.Debug("result cache: not caching this call", "tool", call.Tool, "reason", err)
	}
	out := run()
	f.result, f.err = out.Result, out.Err
	if out.Err != nil {
		return nil, out.Err
	}
	if err == nil && out.Keep && storable(out.Result) {
		c.store(call, &entry{key: call.Key, result: clone(out.Result), inputs: inputs})
	}
	return out.Result, nil
}

var errAbandoned = errors.New("resultcache: the call did not finish")

// lookup returns a stored result for call whose inputs are unchanged,
// with the note of a hit.
func (c *Cache) lookup(call Call) (*mcp.CallToolResult, bool) {
	c.mu.Lock()
	el := c.entries[call.Key]
	c.mu.Unlock()
	var e *entry
	fromDisk := false
	if el != nil {
		e = el.Value.(*entry)
	} else if call.Disk {
		e = c.diskTier().load(call.Key, c)
		fromDisk = e != nil
	}
	if e == nil {
		c.count(call, "miss", func(s *Stats) { s.Misses++ })
		return nil, false
	}
	if why := e.inputs.Check(); why != "" {
		c.mu.Lock()
		if el != nil && c.entries[call.Key] == el {
			c.remove(el)
		}
		c.mu.Unlock()
		if call.Disk {
			c.diskTier().remove(call.Key)
		}
		c.count(call, "miss", func(s *Stats) { s.Misses++; s.Changed++ }, "changed", why)
		return nil, false
	}
	c.mu.Lock()
	if fromDisk {
		c.insert(e)
	} else if c.entries[call.Key] == el {
		c.lru.MoveToFront(el)
	}
	c.mu.Unlock()
	c.count(call, "hit", func(s *Stats) {
		s.Hits++
		if fromDisk {
			s.DiskHits++
		}
	})
	res := clone(e.result)
	res.Meta[MetaKey] = map[string]any{"hit": true, "ageMs": time.Since(e.inputs.at).Milliseconds()}
	return res, true
}

// store keeps e in memory, and on disk when call asks.
func (c *Cache) store(call Call, e *entry) {
	var data []byte
	if call.Disk {
		var err error
		if data, err = encode(e); err != nil {
			c.log.Debug("result cache: cannot encode a result", "tool", call.Tool, "err", err)
			return
		}
		e.size = int64(len(data)) + entryOverhead
	} else if e.size = sizeOf(e); e.size < 0 {
		c.log.Debug("result cache: cannot encode a result", "tool", call.Tool)
		return
	}
	if e.size > c.opts.MaxBytes {
		return
	}
	c.mu.Lock()
	if el := c.entries[e.key]; el != nil {
		c.remove(el)
	}
	c.insert(e)
	c.mu.Unlock()
	if call.Disk {
		c.diskTier().save(e.key, data, c)
	}
	c.count(call, "stored", func(s *Stats) { s.Stored++ }, "inputs", e.inputs.Len())
}

// entryOverhead is what an entry costs besides its encoding: the
// decoded result and the list and map cells.
const entryOverhead = 256

// sizeOf is about what e holds in memory: the strings of its result's
// content, its structured content and _meta as JSON, and each record
// with its strings; -1 when the result does not encode.
func sizeOf(e *entry) int64 {
	n := int64(entryOverhead)
	for _, c := range e.result.Content {
		n += int64(unsafe.Sizeof(c)) + int64(len(c.Type)+len(c.Text)+len(c.Data)+len(c.MimeType)+
			len(c.URI)+len(c.Name)+len(c.Title)+len(c.Description))
		if r := c.Resource; r != nil {
			n += int64(unsafe.Sizeof(*r)) + int64(len(r.URI)+len(r.MimeType)+len(r.Text)+len(r.Blob))
		}
	}
	var extra []any
	if e.result.StructuredContent != nil {
		extra = append(extra, e.result.StructuredContent)
	}
	if len(e.result.Meta) > 0 {
		extra = append(extra, e.result.Meta)
	}
	for _, v := range extra {
		b, err := json.Marshal(v)
		if err != nil {
			return -1
		}
		n += int64(len(b))
	}
	for _, r := range e.inputs.records {
		n += int64(unsafe.Sizeof(r)) + int64(len(r.Path)+len(r.Pattern)+len(r.Text)+len(r.Sum))
	}
	return n
}

// insert adds e, evicting the least recently used entries past the
// bounds. mu is held.
func (c *Cache) insert(e *entry) {
	c.entries[e.key] = c.lru.PushFront(e)
	c.stats.Bytes += e.size
	for len(c.entries) > c.opts.MaxEntries || c.stats.Bytes > c.opts.MaxBytes {
		c.remove(c.lru.Back())
		c.stats.Evicted++
	}
}

// remove drops an entry. mu is held.
func (c *Cache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*entry)
	delete(c.entries, e.key)
	c.stats.Bytes -= e.size
}

// count updates the counts and logs the event with them.
func (c *Cache) count(call Call, event string, update func(*Stats), attrs ...any) {
	c.mu.Lock()
	update(&c.stats)
	s := c.stats
	s.Entries = len(c.entries)
	c.mu.Unlock()
	c.log.Debug("result cache: "+event, append([]any{"tool", call.Tool}, append(attrs,
		"hits", s.Hits, "misses", s.Misses, "joined", s.Joined, "entries", s.Entries, "bytes", s.Bytes, "evicted", s.Evicted)...)...)
}

// storable reports whether res may outlive the session it was made in:
// a resource link points into the session.
func storable(res *mcp.CallToolResult) bool {
	if res == nil {
		return false
	}
	for _, c := range res.Content {
		if c.Type == "resource_link" {
			return false
		}
	}
	return true
}

// clone copies what a server changes in a result it sends (Content and
// Meta); StructuredContent is only read.
func clone(res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil {
		return nil
	}
	r := *res
	r.Content = slices.Clone(res.Content)
	r.Meta = maps.Clone(res.Meta)
	if r.Meta == nil {
		r.Meta = map[string]any{}
	}
	return &r
}

// Log logs, at debug level, why a call of tool is not cached.
func (c *Cache) Log(msg, tool string, err error) {
	c.log.Debug("result cache: "+msg, "tool", tool, "reason", err)
}

// FileID returns the identity of the file at path (a symlink followed):
// its path, size, mtime, ctime and inode, so that an executable replaced
// or upgraded in place has another.
func FileID(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	s := statOf(fi)
	b := append(make([]byte, 0, len(path)+80), path...)
	for _, n := range []int64{s.Size, s.Mtime, s.Ctime} {
		b = strconv.AppendInt(append(b, ' '), n, 10)
	}
	b = strconv.AppendUint(append(b, ' '), s.Dev, 10)
	b = strconv.AppendUint(append(b, ' '), s.Ino, 10)
	return string(b), nil
}

func (k Key) String() string { return fmt.Sprintf("%x", k[:]) }
