// Command cobraapp is goapp (examples/goapp) written with Cobra: it
// serves its own commands as MCP tools through package cobraadapter, and
// "cobraapp mcp" is the server an assistant starts.
//
//	cobraapp count --by words README.md
//	cobraapp find --pattern TODO main.go    # exits 1 when nothing matches, like grep
//	cobraapp touch notes.txt                # write-side: served only with "cobraapp mcp --allow-write"
//	cobraapp mcp
//	cobraapp init                           # register "cobraapp mcp" with Claude Code in this project
//	cobraapp doctor                         # start it as the assistant would and list its tools
//	cobraapp remove
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpship/mcpship/cobraadapter"
)

func main() {
	err := newRoot().Execute()
	if err == nil {
		return
	}
	code := 1
	var ec interface{ ExitCode() int } // cobraadapter's usage errors say 64; exitError below
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(os.Stderr, "cobraapp:", msg)
	}
	if code == 64 {
		fmt.Fprintln(os.Stderr, "Run 'cobraapp help' for usage.")
	}
	os.Exit(code)
}

// tools are the commands cobraapp serves over MCP.
var tools = cobraadapter.Options{
	Prefix: "cobraapp_",
	Tools: []cobraadapter.Tool{
		// A count depends only on the files counted: kept while they are unchanged.
		{Command: "count", ReadOnly: true, Args: "files", JSON: true, Enum: map[string][]string{"by": {"lines", "words", "bytes"}}, Cache: []string{"{files}"}},
		// Matches can run to thousands of lines: past 20,000 characters the
		// result keeps the first and the last, and the rest is a resource.
		{Command: "find", ReadOnly: true, Args: "files", OKExitCodes: []int{0, 1}, OutputBudget: 20000},
		// touch changes files: not ReadOnly, so served only with "mcp --allow-write".
		{Command: "touch", Args: "files"},
	},
}

// exitError is an error with an exit status.
type exitError struct {
	err  error
	code int
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) ExitCode() int { return e.code }

// newRoot builds the app; cobraadapter calls it afresh for every tool call.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "cobraapp",
		Short:         "count and find words in text files",
		Version:       "0.1.0",
		SilenceErrors: true, // main prints them
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitError{err, 64} })

	count := &cobra.Command{
		Use:   "count FILE...",
		Short: "count the lines, words or bytes of files",
		RunE:  count,
	}
	count.Flags().String("by", "lines", "what to count: lines, words or bytes")

	find := &cobra.Command{
		Use:   "find FILE...",
		Short: "print the lines of files that contain a string",
		RunE:  find,
	}
	find.Flags().String("pattern", "", "text to look for")
	find.Flags().Bool("ignore-case", false, "match regardless of case")
	find.Flags().Int("max", 100, "stop after this many matching lines")
	_ = find.MarkFlagRequired("pattern")

	touch := &cobra.Command{
		Use:   "touch FILE...",
		Short: "create empty files",
		RunE: func(_ *cobra.Command, args []string) error {
			for _, name := range args {
				f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					return exitError{err, 2}
				}
				f.Close()
			}
			return nil
		},
	}
	root.AddCommand(count, find, touch)
	root.AddCommand(cobraadapter.Commands(newRoot, tools)...)
	return root
}

func count(cmd *cobra.Command, args []string) error {
	by, _ := cmd.Flags().GetString("by")
	if by != "lines" && by != "words" && by != "bytes" {
		return exitError{fmt.Errorf("--by %q: use lines, words or bytes", by), 64}
	}
	counts := map[string]int{}
	for _, name := range args {
		b, err := os.ReadFile(name)
		if err != nil {
			return exitError{err, 2}
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
	return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"by": by, "counts": counts})
}

func find(cmd *cobra.Command, args []string) error {
	pattern, _ := cmd.Flags().GetString("pattern")
	ignoreCase, _ := cmd.Flags().GetBool("ignore-case")
	limit, _ := cmd.Flags().GetInt("max")
	if ignoreCase {
		pattern = strings.ToLower(pattern)
	}
	found := 0
	for _, name := range args {
		f, err := os.Open(name)
		if err != nil {
			return exitError{err, 2}
		}
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan() && found < limit; n++ {
			line := sc.Text()
			if ignoreCase {
				line = strings.ToLower(line)
			}
			if strings.Contains(line, pattern) {
				found++
				fmt.Fprintf(cmd.OutOrStdout(), "%s:%d:%s\n", name, n, sc.Text())
			}
		}
		f.Close()
	}
	if found == 0 {
		return exitError{errors.New(""), 1}
	}
	return nil
}
