package publish_test

import (
	"fmt"
	"strings"

	"github.com/mcpship/mcpship/internal/publish"
)

// An author's server.json, updated for a new release: the version and the
// bundle's URL and hash change; the title the author added stays.
func ExampleServerJSON() {
	old := `{
  "name": "io.github.ann/notes",
  "title": "Ann's notes",
  "description": "Search Ann's notes",
  "version": "1.0.0",
  "packages": [
    {
      "registryType": "mcpb",
      "identifier": "https://github.com/ann/notes/releases/download/v1.0.0/notes_1.0.0_linux_amd64.mcpb",
      "fileSha256": "` + strings.Repeat("1", 64) + `",
      "transport": {"type": "stdio"}
    }
  ]
}
`
	out, err := publish.ServerJSON([]byte(old), publish.Server{
		Name:    "io.github.ann/notes",
		Version: "1.1.0",
		Packages: []publish.Package{publish.BundlePackage(
			"https://github.com/ann/notes/releases/download/v1.1.0/notes_1.1.0_linux_amd64.mcpb", strings.Repeat("2", 64))},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// {
	//   "name": "io.github.ann/notes",
	//   "title": "Ann's notes",
	//   "description": "Search Ann's notes",
	//   "version": "1.1.0",
	//   "packages": [
	//     {
	//       "registryType": "mcpb",
	//       "identifier": "https://github.com/ann/notes/releases/download/v1.1.0/notes_1.1.0_linux_amd64.mcpb",
	//       "fileSha256": "2222222222222222222222222222222222222222222222222222222222222222",
	//       "transport": {"type": "stdio"}
	//     }
	//   ]
	// }
}

func ExampleOneLiners() {
	e := publish.Entry{Name: "notes", Command: "notes", Args: []string{"mcp"}}
	for _, o := range publish.OneLiners(e) {
		fmt.Println(o.Line)
	}
	// Output:
	// claude mcp add-json --scope user notes '{"type":"stdio","command":"notes","args":["mcp"]}'
	// codex mcp add notes -- notes mcp
	// gemini mcp add --scope user notes notes -- mcp
	// code --add-mcp '{"name":"notes","type":"stdio","command":"notes","args":["mcp"]}'
}
