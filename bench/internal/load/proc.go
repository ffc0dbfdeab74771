package load

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/mcpship/mcpship/mcp"
)

// Loadavg is the machine's load average over 1, 5 and 15 minutes, from
// /proc/loadavg, or "unknown".
func Loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// StatusBytes returns the "NAME: N kB" lines of /proc/PID/status (names
// with their colon, such as "VmHWM:"), one read for all, in bytes; -1 for
// a name it cannot read.
func StatusBytes(pid int, names ...string) []int64 {
	out := make([]int64, len(names))
	for i := range out {
		out[i] = -1
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(b), "\n") {
		for i, name := range names {
			if v, ok := strings.CutPrefix(l, name); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				out[i] = kb << 10
			}
		}
	}
	return out
}

// RSS is the resident set size (VmRSS) of pid, in bytes, or -1.
func RSS(pid int) int64 { return StatusBytes(pid, "VmRSS:")[0] }

// ServeManifest starts `bin serve --manifest manifest` over stdio and
// initializes it; it returns the client and the server's pid.
func ServeManifest(bin, manifest string) (*mcp.Client, int, error) {
	cmd := exec.Command(bin, "serve", "--manifest", manifest)
	c, err := mcp.StartCommand(cmd, nil)
	if err != nil {
		return nil, 0, err
	}
	if _, err := c.Initialize(context.Background(), ""); err != nil {
		stderr := c.Stderr()
		c.Close()
		return nil, 0, fmt.Errorf("initialize: %v; stderr:\n%s", err, stderr)
	}
	return c, cmd.Process.Pid, nil
}
