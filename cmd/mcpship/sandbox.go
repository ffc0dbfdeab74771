package main

import (
	"log/slog"
	"strings"

	"github.com/mcpship/mcpship/internal/manifest"
	"github.com/mcpship/mcpship/internal/sandbox"
	"github.com/mcpship/mcpship/mcp"
)

// requireSandboxUsage is the usage of serve --require-sandbox.
const requireSandboxUsage = "refuse to serve (exit 64) when a read-only tool would run outside the read-only sandbox, or with less of it than Landlock's ABI 4 confines (docs/manifest.md, \"The read-only sandbox\")"

// checkSandbox says once in the log how the read-only tools srv serves
// are confined, warning of those left unconfined, and with require
// returns a usage error naming those that would run unconfined. mcpship's
// own tools run inside its process: only require refuses them.
func checkSandbox(srv *mcp.Server, logger *slog.Logger, require bool) error {
	var confined, unconfined, inProcess []string
	var why string
	for _, t := range srv.Tools() {
		if t.Annotations == nil || t.Annotations.ReadOnlyHint == nil || !*t.Annotations.ReadOnlyHint {
			continue
		}
		st, _ := t.Meta[manifest.SandboxMeta].(string)
		switch {
		case st == "": // mcpship's own, read-only by construction
			inProcess = append(inProcess, t.Name)
		case strings.HasPrefix(st, "none: "):
			unconfined = append(unconfined, t.Name)
			why = strings.TrimPrefix(st, "none: ")
		case strings.Contains(st, " "): // landlock-vN (what it leaves out)
			unconfined = append(unconfined, t.Name)
			why = st
		default:
			confined = append(confined, t.Name)
		}
	}
	v, _ := sandbox.Available()
	if len(confined) > 0 {
		logger.Info("read-only tools run in the read-only sandbox", "landlock", v, "tools", len(confined))
	}
	if lacks := sandbox.Lacks(); lacks != "" && len(confined)+len(unconfined) > 0 {
		logger.Warn("this kernel's Landlock leaves part of the read-only sandbox out", "landlock", v, "unconfined", lacks)
	}
	if require && len(inProcess) > 0 {
		return usagef("--require-sandbox: read-only tools %s would run outside the read-only sandbox: they run inside mcpship's own process", strings.Join(inProcess, ", "))
	}
	if len(unconfined) == 0 {
		return nil
	}
	if require {
		return usagef("--require-sandbox: read-only tools %s would run outside the read-only sandbox: %s", strings.Join(unconfined, ", "), why)
	}
	logger.Warn("read-only tools run unconfined", "why", why, "tools", strings.Join(unconfined, ","))
	return nil
}
