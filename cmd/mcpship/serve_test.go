package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// serveOptionsOf parses serve's command line as run does, without serving.
func serveOptionsOf(t *testing.T, args ...string) (serveOptions, error) {
	t.Helper()
	cmd := serveCommand()
	var o serveOptions
	var err error
	cmd.Action = func(c *cli.Context) error {
		o, err = readServeOptions(c)
		return nil
	}
	app := newAppWith(nil, io.Discard, io.Discard, []*cli.Command{cmd})
	app.Metadata = map[string]any{"dashes": slices.Contains(args, "--")}
	if rerr := app.Run(append([]string{"mcpship", "serve"}, args...)); rerr != nil {
		return o, rerr
	}
	return o, err
}

func TestServeOptions(t *testing.T) {
	o, err := serveOptionsOf(t, "--manifest", "a,b.json", "--manifest", " c.json", "--set", "x=1,2")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.manifests, []string{"a,b.json", " c.json"}) || !slices.Equal(o.sets, []string{"x=1,2"}) {
		t.Errorf("manifests %q, sets %q: want each value whole", o.manifests, o.sets)
	}
	if o.transport != "stdio" || o.maxCalls != 16 || o.http.HTTP.MaxConcurrentCalls != 64 {
		t.Errorf("defaults: transport %q, calls %d over stdio and %d over HTTP", o.transport, o.maxCalls, o.http.HTTP.MaxConcurrentCalls)
	}

	o, err = serveOptionsOf(t, "--transport", "http", "--max-concurrent-calls", "3", "--env-from-header", "X-Token=TOKEN",
		"--max-children", "2", "--", "srv", "--flag")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.command, []string{"srv", "--flag"}) || o.http.HTTP.MaxConcurrentCalls != 3 ||
		o.bridge.MaxChildren != 2 || len(o.bridge.EnvHeaders) != 1 {
		t.Errorf("bridge options: %+v", o)
	}
}

func TestServeOptionsRefuse(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--"}, "-- needs the server command after it"},
		{[]string{"srv"}, `serve takes no arguments, got "srv"`},
		{[]string{"--", "srv"}, "add --transport http"},
		{[]string{"--transport", "http", "--manifest", "m.json", "--", "srv"}, "give one or the other"},
		{[]string{"--max-children", "2"}, "--max-children needs a server command after --"},
		{[]string{"--listen", ":0"}, "--listen needs --transport http"},
		{[]string{"--transport", "ws"}, `unsupported --transport "ws"`},
		{[]string{"--transport", "http", "--max-body-bytes", "10"}, "--max-body-bytes 10 is too small"},
		{[]string{"--transport", "http", "--drain-grace", "0s"}, "--drain-grace must be positive"},
		{[]string{"--transport", "http", "--session-lifetime", "1h"}, "--session-lifetime needs --session-key-file"},
		{[]string{"--max-message-bytes", "5"}, "--max-message-bytes 5 is too small"},
		{[]string{"--progress-interval", "0s"}, "--progress-interval must be positive"},
		{[]string{"--log-level", "loud"}, `invalid --log-level "loud"`},
		{[]string{"--set", "x=1"}, "--set needs --manifest"},
		{[]string{"--transport", "http", "--call-timeout", "0s", "--", "srv"}, "--call-timeout must be positive"},
		{[]string{"--transport", "http", "--env-from-header", "nope", "--", "srv"}, `--env-from-header "nope"`},
	} {
		_, err := serveOptionsOf(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || exitCode(err) != exitUsage {
			t.Errorf("serve %q: %v (exit %d), want a usage error saying %q", c.args, err, exitCode(err), c.want)
		}
	}
}

// TestRunServeOwnTools serves mcpship's own tools over stdio from options,
// without the command line.
func TestRunServeOwnTools(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	o := serveOptions{transport: "stdio", maxMessageBytes: 1 << 20, maxCalls: 1, progressInterval: time.Second,
		stdin: strings.NewReader(in), stdout: &out, stderr: io.Discard}
	if err := runServe(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	var names []string
	for dec.More() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Tools []struct{ Name string } `json:"tools"`
			} `json:"result"`
		}
		if err := dec.Decode(&msg); err != nil {
			t.Fatal(err)
		}
		for _, tool := range msg.Result.Tools {
			names = append(names, tool.Name)
		}
	}
	if !slices.Equal(names, []string{"mcpship_version"}) {
		t.Errorf("tools %q, want mcpship_version alone", names)
	}
}
