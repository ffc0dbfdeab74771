// Package warm keeps a value that is costly to build, such as a loaded
// project, across the calls of a server that runs its tools in process
// (through [github.com/mcpship/mcpship/cliadapter] and its siblings), and
// builds it again, on the first call that needs it, after a file it was
// built from changed. It is the "warm environment" of a type checker or
// linter served over MCP: parsed configuration, loaded signatures, an
// index, kept between calls instead of rebuilt by each.
//
// Whether a file changed is decided as for a manifest tool's result
// cache (docs/manifest.md): by size, mode, mtime, ctime and inode, by
// the entries of folders, by symlink targets and by paths that did not
// exist, and by content for a file written too recently for its stat to
// prove anything. Nothing watches the files: the check runs in Get.
package warm

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/mcpship/mcpship/internal/resultcache"
)

// Value holds one value of type T per folder (a project's root), built
// by Build from the files that Inputs name in that folder. The zero Value
// has no inputs and no Build; set both before the first Get. A Value must
// not be copied after first use.
type Value[T any] struct {
	// Inputs are the files, folders ("sig/") and globs ("sig/**/*.rbs")
	// the value is built from, relative to the folder given to Get, or
	// absolute: the same patterns as a manifest's cache inputs. A path
	// that does not exist yet counts too: creating it is a change.
	Inputs []string
	// Build builds the value for dir, an absolute path. The inputs are
	// recorded just before it runs, so a file changed while it runs makes
	// the next Get build again.
	Build func(ctx context.Context, dir string) (T, error)
	// MaxDirs bounds the folders whose values are kept; past it, the one
	// used least recently is dropped. Default 8.
	MaxDirs int

	mu   sync.Mutex
	held map[string]*held[T]
	tick uint64 // counts Gets, for the least recently used
}

// held is the value of one folder, or the build under way.
type held[T any] struct {
	building chan struct{} // closed when the build ends; nil when none runs
	ok       bool          // value and inputs are set
	value    T
	inputs   *resultcache.Inputs
	used     uint64
}

// Get returns the value for dir ("" for the working directory): the one
// kept, when none of its inputs changed since it was built, or a new one
// from Build. Concurrent Gets for one folder share one build. An error or
// a panic of Build is returned as an error and nothing is kept, so the
// next Get builds again.
func (v *Value[T]) Get(ctx context.Context, dir string) (T, error) {
	var zero T
	if v.Build == nil {
		return zero, fmt.Errorf("warm: Value.Build is not set")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return zero, fmt.Errorf("warm: %w", err)
	}
	for {
		v.mu.Lock()
		if v.held == nil {
			v.held = map[string]*held[T]{}
		}
		h := v.held[dir]
		if h == nil {
			h = &held[T]{}
			v.held[dir] = h
		}
		v.tick++
		h.used = v.tick
		if wait := h.building; wait != nil {
			v.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return zero, ctx.Err()
			}
		}
		if h.ok && h.inputs.Check() == "" {
			value := h.value
			v.mu.Unlock()
			return value, nil
		}
		h.building = make(chan struct{})
		v.evict(dir)
		v.mu.Unlock()
		return v.build(ctx, dir, h)
	}
}

// build builds the value of dir into h.
func (v *Value[T]) build(ctx context.Context, dir string, h *held[T]) (value T, err error) {
	inputs, err := resultcache.Record(dir, v.Inputs)
	defer func() {
		p := recover()
		if p != nil {
			err = fmt.Errorf("warm: Build panicked: %v", p)
		}
		v.mu.Lock()
		close(h.building)
		h.building = nil
		h.ok = err == nil
		if h.ok {
			h.value, h.inputs = value, inputs
		} else {
			var zero T
			h.value, h.inputs = zero, nil
		}
		v.mu.Unlock()
	}()
	if err != nil {
		return value, fmt.Errorf("warm: inputs of %s: %w", dir, err)
	}
	return v.Build(ctx, dir)
}

// evict drops the least recently used folders past MaxDirs, but for
// keep and those being built. mu is held.
func (v *Value[T]) evict(keep string) {
	limit := v.MaxDirs
	if limit <= 0 {
		limit = 8
	}
	for len(v.held) > limit {
		oldest := ""
		for dir, h := range v.held {
			if dir != keep && h.building == nil && (oldest == "" || h.used < v.held[oldest].used) {
				oldest = dir
			}
		}
		if oldest == "" {
			return
		}
		delete(v.held, oldest)
	}
}
