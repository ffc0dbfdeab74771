// Package spill keeps the whole output of tool results that were cut to
// fit the client's budget, and serves it back as MCP resources
// ([mcp.ResourceSource]): a result says what was cut and links to the
// resource, and the client reads the rest with resources/read.
//
// What is kept is bounded twice: newest outputs in memory up to one
// limit, older ones moved to files in a private folder up to another,
// and past both the oldest are dropped. The folder (0700, files 0600) is
// made at the first file and removed by [Store.Close]; a folder left by a
// process that was killed is removed by the next [New] that finds it.
package spill

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpship/mcpship/mcp"
)

// Defaults of New's limits.
const (
	DefaultMemoryBytes = 16 << 20
	DefaultDiskBytes   = 256 << 20
)

// prefix begins the URIs of the resources: mcpship://output/TOKEN-N.
const prefix = "mcpship://output/"

// Store keeps outputs. It is safe for concurrent use.
type Store struct {
	maxMem, maxDisk int64
	base            string // where the folder is made: os.TempDir()
	token           string // random, in every URI, so that URIs of another process never match

	mu      sync.Mutex
	dir     string   // the private folder, "" until the first file
	entries []*entry // oldest first
	byURI   map[string]*entry
	mem     int64 // bytes of the entries held in memory
	disk    int64 // bytes of the entries in files
	seq     int
	closed  bool
}

type entry struct {
	res  mcp.Resource
	data []byte // in memory; nil when in a file
	file string // the file, when not in memory
}

