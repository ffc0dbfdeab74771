package mcp_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/mcpship/mcpship/mcp"
)

// The typed API: the input and output schemas come from Go types, and the
// handler gets the arguments decoded.
func ExampleAddTool() {
	type countIn struct {
		Text string `json:"text" jsonschema:"the text to count in"`
		Word string `json:"word,omitempty" jsonschema:"count only this word"`
	}
	type countOut struct {
		Words int `json:"words"`
		Lines int `json:"lines"`
	}
	s := mcp.NewServer(mcp.Implementation{Name: "counter", Version: "1.0.0"}, nil)
	err := mcp.AddTool(s, mcp.Tool{Name: "count", Description: "Count words and lines"},
		func(ctx context.Context, req *mcp.CallRequest, in countIn) (*mcp.CallToolResult, countOut, error) {
			out := countOut{Lines: strings.Count(in.Text, "\n")}
			for _, w := range strings.Fields(in.Text) {
				if in.Word == "" || w == in.Word {
					out.Words++
				}
			}
			return nil, out, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	tool := s.Tools()[0]
	fmt.Println("input: ", string(tool.InputSchema))
	fmt.Println("output:", string(tool.OutputSchema))

	ctx := context.Background()
	c := s.Connect(ctx, nil)
	defer c.Close()
	if _, err := c.Initialize(ctx, ""); err != nil {
		log.Fatal(err)
	}
	res, err := c.CallTool(ctx, "count", countIn{Text: "to be\nor not to be\n", Word: "be"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("structured:", res.StructuredContent)
	fmt.Println("text:", res.Content[0].Text)
	// Output:
	// input:  {"properties":{"text":{"description":"the text to count in","type":"string"},"word":{"description":"count only this word","type":"string"}},"required":["text"],"type":"object"}
	// output: {"properties":{"lines":{"type":"integer"},"words":{"type":"integer"}},"required":["words","lines"],"type":"object"}
	// structured: map[lines:2 words:2]
	// text: {"words":2,"lines":2}
}
