package mcpb_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"log"

	"github.com/mcpship/mcpship/internal/mcpb"
)

func ExampleWrite() {
	m := &mcpb.Manifest{
		ManifestVersion: mcpb.ManifestVersion,
		Name:            "rigor",
		Version:         "1.2.3",
		Description:     "Type-check Ruby with Rigor",
		Author:          mcpb.Author{Name: "Rigor authors"},
		Server: mcpb.Server{
			Type:       "binary",
			EntryPoint: "server/mcpship",
			MCPConfig: &mcpb.MCPConfig{
				Command: "${__dirname}/server/mcpship",
				Args:    []string{"serve", "--manifest", "${__dirname}/server/mcpship.json"},
				Env:     map[string]string{"RIGOR_TOKEN": "${user_config.rigor_token}"},
			},
		},
		Tools:         []mcpb.Tool{{Name: "rigor_check", Description: "Type-check Ruby files"}},
		Compatibility: &mcpb.Compatibility{Platforms: []string{"linux"}},
		UserConfig: map[string]mcpb.UserConfig{
			"rigor_token": {Type: "string", Title: "RIGOR_TOKEN", Description: "Token for the Rigor service", Sensitive: true, Default: ""},
		},
	}
	var buf bytes.Buffer
	err := mcpb.Write(&buf, m, []mcpb.File{
		{Name: "server/mcpship", Data: []byte("\x7fELF..."), Mode: 0o755},
		{Name: "server/mcpship.json", Data: []byte(`{"tools": []}`)},
	})
	if err != nil {
		log.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range zr.File {
		fmt.Println(f.Mode(), f.Name)
	}
	// Output:
	// -rw-r--r-- manifest.json
	// -rwxr-xr-x server/mcpship
	// -rw-r--r-- server/mcpship.json
}
