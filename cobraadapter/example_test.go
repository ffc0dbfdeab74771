package cobraadapter_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpship/mcpship/cobraadapter"
	"github.com/mcpship/mcpship/mcp"
)

// newRoot builds the example's app afresh, as cobraadapter asks: one
// command, "words", that counts the words of its arguments.
func newRoot() *cobra.Command {
	words := &cobra.Command{
		Use:   "words [TEXT...]",
		Short: "Count the words of the arguments",
		RunE: func(cmd *cobra.Command, args []string) error {
			words := strings.Fields(strings.Join(args, " "))
			cmd.Println(len(words), "words")
			if upper, _ := cmd.Flags().GetBool("upper"); upper {
				cmd.Println(strings.ToUpper(strings.Join(words, " ")))
			}
			return nil
		},
	}
	words.Flags().Bool("upper", false, "also print the words in upper case")
	root := &cobra.Command{Use: "wc"}
	root.AddCommand(words)
	return root
}

// The "words" command of a Cobra app served as the tool wc_words: its
// flags become the input schema, its positional arguments the array
// "text", and each call runs the app with its output captured. A program
// would add cobraadapter.Commands(newRoot, opts) to its root instead, for
// an "mcp" subcommand that serves on its standard streams.
func ExampleAddTools() {
	s := mcp.NewServer(mcp.Implementation{Name: "wc", Version: "1.0.0"}, nil)
	err := cobraadapter.AddTools(s, newRoot, cobraadapter.Options{
		Prefix: "wc_",
		Tools:  []cobraadapter.Tool{{Command: "words", ReadOnly: true, Args: "text"}},
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

// A Cobra app that serves its own commands: "wc mcp" serves wc_words over
// stdio (and wc_words only: commands are opt-in), and "wc init", "wc
// remove" and "wc doctor" register "wc mcp" with AI assistants.
func ExampleCommands() {
	var newRoot func() *cobra.Command
	newRoot = func() *cobra.Command {
		root := &cobra.Command{Use: "wc"}
		root.AddCommand(&cobra.Command{Use: "words", Run: func(*cobra.Command, []string) {}})
		root.AddCommand(cobraadapter.Commands(newRoot, cobraadapter.Options{
			Prefix: "wc_",
			Tools:  []cobraadapter.Tool{{Command: "words", ReadOnly: true, Args: "text"}},
		})...)
		return root
	}
	for _, c := range newRoot().Commands() {
		fmt.Println(c.Name())
	}
	// Output:
	// doctor
	// init
	// mcp
	// remove
	// words
}
