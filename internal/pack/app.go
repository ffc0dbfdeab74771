package pack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/mcpship/mcpship/internal/mcpb"
	"github.com/mcpship/mcpship/mcp"
)

// appServer lists the tools of an app that serves itself, by starting its
// build for this machine and asking it.
func appServer(name string, args []string, bins Binaries) (*server, error) {
	if len(args) == 0 {
		args = []string{"mcp"}
	}
	host := Platform{runtime.GOOS, runtime.GOARCH}
	exe := bins[host]
	if exe == nil && host.OS == "darwin" {
		exe = bins[Platform{"darwin", "all"}]
	}
	if exe == nil {
		return nil, fmt.Errorf("listing the tools of %s needs its build for this machine (%s) among the binaries", name, host)
	}
	dir, err := os.MkdirTemp("", "mcpship-pack-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, host.exe(name))
	if err := os.WriteFile(file, exe, 0o755); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(file, args...)
	c, err := mcp.StartCommand(cmd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "mcpship-pack", Version: "1"}, TerminateTimeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("start %s %v to list its tools: %w", name, args, err)
	}
	defer c.Close()
	if _, err := c.Initialize(ctx, ""); err != nil {
		return nil, fmt.Errorf("%s %v did not answer the MCP handshake: %w\n%s", name, args, err, c.Stderr())
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s %v did not list its tools: %w\n%s", name, args, err, c.Stderr())
	}
	srv := &server{exe: name, args: args}
	for _, t := range tools {
		srv.tools = append(srv.tools, mcpb.Tool{Name: t.Name, Description: t.Description})
	}
	return srv, nil
}
