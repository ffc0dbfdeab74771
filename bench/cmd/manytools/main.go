// Command manytools times the start of `mcpship serve` with a manifest of
// -n tools against an mcp-go server with the same -n tools
// (servers/mcpgo-many): spawn → initialize reply, and spawn → the full
// first tools/list (every page), over -spawns cold starts of each,
// interleaved. It prints a Markdown table of medians and p90s.
//
//	go build -o /tmp/mcpgo-many ./servers/mcpgo-many
//	(cd .. && go build -o /tmp/mcpship ./cmd/mcpship)
//	go run ./cmd/manytools -mcpship /tmp/mcpship -mcpgo /tmp/mcpgo-many
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	n := flag.Int("n", 1000, "number of tools")
	spawns := flag.Int("spawns", 30, "cold starts of each server")
	mcpship := flag.String("mcpship", "mcpship", "the mcpship binary")
	mcpgo := flag.String("mcpgo", "mcpgo-many", "the servers/mcpgo-many binary")
	before := flag.String("before", "", "another mcpship binary to time in the same run, such as a build of main")
	flag.Parse()

	dir, err := os.MkdirTemp("", "manytools")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "mcpship.json")
	if err := os.WriteFile(file, manifest(*n), 0o644); err != nil {
		log.Fatal(err)
	}
	type server struct {
		name string
		argv []string
	}
	servers := []server{
		{"mcp-go", []string{*mcpgo, "-n", fmt.Sprint(*n)}},
		{"mcpship serve", []string{*mcpship, "serve", "--manifest", file}},
	}
	if *before != "" {
		servers = append(servers, server{"mcpship before", []string{*before, "serve", "--manifest", file}})
	}
	init := make([][]time.Duration, len(servers))
	list := make([][]time.Duration, len(servers))
	for i := range *spawns {
		for j := range servers {
			k := (i + j) % len(servers) // rotate who goes first
			s := servers[k]
			a, b, tools := start(s.argv)
			if tools != *n {
				log.Fatalf("%s listed %d tools, want %d", s.name, tools, *n)
			}
			init[k], list[k] = append(init[k], a), append(list[k], b)
		}
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/1e6) }
	fmt.Printf("%d tools, %d cold starts each, interleaved\n\n", *n, *spawns)
	head, rule := "| metric |", "|---|"
	for _, s := range servers {
		head, rule = head+" "+s.name+" |", rule+"---:|"
	}
	for _, s := range servers[1:] {
		head, rule = head+" "+s.name+" / mcp-go |", rule+"---:|"
	}
	fmt.Println(head)
	fmt.Println(rule)
	for _, row := range []struct {
		name string
		d    [][]time.Duration
		q    float64
	}{
		{"spawn→initialize, median (ms)", init, 0.5}, {"spawn→initialize, p90 (ms)", init, 0.9},
		{"spawn→full tools/list, median (ms)", list, 0.5}, {"spawn→full tools/list, p90 (ms)", list, 0.9},
	} {
		line := "| " + row.name + " |"
		for k := range servers {
			line += " " + ms(quantile(row.d[k], row.q)) + " |"
		}
		for k := range servers[1:] {
			line += fmt.Sprintf(" %.2f× |", float64(quantile(row.d[k+1], row.q))/float64(quantile(row.d[0], row.q)))
		}
		fmt.Println(line)
	}
}

// manifest returns a manifest of n tools, each with a required string, an
// integer with a default, an array and a boolean flag.
func manifest(n int) []byte {
	type input map[string]any
	tools := make([]map[string]any, n)
	for i := range tools {
		tools[i] = map[string]any{
			"name":        fmt.Sprintf("tool_%04d", i),
			"description": fmt.Sprintf("Tool number %d: check the files given and report what it finds.", i),
			"command":     []string{"echo", "{path}", "{count}", "{tags}", "{verbose}"},
			"inputs": map[string]input{
				"path":    {"required": true, "description": "the file to check"},
				"count":   {"type": "integer", "default": 10, "description": "how many findings at most"},
				"tags":    {"type": "array", "description": "tags to select"},
				"verbose": {"type": "boolean", "flag": "--verbose", "description": "say more"},
			},
		}
	}
	b, err := json.MarshalIndent(map[string]any{"tools": tools}, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	return b
}

// start spawns argv, and returns the time to the initialize reply, the
// time to the last page of tools/list, and the number of tools listed.
func start(argv []string) (time.Duration, time.Duration, int) {
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	r := bufio.NewReaderSize(stdout, 1<<20)
	send := func(s string) {
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			log.Fatal(err)
		}
	}
	read := func() map[string]json.RawMessage {
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				log.Fatalf("%s: %v", argv[0], err)
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) == nil && m["id"] != nil {
				return m
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"manytools","version":"1"}}}`)
	read()
	initDone := time.Since(t0)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	tools, cursor := 0, ""
	for id := 1; ; id++ {
		params := "{}"
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params))
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(read()["result"], &res); err != nil {
			log.Fatal(err)
		}
		tools += len(res.Tools)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	listDone := time.Since(t0)
	stdin.Close()
	_ = cmd.Wait()
	return initDone, listDone, tools
}

func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}
