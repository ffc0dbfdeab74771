package cliadapter_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/cliadapter"
	"github.com/mcpship/mcpship/mcp"
	"github.com/mcpship/mcpship/registercmd"
)

// newApp builds the example's app afresh, as cliadapter asks: one command,
// "words", that counts the words of its arguments.
func newApp() *cli.App {
	return &cli.App{
		Name: "wc",
		Commands: []*cli.Command{{
			Name:  "words",
			Usage: "Count the words of the arguments",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "upper", Usage: "also print the words in upper case"}},
			Action: func(c *cli.Context) error {
				words := strings.Fields(strings.Join(c.Args().Slice(), " "))
				fmt.Fprintln(c.App.Writer, len(words), "words")
				if c.Bool("upper") {
					fmt.Fprintln(c.App.Writer, strings.ToUpper(strings.Join(words, " ")))
				}
				return nil
			},
		}},
	}
}

// The "words" command of an app served as the tool wc_words: its flags
// become the input schema, its positional arguments the array "text", and
// each call runs the app with its output captured. A program would add
// cliadapter.Commands(newApp, opts) to its own commands instead, for an
// "mcp" subcommand that serves on its standard streams.
func ExampleAddTools() {
	s := mcp.NewServer(mcp.Implementation{Name: "wc", Version: "1.0.0"}, nil)
	err := cliadapter.AddTools(s, newApp, cliadapter.Options{
		Prefix: "wc_",
		Tools:  []cliadapter.Tool{{Command: "words", ReadOnly: true, Args: "text"}},
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

// A Go CLI that serves its own commands: "wc mcp" serves wc_words over
// stdio (and wc_words only: commands are opt-in), and "wc init", "wc
// remove" and "wc doctor" from package registercmd register "wc mcp" with
// AI assistants. An app that leaves registercmd out does not link the
// config editors.
func ExampleCommands() {
	var newApp func() *cli.App
	newApp = func() *cli.App {
		app := &cli.App{Name: "wc", Commands: []*cli.Command{{Name: "words", Action: func(*cli.Context) error { return nil }}}}
		app.Commands = append(app.Commands, cliadapter.Commands(newApp, cliadapter.Options{
			Prefix: "wc_",
			Tools:  []cliadapter.Tool{{Command: "words", ReadOnly: true, Args: "text"}},
		})...)
		app.Commands = append(app.Commands, registercmd.Commands(registercmd.Program{Args: []string{"mcp"}})...)
		return app
	}
	for _, c := range newApp().Commands {
		fmt.Println(c.Name)
	}
	// Output:
	// words
	// mcp
	// init
	// remove
	// doctor
}
