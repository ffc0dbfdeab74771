// Command goapp is a small urfave/cli/v2 app that serves its own commands
// as MCP tools through package cliadapter: "goapp mcp" is the server an
// assistant starts.
//
//	goapp count --by words README.md
//	goapp find --pattern TODO main.go    # exits 1 when nothing matches, like grep
//	goapp touch notes.txt                # write-side: served only with "goapp mcp --allow-write"
//	goapp mcp
//	goapp init                           # register "goapp mcp" with Claude Code in this project
//	goapp doctor                         # start it as the assistant would and list its tools
//	goapp remove
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/cliadapter"
	"github.com/mcpship/mcpship/registercmd"
)

func main() {
	app := newApp()
	app.ExitErrHandler = func(*cli.Context, error) {} // reported here, once
	err := app.Run(os.Args)
	if err == nil {
		return
	}
	code := 1
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(os.Stderr, "goapp:", msg)
	}
	if code == 64 {
		fmt.Fprintln(os.Stderr, "Run 'goapp help' for usage.")
	}
	os.Exit(code)
}

// tools are the commands goapp serves over MCP.
var tools = cliadapter.Options{
	Prefix: "goapp_",
	Tools: []cliadapter.Tool{
		// A count depends only on the files counted: kept while they are unchanged.
		{Command: "count", ReadOnly: true, Args: "files", JSON: true, Enum: map[string][]string{"by": {"lines", "words", "bytes"}}, Cache: []string{"{files}"}},
		// Matches can run to thousands of lines: past 20,000 characters the
		// result keeps the first and the last, and the rest is a resource.
		{Command: "find", ReadOnly: true, Args: "files", OKExitCodes: []int{0, 1}, OutputBudget: 20000},
		// touch changes files: not ReadOnly, so served only with "mcp --allow-write".
		{Command: "touch", Args: "files"},
	},
}

// server is what "goapp init" registers with AI assistants: "goapp mcp",
// and "goapp mcp --allow-write" with --allow-write. "goapp remove" takes
// it out again and "goapp doctor" checks it answers.
var server = registercmd.Program{
	Args:  []string{"mcp"},
	Flags: []registercmd.Flag{{Name: "allow-write", Bool: true, Usage: "register 'mcp --allow-write', which also serves the commands that change things"}},
}

// newApp builds the app; cliadapter calls it afresh for every tool call.
func newApp() *cli.App {
	app := &cli.App{
		Name:    "goapp",
		Usage:   "count and find words in text files",
		Version: "0.1.0",
		Commands: []*cli.Command{
			{
				Name:      "count",
				Usage:     "count the lines, words or bytes of files",
				ArgsUsage: "FILE...",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "by", Value: "lines", Usage: "what to count: lines, words or bytes"},
				},
				Action: count,
			},
			{
				Name:      "find",
				Usage:     "print the lines of files that contain a string",
				ArgsUsage: "FILE...",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "pattern", Required: true, Usage: "text to look for"},
					&cli.BoolFlag{Name: "ignore-case", Usage: "match regardless of case"},
					&cli.IntFlag{Name: "max", Value: 100, Usage: "stop after this many matching lines"},
				},
				Action: find,
			},
			{
				Name:      "touch",
				Usage:     "create empty files",
				ArgsUsage: "FILE...",
				Action: func(c *cli.Context) error {
					for _, name := range c.Args().Slice() {
						f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY, 0o644)
						if err != nil {
							return cli.Exit(err, 2)
						}
						f.Close()
					}
					return nil
				},
			},
		},
	}
	app.Commands = append(app.Commands, cliadapter.Commands(newApp, tools)...)
	app.Commands = append(app.Commands, registercmd.Commands(server)...)
	return app
}

func count(c *cli.Context) error {
	by := c.String("by")
	if by != "lines" && by != "words" && by != "bytes" {
		return cli.Exit(fmt.Sprintf("--by %q: use lines, words or bytes", by), 64)
	}
	counts := map[string]int{}
	for _, name := range c.Args().Slice() {
		b, err := os.ReadFile(name)
		if err != nil {
			return cli.Exit(err, 2)
		}
		switch by {
		case "lines":
			counts[name] = strings.Count(string(b), "\n")
		case "words":
			counts[name] = len(strings.Fields(string(b)))
		default:
			counts[name] = len(b)
		}
	}
	return json.NewEncoder(c.App.Writer).Encode(map[string]any{"by": by, "counts": counts})
}

func find(c *cli.Context) error {
	pattern, found := c.String("pattern"), 0
	if c.Bool("ignore-case") {
		pattern = strings.ToLower(pattern)
	}
	for _, name := range c.Args().Slice() {
		f, err := os.Open(name)
		if err != nil {
			return cli.Exit(err, 2)
		}
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan() && found < c.Int("max"); n++ {
			line := sc.Text()
			if c.Bool("ignore-case") {
				line = strings.ToLower(line)
			}
			if strings.Contains(line, pattern) {
				found++
				fmt.Fprintf(c.App.Writer, "%s:%d:%s\n", name, n, sc.Text())
			}
		}
		f.Close()
	}
	if found == 0 {
		return cli.Exit("", 1)
	}
	return nil
}
