package tests

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readPids waits until file lists n pids, and returns them.
func readPids(t *testing.T, file string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // long: the machine may be busy
	for {
		b, _ := os.ReadFile(file)
		fields := strings.Fields(string(b))
		if len(fields) >= n {
			var pids []int
			for _, f := range fields {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("pid file %s: %v", file, err)
				}
				pids = append(pids, pid)
			}
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid file %s lists %d pids after 60s, want %d", file, len(fields), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
