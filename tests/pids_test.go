package tests

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpship/mcpship/internal/testutil"
)

// readPids waits until file lists n pids, and returns them.
func readPids(t *testing.T, file string, n int) []int {
	t.Helper()
	var fields []string
	testutil.WaitFor(t, 60*time.Second, fmt.Sprintf("%s to list %d pids", file, n), func() bool {
		b, _ := os.ReadFile(file)
		fields = strings.Fields(string(b))
		return len(fields) >= n
	})
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
