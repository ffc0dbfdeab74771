package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The start budget: what the module's own packages may allocate while
// they are set up, before main runs, summed. Every command pays it, serve
// at each start too. Today they take about 80 kB in 480 allocations, most
// of it internal/wrap's word lists; one regexp with a counted repetition
// such as {0,499} took 1.3 MB and 13,700 allocations on its own.
const (
	startBytes  = 128 << 10
	startAllocs = 1000
)

// TestStartCost runs mcpship version with GODEBUG=inittrace=1 and puts a
// budget on the set-up of the module's packages: a package-level value
// that is costly to build (a regexp, a table) is built on first use
// instead (sync.OnceValue), so that commands that do not use it do not
// pay for it.
func TestStartCost(t *testing.T) {
	cmd := exec.Command(binPath, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcpship version: %v\n%s", err, stderr.String())
	}
	type cost struct {
		pkg           string
		bytes, allocs int
	}
	var costs []cost
	var bytesSum, allocsSum int
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		if !strings.HasPrefix(f[1], "github.com/mcpship/mcpship/") && f[1] != "main" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			t.Fatalf("cannot read the inittrace line %q", sc.Text())
		}
		costs = append(costs, cost{f[1], b, a})
		bytesSum += b
		allocsSum += a
	}
	if len(costs) == 0 {
		t.Fatalf("no inittrace line for a package of the module in mcpship version's stderr:\n%s", stderr.String())
	}
	if bytesSum <= startBytes && allocsSum <= startAllocs {
		t.Logf("the module's packages set up with %d bytes in %d allocations", bytesSum, allocsSum)
		return
	}
	slices.SortFunc(costs, func(x, y cost) int { return y.bytes - x.bytes })
	var b strings.Builder
	for _, c := range costs {
		fmt.Fprintf(&b, "  %s: %d bytes, %d allocations\n", c.pkg, c.bytes, c.allocs)
	}
	t.Errorf("the module's packages allocate %d bytes in %d allocations as they are set up, over the budget of %d bytes and %d allocations "+
		"that every command pays: build what the heaviest below makes at package level on first use (sync.OnceValue), "+
		"or without a regexp\n%s", bytesSum, allocsSum, startBytes, startAllocs, b.String())
}
