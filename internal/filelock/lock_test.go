package filelock

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestLockError checks that a lock file that cannot be created is an
// error that names it.
func TestLockError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "f.lock")
	unlock, err := Lock(path)
	if err == nil {
		unlock()
		t.Fatalf("Lock(%s) in a folder that does not exist: no error", path)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("Lock(%s): %v, want an error that names the file", path, err)
	}
}

// TestLockReleasedWhenHolderDies checks that a lock held by a process
// that is killed is free again: it is never stale.
func TestLockReleasedWhenHolderDies(t *testing.T) {
	if path := os.Getenv("FILELOCK_TEST_HOLD"); path != "" {
		if _, err := Lock(path); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("locked")
		select {} // hold it until killed
	}
	path := filepath.Join(t.TempDir(), "f.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockReleasedWhenHolderDies$")
	cmd.Env = append(os.Environ(), "FILELOCK_TEST_HOLD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the holder said %q, want locked", line)
	}
	got := make(chan error, 1)
	go func() {
		unlock, err := Lock(path)
		if err == nil {
			unlock()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("Lock returned while another process held the lock: %v", err)
	default:
	}
	cmd.Process.Kill()
	cmd.Wait()
	if err := <-got; err != nil {
		t.Errorf("Lock after the holder died: %v", err)
	}
}