// New returns a store keeping at most maxMem bytes in memory and maxDisk
// bytes in files (either 0 for the default; negative for none at all).
func New(maxMem, maxDisk int64) *Store {
	if maxMem == 0 {
		maxMem = DefaultMemoryBytes
	}
	if maxDisk == 0 {
		maxDisk = DefaultDiskBytes
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	s := &Store{maxMem: max(maxMem, 0), maxDisk: max(maxDisk, 0), base: os.TempDir(),
		token: hex.EncodeToString(b), byURI: map[string]*entry{}}
	removeStale(s.base)
	return s
}

// Keep stores data, the whole output of a call, and returns the resource
// that names it. name is a short name (a tool's), description says what
// the data is, mimeType what it holds: text is served as text when it is
// valid UTF-8, anything else as a blob. ok is false when data is larger
// than both limits together, or the store is closed: nothing is kept.
func (s *Store) Keep(name, description, mimeType string, data []byte) (res mcp.Resource, ok bool) {
	size := int64(len(data))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || size > max(s.maxMem, s.maxDisk) {
		return mcp.Resource{}, false
	}
	if isText(mimeType) && !utf8.Valid(data) {
		mimeType = "application/octet-stream"
	}
	s.seq++
	e := &entry{res: mcp.Resource{
		URI:         prefix + s.token + "-" + strconv.Itoa(s.seq),
		Name:        fmt.Sprintf("%s output %d", name, s.seq),
		Description: description,
		MimeType:    mimeType,
		Size:        size,
	}, data: append([]byte(nil), data...)}
	s.entries = append(s.entries, e)
	s.byURI[e.res.URI] = e
	s.mem += size
	s.settle()
	_, ok = s.byURI[e.res.URI]
	return e.res, ok
}

// Keeper returns a function that keeps the whole output of a call of
// tool whose result was cut to fit its budget, as [toolresult.Budget]'s
// Keep takes it.
func (s *Store) Keeper(tool string) func(mimeType string, data []byte) (mcp.Resource, bool) {
	return func(mimeType string, data []byte) (mcp.Resource, bool) {
		desc := fmt.Sprintf("The whole output of a call of %s at %s, whose result was cut to fit the output budget.",
			tool, time.Now().UTC().Format("15:04:05 UTC"))
		return s.Keep(tool, desc, mimeType, data)
	}
}

// settle moves the oldest entries held in memory to files while memory is
// over its limit, dropping the oldest files to make room for them, and
// drops an entry that cannot be written.
func (s *Store) settle() {
	for s.mem > s.maxMem {
		var e *entry
		for _, x := range s.entries {
			if x.data != nil {
				e = x
				break
			}
		}
		size := int64(len(e.data))
		for s.disk+size > s.maxDisk && s.dropOldestFile() {
		}
		s.mem -= size
		if s.disk+size <= s.maxDisk && s.write(e) == nil {
			s.disk += size
			e.data = nil
		} else {
			s.drop(e)
		}
	}
}

// dropOldestFile drops the oldest entry kept in a file; false when there
// is none.
func (s *Store) dropOldestFile() bool {
	for _, e := range s.entries {
		if e.file != "" {
			s.disk -= e.res.Size
			s.drop(e)
			return true
		}
	}
	return false
}

// drop forgets e and removes its file.
func (s *Store) drop(e *entry) {
	if e.file != "" {
		_ = os.Remove(e.file)
	}
	delete(s.byURI, e.res.URI)
	for i, x := range s.entries {
		if x == e {
			s.entries = append(s.entries[:i], s.entries[i+1:]...)
			break
		}
	}
}

// write puts e's data in a file of the private folder, making it first.
func (s *Store) write(e *entry) error {
	if s.dir == "" {
		dir, err := os.MkdirTemp(s.base, fmt.Sprintf("mcpship-output-%d-", os.Getpid()))
		if err != nil {
			return err
		}
		s.dir = dir // MkdirTemp makes it 0700
	}
	f := filepath.Join(s.dir, strconv.Itoa(s.seqOf(e)))
	if err := os.WriteFile(f, e.data, 0o600); err != nil {
		_ = os.Remove(f)
		return err
	}
	e.file = f
	return nil
}

func (s *Store) seqOf(e *entry) int {
	n, _ := strconv.Atoi(e.res.URI[strings.LastIndexByte(e.res.URI, '-')+1:])
	return n
}

// ListResources lists what is kept, newest first, on one page.
func (s *Store) ListResources(_ context.Context, cursor string) ([]mcp.Resource, string, error) {
	if cursor != "" {
		return nil, "", &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("invalid cursor %q: the outputs are listed on one page; list without a cursor", cursor)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list := make([]mcp.Resource, 0, len(s.entries))
	for i := len(s.entries) - 1; i >= 0; i-- {
		list = append(list, s.entries[i].res)
	}
	return list, "", nil
}

// ReadResource returns a kept output: as text when its type is text, as
// a blob otherwise. An output that was dropped to make room is not found,
// and the error says so.
func (s *Store) ReadResource(_ context.Context, uri string) ([]mcp.ResourceContents, error) {
	s.mu.Lock()
	e, ok := s.byURI[uri]
	var data []byte
	var file string
	if ok {
		data, file = e.data, e.file
	}
	s.mu.Unlock()
	if !ok {
		msg := "resource not found: " + uri
		if strings.HasPrefix(uri, prefix+s.token+"-") {
			msg += " (outputs are kept for a while, oldest dropped first when the store is full; run the tool again)"
		}
		return nil, &mcp.Error{Code: mcp.CodeResourceNotFound, Message: msg, Data: map[string]any{"uri": uri}}
	}
	if data == nil {
		var err error
		if data, err = os.ReadFile(file); err != nil {
			return nil, &mcp.Error{Code: mcp.CodeResourceNotFound, Message: fmt.Sprintf("resource %s: cannot read the kept output: %v", uri, err), Data: map[string]any{"uri": uri}}
		}
	}
	c := mcp.ResourceContents{URI: uri, MimeType: e.res.MimeType}
	if isText(c.MimeType) {
		c.Text = string(data)
	} else {
		c.Blob = base64.StdEncoding.EncodeToString(data)
	}
	return []mcp.ResourceContents{c}, nil
}

// Close drops everything kept and removes the folder. Later Keeps keep
// nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.entries, s.byURI, s.mem, s.disk = nil, map[string]*entry{}, 0, 0
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return err
}

// removeStale removes the folders that processes no longer running left
// in base (killed before Close), judged by the pid in the name, and only
// those older than a minute, whose owner is surely gone or long past
// making them.
func removeStale(base string) {
	matches, _ := filepath.Glob(filepath.Join(base, "mcpship-output-*-*"))
	for _, dir := range matches {
		f := strings.Split(filepath.Base(dir), "-")
		if len(f) != 4 {
			continue
		}
		pid, err := strconv.Atoi(f[2])
		if err != nil || pid == os.Getpid() || alive(pid) {
			continue
		}
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() && time.Since(fi.ModTime()) > time.Minute {
			_ = os.RemoveAll(dir)
		}
	}
}

// isText reports whether outputs of the type are served as text.
func isText(mimeType string) bool {
	return strings.HasPrefix(mimeType, "text/") || mimeType == "application/json"
}
