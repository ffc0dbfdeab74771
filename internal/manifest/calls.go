package manifest

import "sync"

// calls counts the runs in progress; once closed, no run may start.
type calls struct {
	mu     sync.Mutex
	cond   *sync.Cond
	n      int
	closed bool
}

func (c *calls) start() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.n++
	return true
}

func (c *calls) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n == 0 && c.cond != nil {
		c.cond.Broadcast()
	}
}

// closeAndWait stops new runs and waits for those in progress.
func (c *calls) closeAndWait() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.cond == nil {
		c.cond = sync.NewCond(&c.mu)
	}
	for c.n > 0 {
		c.cond.Wait()
	}
}
