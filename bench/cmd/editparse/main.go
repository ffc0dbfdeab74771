// Command editparse reads a config file and parses it twice with the
// library mcpship uses for its format, as an edit with its check must
// (the file, then the edited text): the share of an edit that belongs to
// the parsing library, which editbench sets beside the floor.
//
//	editparse json|jsonc|toml|yaml FILE
package main

import (
	"fmt"
	"os"

	"github.com/pelletier/go-toml/v2/unstable"
	"github.com/tailscale/hujson"
	"go.yaml.in/yaml/v3"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: editparse json|jsonc|toml|yaml FILE")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "editparse:", err)
		os.Exit(1)
	}
	parse, ok := parsers[os.Args[1]]
	if !ok {
		fmt.Fprintln(os.Stderr, "editparse: unknown format", os.Args[1])
		os.Exit(2)
	}
	for range 2 {
		if err := parse(data); err != nil {
			fmt.Fprintln(os.Stderr, "editparse:", err)
			os.Exit(1)
		}
	}
}

var parsers = map[string]func([]byte) error{
	"json":  parseJSON,
	"jsonc": parseJSON,
	"toml":  parseTOML,
	"yaml": func(b []byte) error {
		var n yaml.Node
		return yaml.Unmarshal(b, &n)
	},
}

func parseJSON(b []byte) error {
	_, err := hujson.Parse(b)
	return err
}

func parseTOML(b []byte) error {
	var p unstable.Parser
	p.Reset(b)
	for p.NextExpression() {
	}
	return p.Error()
}
