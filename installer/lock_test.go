package installer

import (
	"os"
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

func TestLockFile(t *testing.T) { testLock(t, lockFile) }

func TestLockExclusive(t *testing.T) {
	testLock(t, func(p string) (func(), error) { return lockExclusive(p, time.Minute, time.Minute) })

	// A stale lock is taken over; a fresh one is waited for.
	path := filepath.Join(t.TempDir(), "g.lock")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := lockExclusive(path, time.Hour, 50*time.Millisecond); err == nil {
		t.Error("took a fresh lock held by another")
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockExclusive(path, time.Minute, 50*time.Millisecond)
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	unlock()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("unlock left the lock file")
	}
}
