package worker

import (
	"slices"
	"sync"
)

// Set holds pools by Config, so that the tools of a manifest that name
// the same worker share its processes. The zero Set is ready to use.
type Set struct {
	mu       sync.Mutex
	pools    map[string]*Pool
	order    []string // keys, the least recently used first
	closed   bool
	evicting sync.WaitGroup
}

// maxPools bounds the pools a Set keeps, as eslint_d keeps its last ten
// working directories: a pool is per working directory and environment,
// and inputs bound to variables can make many. Beyond it, the least
// recently used pool with no call in flight is closed.
const maxPools = 10

// Pool returns the pool for cfg, making it on first use.
func (s *Set) Pool(cfg Config) *Pool {
	k := cfg.key()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.order = slices.DeleteFunc(s.order, func(x string) bool { return x == k })
	s.order = append(s.order, k)
	if p, ok := s.pools[k]; ok {
		return p
	}
	if s.pools == nil {
		s.pools = map[string]*Pool{}
	}
	p := NewPool(cfg)
	if s.closed {
		p.closed = true
	}
	s.pools[k] = p
	for i := 0; len(s.pools) > maxPools && i < len(s.order)-1; i++ {
		if old := s.pools[s.order[i]]; !old.busy() {
			delete(s.pools, s.order[i])
			s.order = slices.Delete(s.order, i, i+1)
			s.evicting.Go(func() { old.close(true) })
			i--
		}
	}
	return p
}

// busy reports whether a call is in flight on one of p's workers.
func (p *Pool) busy() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.ContainsFunc(p.procs, func(pr *proc) bool { return len(pr.waiting) > 0 })
}

// Close closes every pool, waiting for their workers to be gone.
func (s *Set) Close() {
	s.mu.Lock()
	s.closed = true
	pools := make([]*Pool, 0, len(s.pools))
	for _, p := range s.pools {
		pools = append(pools, p)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range pools {
		wg.Go(p.Close)
	}
	wg.Wait()
	s.evicting.Wait()
}
