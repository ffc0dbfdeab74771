package tests

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkBareExec runs the stand-in directly, as a baseline for
// BenchmarkManifestCall: the difference is what mcpship adds per call.
func BenchmarkBareExec(b *testing.B) {
	standin := filepath.Join(standinDir, "standin"+exeSuffix())
	for b.Loop() {
		if _, err := exec.Command(standin, "x").Output(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkManifestCall calls a manifest tool that runs the stand-in with
// the same argument, over stdio through the built mcpship.
func BenchmarkManifestCall(b *testing.B) {
	c := serve(b, "--manifest", standinManifest)
	args := map[string]any{"words": []string{"x"}}
	for b.Loop() {
		res, err := c.CallTool(context.Background(), "slow", args)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkAdapterCall calls an in-process tool of examples/goapp.
func BenchmarkAdapterCall(b *testing.B) {
	c := startServer(b, goappPath, "mcp")
	args := map[string]any{"by": "words"}
	for b.Loop() {
		res, err := c.CallTool(context.Background(), "goapp_count", args)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
