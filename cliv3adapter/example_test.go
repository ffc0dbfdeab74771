package cliv3adapter_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpship/mcpship/cliv3adapter"
	"github.com/mcpship/mcpship/mcp"
)

// newRoot builds the example's app afresh, as cliv3adapter asks: one
// command, "words", that counts the words of its arguments.
func newRoot() *cli.Command {
	return &cli.Command{
		Name: "wc",
		Commands: []*cli.Command{{
			Name:  "words",
			Usage: "Count the words of the arguments",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "upper", Usage: "also print the words in upper case"}},
			Action: func(_ context.Context, cmd *cli.Command) error {
				w := cmd.Root().Writer
				words := strings.Fields(strings.Join(cmd.Args().Slice(), " "))
				fmt.Fprintln(w, len(words), "words")
				if cmd.Bool("upper") {
					fmt.Fprintln(w, strings.ToUpper(strings.Join(words, " ")))
				}
				return nil
			},
		}},
	}
}

// The "words" command of a urfave/cli v3 app served as the tool
// wc_words: its flags become the input schema, its positional arguments
// the array "text", and each call runs the app with its output captured.
// A program would add cliv3adapter.Commands(newRoot, opts) to its own
// commands instead, for an "mcp" subcommand that serves on its standard
// streams.
func ExampleAddTools() {
	s := mcp.NewServer(mcp.Implementation{Name: "wc", Version: "1.0.0"}, nil)
	err := cliv3adapter.AddTools(s, newRoot, cliv3adapter.Options{
		Prefix: "wc_",
		Tools:  []cliv3adapter.Tool{{Command: "words", ReadOnly: true, Args: "text"}},
	})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	c := s.Connect(ctx, nil)
	defer c.Close()
	if _, err := c.Initialize(ctx, ""); err != nil {
		log.Fatal(err)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tools[0].Name+":", tools[0].Description)
	res, err := c.CallTool(ctx, "wc_words", map[string]any{"text": []string{"to be", "or not"}, "upper": true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Content[0].Text)
	// Output:
	// wc_words: Count the words of the arguments
	// 4 words
	// TO BE OR NOT
}

// A urfave/cli v3 app that serves its own commands: "wc mcp" serves
// wc_words over stdio (and wc_words only: commands are opt-in), and "wc
// init", "wc remove" and "wc doctor" register "wc mcp" with AI assistants.
func ExampleCommands() {
	var newRoot func() *cli.Command
	newRoot = func() *cli.Command {
		root := &cli.Command{Name: "wc", Commands: []*cli.Command{{Name: "words", Action: func(context.Context, *cli.Command) error { return nil }}}}
		root.Commands = append(root.Commands, cliv3adapter.Commands(newRoot, cliv3adapter.Options{
			Prefix: "wc_",
			Tools:  []cliv3adapter.Tool{{Command: "words", ReadOnly: true, Args: "text"}},
		})...)
		return root
	}
	for _, c := range newRoot().Commands {
		fmt.Println(c.Name)
	}
	// Output:
	// words
	// mcp
	// init
	// remove
	// doctor
}
