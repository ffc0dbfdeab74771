// Command cliv3app is goapp (examples/goapp) written with urfave/cli v3:
// it serves its own commands as MCP tools through package cliv3adapter,
// and "cliv3app mcp" is the server an assistant starts.
//
//	cliv3app count --by words README.md
//	cliv3app find --pattern TODO main.go    # exits 1 when nothing matches, like grep
//	cliv3app touch notes.txt                # write-side: served only with "cliv3app mcp --allow-write"
//	cliv3app mcp
//	cliv3app init                           # register "cliv3app mcp" with Claude Code in this project
//	cliv3app doctor                         # start it as the assistant would and list its tools
//	cliv3app remove
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpship/mcpship/cliv3adapter"
)

func main() {
	root := newRoot()
	root.ExitErrHandler = func(context.Context, *cli.Command, error) {} // reported here, once
	err := root.Run(context.Background(), os.Args)
	if err == nil {
		return
	}
	code := 1
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(os.Stderr, "cliv3app:", msg)
	}
	if code == 64 {
		fmt.Fprintln(os.Stderr, "Run 'cliv3app help' for usage.")
	}
	os.Exit(code)
}

// tools are the commands cliv3app serves over MCP.
var tools = cliv3adapter.Options{
	Prefix: "cliv3app_",
	Tools: []cliv3adapter.Tool{
		// A count depends only on the files counted: kept while they are unchanged.
		{Command: "count", ReadOnly: true, Args: "files", JSON: true, Enum: map[string][]string{"by": {"lines", "words", "bytes"}}, Cache: []string{"{files}"}},
		// Matches can run to thousands of lines: past 20,000 characters the
		// result keeps the first and the last, and the rest is a resource.
		{Command: "find", ReadOnly: true, Args: "files", OKExitCodes: []int{0, 1}, OutputBudget: 20000},
		// touch changes files: not ReadOnly, so served only with "mcp --allow-write".
		{Command: "touch", Args: "files"},
	},
}

// newRoot builds the app; cliv3adapter calls it afresh for every tool call.
func newRoot() *cli.Command {
	root := &cli.Command{
		Name:    "cliv3app",
		Usage:   "count and find words in text files",
		Version: "0.1.0",
		OnUsageError: func(_ context.Context, _ *cli.Command, err error, _ bool) error {
			return cli.Exit(err.Error(), 64)
		},
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
				Action: func(_ context.Context, cmd *cli.Command) error {
					for _, name := range cmd.Args().Slice() {
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
	root.Commands = append(root.Commands, cliv3adapter.Commands(newRoot, tools)...)
	return root
}

func count(_ context.Context, cmd *cli.Command) error {
	by := cmd.String("by")
	if by != "lines" && by != "words" && by != "bytes" {
		return cli.Exit(fmt.Sprintf("--by %q: use lines, words or bytes", by), 64)
	}
	counts := map[string]int{}
	for _, name := range cmd.Args().Slice() {
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
	return json.NewEncoder(cmd.Root().Writer).Encode(map[string]any{"by": by, "counts": counts})
}

func find(_ context.Context, cmd *cli.Command) error {
	pattern, found := cmd.String("pattern"), 0
	if cmd.Bool("ignore-case") {
		pattern = strings.ToLower(pattern)
	}
	for _, name := range cmd.Args().Slice() {
		f, err := os.Open(name)
		if err != nil {
			return cli.Exit(err, 2)
		}
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan() && found < cmd.Int("max"); n++ {
			line := sc.Text()
			if cmd.Bool("ignore-case") {
				line = strings.ToLower(line)
			}
			if strings.Contains(line, pattern) {
				found++
				fmt.Fprintf(cmd.Root().Writer, "%s:%d:%s\n", name, n, sc.Text())
			}
		}
		f.Close()
	}
	if found == 0 {
		return cli.Exit("", 1)
	}
	return nil
}
