package filelock

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// testLock checks that lock excludes other holders.
func testLock(t *testing.T, lock func(string) (func(), error)) {
	path := filepath.Join(t.TempDir(), "f.lock")
	var mu sync.Mutex
	holders, most := 0, 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := lock(path)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			holders++
			most = max(most, holders)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
			mu.Lock()
			holders--
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d holders at once, want 1", most)
	}
}

func TestLockFile(t *testing.T) { testLock(t, Lock) }
